import { BookingForm } from '@/features/booking/components/booking-form';
import { DriverSlogan, Hero } from '@/features/landing/components/hero';
import { AppLinks, Highlights } from '@/features/landing/components/highlights';
import { useUser } from '@/lib/auth';

/** Spec §2: the form shows to visitors, riders and admins; drivers see only a slogan. */
export default function LandingRoute() {
  const { data: user } = useUser();
  const isDriver = user?.usertype === 'driver';
  return (
    <>
      <Hero>{isDriver ? <DriverSlogan /> : <BookingForm />}</Hero>
      <Highlights />
      <AppLinks />
    </>
  );
}
