import { BookingForm } from '@/features/booking/components/booking-form';
import { DriveWithUs } from '@/features/driver-signup/components/drive-with-us';
import { Hero, Slogan } from '@/features/landing/components/hero';
import { AppLinks, Highlights } from '@/features/landing/components/highlights';
import { useUser } from '@/lib/auth';
import type { Role } from '@/types/api';

/** Spec §2: the form shows to visitors, riders and admins; drivers (and fleet
 * admins, who book for no one) see a slogan — the engine's
 * `landing_shows_booking_form`. */
export function showsBookingForm(role: Role | undefined) {
  return role === undefined || role === 'rider' || role === 'admin';
}

export default function LandingRoute() {
  const { data: user } = useUser();
  return (
    <>
      <Hero>{showsBookingForm(user?.usertype) ? <BookingForm /> : <Slogan role={user?.usertype === 'fleetadmin' ? 'fleetadmin' : 'driver'} />}</Hero>
      {!user && <DriveWithUs />}
      <Highlights />
      <AppLinks />
    </>
  );
}
