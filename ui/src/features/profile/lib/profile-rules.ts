// Spec §2 Profile and §5: which fields lock for which account, and the e-mail check.
import { z } from 'zod';
import type { RegType, Settings, User } from '@/types/api';

export function emailLocked(regType: RegType | undefined) {
  return regType === 'email' || regType === 'admin' || regType === 'registration';
}

export function phoneLocked(regType: RegType | undefined) {
  return regType === 'mobile' || regType === 'admin' || regType === 'registration';
}

// Spec §5 Profile: letters/digits, @, letters/digits, a dot, letters.
const PROFILE_EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]+$/;

export const profileSchema = z.object({
  firstName: z.string().trim().min(1, 'profile.first_name_required'),
  lastName: z.string().trim().min(1, 'profile.last_name_required'),
  email: z.string().trim().refine((value) => value === '' || PROFILE_EMAIL.test(value), 'proper_email'),
  mobile: z.string().trim(),
  langLocale: z.string(),
  // The server's bounds: at most 64 characters, no control characters.
  bankName: z.string().trim().max(64, 'invalid_input'),
  bankCode: z.string().trim().max(64, 'invalid_input'),
  bankAccount: z.string().trim().max(64, 'invalid_input'),
});

/** Spec §2/§3: bank details show on the profile when `bank_fields` is on, for
 * whoever may ask for a withdrawal (drivers; riders when RiderWithDraw is on). */
export function showsBankFields(user: Pick<User, 'usertype'>, settings: Pick<Settings, 'bank_fields' | 'RiderWithDraw'>) {
  if (!settings.bank_fields) return false;
  return user.usertype === 'driver' || (user.usertype === 'rider' && settings.RiderWithDraw);
}

export type ProfileValues = z.infer<typeof profileSchema>;
