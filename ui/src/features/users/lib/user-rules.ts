// The users screens' rules (spec §2 "Panel screens", §5 "Admin panel", §6):
// which columns each list shows to whom, what the add/edit form sends, and
// the checks it makes before the server's.
import { z } from 'zod';
import type { Role, User } from '@/types/api';

/** The four lists, by their panel path. */
export type UserList = 'riders' | 'drivers' | 'fleetadmins' | 'alladmin';

export const LIST_ROLE: Record<UserList, Role> = { riders: 'rider', drivers: 'driver', fleetadmins: 'fleetadmin', alladmin: 'admin' };

export interface UserColumn {
  field: string;
  /** Translation key of the header. */
  label: string;
  kind: 'name' | 'text' | 'approved' | 'money' | 'rating' | 'date' | 'contact';
}

/** The columns a viewer sees on a list: wallets are the admins' to read. */
export function userColumns(list: UserList, viewer: Role): UserColumn[] {
  const columns: UserColumn[] = [
    { field: 'name', label: 'users.name', kind: 'name' },
    // Whether they may sign in is read first, next to the name.
    { field: 'approved', label: 'users.approved', kind: 'approved' },
    { field: 'email', label: 'users.email', kind: 'contact' },
    { field: 'mobile', label: 'users.mobile', kind: 'contact' },
  ];
  if (list === 'drivers') {
    columns.push(
      { field: 'carType', label: 'table.car_type', kind: 'text' },
      { field: 'vehicleNumber', label: 'table.vehicle_number', kind: 'text' },
      { field: 'vehicleMake', label: 'users.vehicle_make', kind: 'text' },
      { field: 'vehicleModel', label: 'users.vehicle_model', kind: 'text' },
      { field: 'rating', label: 'users.rating', kind: 'rating' },
    );
  }
  if (list === 'riders') columns.push({ field: 'referralId', label: 'users.referral', kind: 'text' });
  if ((list === 'riders' || list === 'drivers') && viewer === 'admin') columns.push({ field: 'walletBalance', label: 'wallet.title', kind: 'money' });
  columns.push({ field: 'createdAt', label: 'users.created', kind: 'date' });
  return columns;
}

export const userFormSchema = z
  .object({
    firstName: z.string().trim().min(1, 'profile.first_name_required').max(100, 'invalid_input'),
    lastName: z.string().trim().min(1, 'profile.last_name_required').max(100, 'invalid_input'),
    email: z.string().trim(),
    mobile: z.string().trim(),
    approved: z.boolean(),
    carType: z.string(),
    vehicleMake: z.string().trim().max(100, 'invalid_input'),
    vehicleModel: z.string().trim().max(100, 'invalid_input'),
    vehicleNumber: z.string().trim().max(100, 'invalid_input'),
    vehicleColor: z.string().trim().max(100, 'invalid_input'),
    vehicleYear: z
      .string()
      .trim()
      .refine((year) => year === '' || /^\d{4}$/.test(year), 'vehicle_year_invalid'),
    other_info: z.string().trim().max(500, 'invalid_input'),
    fleetadmin: z.string(),
  })
  .superRefine((values, context) => {
    // Spec §5: an e-mail or a mobile, and a proper one.
    if (!values.email && !values.mobile) context.addIssue({ code: 'custom', path: ['email'], message: 'email_or_mobile_issue' });
    if (values.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) context.addIssue({ code: 'custom', path: ['email'], message: 'email_or_mobile_issue' });
    if (values.mobile && values.mobile.replace(/\D/g, '').length < 7) context.addIssue({ code: 'custom', path: ['mobile'], message: 'email_or_mobile_issue' });
  });

export type UserFormValues = z.infer<typeof userFormSchema>;

export function formValuesOf(user: User | null): UserFormValues {
  return {
    firstName: user?.firstName ?? '',
    lastName: user?.lastName ?? '',
    email: user?.email ?? '',
    mobile: user?.mobile ?? '',
    approved: user?.approved ?? true,
    carType: user?.carType ?? '',
    vehicleMake: user?.vehicleMake ?? '',
    vehicleModel: user?.vehicleModel ?? '',
    vehicleNumber: user?.vehicleNumber ?? '',
    vehicleColor: user?.vehicleColor ?? '',
    vehicleYear: user?.vehicleYear ?? '',
    other_info: user?.other_info ?? '',
    fleetadmin: user?.fleetadmin ?? '',
  };
}

/** The body of POST /users (adding) or PATCH /users/{id} (editing: contacts
 * are fixed once added, the type never changes; a fleet admin's drivers stay theirs). */
export function userBody(values: UserFormValues, role: Role, viewer: Role, adding: boolean) {
  const body: Record<string, unknown> = { firstName: values.firstName.trim(), lastName: values.lastName.trim(), approved: values.approved };
  if (adding) {
    body.usertype = role;
    if (values.email.trim()) body.email = values.email.trim();
    if (values.mobile.trim()) body.mobile = values.mobile.trim();
  }
  if (role === 'driver') {
    body.carType = values.carType || null;
    body.vehicleMake = values.vehicleMake.trim();
    body.vehicleModel = values.vehicleModel.trim();
    body.vehicleNumber = values.vehicleNumber.trim();
    body.vehicleColor = values.vehicleColor.trim();
    body.vehicleYear = values.vehicleYear.trim();
    body.other_info = values.other_info.trim();
    if (viewer === 'admin') body.fleetadmin = values.fleetadmin || null;
  }
  return body;
}

/** The row actions a viewer has on a user. */
export function userActions(user: User, viewer: { id: string; role: Role }, criticalEdits: boolean) {
  const self = user.id === viewer.id;
  return {
    edit: criticalEdits,
    approve: criticalEdits && !user.approved,
    // Spec §5: never oneself.
    delete: criticalEdits && !self,
  };
}
