// The vehicle and person step of the sign-up: the same checks the server
// makes (engine/src/signup.rs), each failure a translation key.
import { z } from 'zod';

const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;

export function detailsSchema(now: Date) {
  const nextYear = now.getUTCFullYear() + 1;
  const filled = (key: string) => z.string().trim().min(1, key).max(100, 'invalid_input');
  return z.object({
    firstName: filled('profile_incomplete'),
    lastName: filled('profile_incomplete'),
    email: z
      .string()
      .trim()
      .refine((email) => email === '' || EMAIL_PATTERN.test(email), 'proper_email'),
    carType: z.string().min(1, 'select_proper'),
    vehicleMake: filled('vehicle_details_missing'),
    vehicleModel: filled('vehicle_details_missing'),
    vehicleNumber: filled('vehicle_details_missing'),
    vehicleColor: filled('vehicle_details_missing'),
    vehicleYear: z
      .string()
      .trim()
      .refine((year) => /^\d{4}$/.test(year) && Number(year) >= 1950 && Number(year) <= nextYear, 'vehicle_year_invalid'),
    fleetCode: z.string().trim().max(16, 'fleet_code_invalid'),
  });
}

export type DetailsValues = z.infer<ReturnType<typeof detailsSchema>>;

export const emptyDetails: DetailsValues = {
  firstName: '',
  lastName: '',
  email: '',
  carType: '',
  vehicleMake: '',
  vehicleModel: '',
  vehicleNumber: '',
  vehicleColor: '',
  vehicleYear: '',
  fleetCode: '',
};
