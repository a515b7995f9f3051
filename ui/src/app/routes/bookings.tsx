import { Alert, Box, Card, CardContent, Container, Grid, Stack, Typography } from '@mui/material';
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ChatPanel } from '@/features/chat/components/chat-panel';
import { DriverConsole } from '@/features/driver/components/driver-console';
import { WeeklyStatements } from '@/features/driver/components/weekly-statements';
import { DriverGate } from '@/features/driver-signup/components/driver-gate';
import { driverPositionAtom } from '@/features/driver/stores/driver-position';
import { LicenceUpload } from '@/features/profile/components/licence-upload';
import { useBooking, useBookings } from '@/features/trips/api/bookings';
import { BookingsTable } from '@/features/trips/components/bookings-table';
import { DriverTripPanel } from '@/features/trips/components/driver-trip-panel';
import { SosButton } from '@/features/sos/components/sos-button';
import { ParcelPhotos } from '@/features/trips/components/parcel-photos';
import { TripView } from '@/features/trips/components/trip-view';
import { isActive, isDriverTrip } from '@/features/trips/lib/booking-status';
import { PushPrompt } from '@/components/push/push-prompt';
import { WalletPanel } from '@/features/wallet/components/wallet-panel';
import { useSettings } from '@/lib/app-data';
import { useUser } from '@/lib/auth';
import type { Booking, LatLng, User } from '@/types/api';

/** Chat is open while a driver is on the booking and the trip is not over. */
function chatFor(booking: Booking, user: User) {
  if (!booking.driver || !isActive(booking.status)) return undefined;
  const other = (user.id === booking.driver ? booking.customer_name : booking.driver_name) ?? '';
  return <ChatPanel bookingId={booking.id} userId={user.id} otherName={other} />;
}

/** The trip's SOS button, drawn by the trip view where its last position is known. */
function sosFor(booking: Booking) {
  return (lastPosition: LatLng | null) => <SosButton booking={booking} lastPosition={lastPosition} />;
}

function useSelectedTrip() {
  const [params, setParams] = useSearchParams();
  const select = (id: string) => {
    setParams({ trip: id }, { replace: false });
    window.scrollTo({ top: 0, behavior: 'smooth' });
  };
  return { selectedId: params.get('trip'), select };
}

function RiderBookings({ user }: { user: User }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const bookings = useBookings();
  const { selectedId, select } = useSelectedTrip();
  const items = bookings.data?.items ?? [];
  const fallback = items.find((booking) => isActive(booking.status))?.id ?? null;
  const tripId = selectedId ?? fallback;
  const trip = useBooking(tripId);
  return (
    <Stack spacing={3}>
      {user.usertype === 'rider' && <PushPrompt role="rider" />}
      {trip.data ? (
        <TripView booking={trip.data} chat={chatFor(trip.data, user)} sos={sosFor(trip.data)} />
      ) : (
        trip.isError && <Alert severity="warning">{t('not_found')}</Alert>
      )}
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, lg: user.usertype === 'rider' ? 8 : 12 }}>
          <BookingsTable role={user.usertype} selectedId={tripId} onSelect={(booking) => select(booking.id)} />
        </Grid>
        {user.usertype === 'rider' && (
          <Grid size={{ xs: 12, lg: 4 }}>
            <WalletPanel userId={user.id} canWithdraw={settings.RiderWithDraw === true} />
          </Grid>
        )}
      </Grid>
    </Stack>
  );
}

function DriverBookings({ user }: { user: User }) {
  const bookings = useBookings();
  const { selectedId, select } = useSelectedTrip();
  const position = useAtomValue(driverPositionAtom);
  const items = bookings.data?.items ?? [];
  const current = items.find((booking) => isDriverTrip(booking, user.id));
  const tripId = current?.id ?? null;
  const trip = useBooking(tripId);
  const active = trip.data && isDriverTrip(trip.data, user.id) ? trip.data : null;
  const viewing = useBooking(selectedId && selectedId !== tripId ? selectedId : null);
  // Spec §4: PENDING and PAID leave the driver free for the next booking.
  const running = active && !['PENDING', 'PAID'].includes(active.status) ? active : null;
  return (
    <Stack spacing={{ xs: 2, md: 3 }}>
      {/* A phone in a car: the trip under way comes first, its next action without scrolling. */}
      {active && (
        <DriverTripPanel
          booking={active}
          position={position}
          chat={chatFor(active, user)}
          uploads={<ParcelPhotos booking={active} />}
          sos={<SosButton booking={active} lastPosition={position} />}
        />
      )}
      <DriverConsole user={user} trip={running} onAccepted={(booking) => select(booking.id)} />
      <PushPrompt role="driver" />
      {!active && viewing.data && <TripView booking={viewing.data} sos={sosFor(viewing.data)} />}
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, lg: 8 }}>
          <BookingsTable role="driver" selectedId={selectedId ?? tripId} onSelect={(booking) => select(booking.id)} />
        </Grid>
        <Grid size={{ xs: 12, lg: 4 }}>
          <Stack spacing={3}>
            <WalletPanel userId={user.id} canWithdraw />
            <WeeklyStatements driverId={user.id} />
            <Card variant="outlined">
              <CardContent>
                <LicenceUpload user={user} />
              </CardContent>
            </Card>
          </Stack>
        </Grid>
      </Grid>
    </Stack>
  );
}

export default function BookingsRoute() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  if (!user) return null;
  return (
    <Box sx={{ py: { xs: 1.5, md: 4 }, bgcolor: 'background.default' }}>
      <Container maxWidth="xl">
        <Typography
          variant="h4"
          component="h1"
          sx={user.usertype === 'driver' ? { mb: { xs: 1.5, md: 3 }, fontSize: { xs: '1.5rem', md: undefined } } : { mb: 3 }}
        >
          {user.usertype === 'driver' ? t('driver.console_title') : t('bookings.title')}
        </Typography>
        {user.usertype === 'driver' ? (
          <DriverGate user={user}>
            <DriverBookings user={user} />
          </DriverGate>
        ) : (
          <RiderBookings user={user} />
        )}
      </Container>
    </Box>
  );
}
