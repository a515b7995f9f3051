import NavigationIcon from '@mui/icons-material/Navigation';
import PersonIcon from '@mui/icons-material/Person';
import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Alert, Avatar, Box, Button, Card, CardContent, Grid, Link, Stack, TextField, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppTexts } from '@/lib/app-texts';
import { errorKey } from '@/lib/api-client';
import { MAP_HEIGHT } from '@/components/map/types';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import type { Booking, LatLng } from '@/types/api';
import { useBookingCommand } from '../api/bookings';
import { DeliveryDetails } from './delivery-details';
import { StatusChip } from './status-chip';
import { TripMap } from './trip-map';
import { TripProgress } from './trip-progress';

/** The driver's trip screen: ARRIVED, STARTED (with the rider's otp when
 * required), REACHED, then collect cash or wait for the rider's payment; a
 * prepaid delivery has nothing to collect and is finished at the drop. */
export function DriverTripPanel({
  booking,
  position,
  chat,
  uploads,
  sos,
}: {
  booking: Booking;
  position: (LatLng & { heading?: number }) | null;
  chat?: ReactNode;
  uploads?: ReactNode;
  /** The SOS button (another feature's, so the route hands it in). */
  sos?: ReactNode;
}) {
  // A parcel's screen says collect and deliver (issue #34).
  const { t } = useAppTexts(booking.appcat);
  const settings = useSettings();
  const command = useBookingCommand(booking.id);
  const [otp, setOtp] = useState('');
  const [error, setError] = useState<string | null>(null);
  const needsOtp = booking.otp !== false && booking.otp !== null;
  const amount = formatMoney(booking.payableAmount || booking.trip_cost, settings);

  const run = (action: Parameters<typeof command.mutate>[0]) => {
    setError(null);
    command.mutate(action, { onError: (failure) => setError(errorKey(failure)) });
  };

  const start = () => {
    if (needsOtp) {
      if (!/^\d{5}$/.test(otp.trim())) {
        setError('driver.otp_format');
        return;
      }
      run({ action: 'start', otp: Number(otp.trim()) });
    } else {
      run({ action: 'start' });
    }
  };

  // The next stop: the pickup until the rider is aboard, then the drop.
  const goingTo = booking.status === 'ACCEPTED' || booking.status === 'ARRIVED' ? 'pickup' : booking.status === 'STARTED' ? 'drop' : null;
  const stop = goingTo === 'pickup' ? { point: booking.pickup, address: booking.pickupAddress } : goingTo === 'drop' ? { point: booking.drop, address: booking.dropAddress } : null;

  return (
    <Card variant="outlined" data-testid="driver-trip" data-booking-id={booking.id} data-reference={booking.reference} data-status={booking.status}>
      <CardContent sx={{ p: { xs: 2, md: 3 } }}>
        <Stack direction="row" alignItems="center" spacing={1.5} sx={{ mb: 1.5 }} flexWrap="wrap" useFlexGap>
          <Typography variant="h5" component="h2" fontWeight={800}>
            {t('trip.title', { reference: booking.reference })}
          </Typography>
          <StatusChip status={booking.status} size="medium" />
          {/* In the header, where it never pushes the next action down. */}
          <Box sx={{ marginInlineStart: 'auto' }}>
            {sos}
          </Box>
        </Stack>

        {/* The next action, first and always in the same place: a driver in a car does not scroll. */}
        <Stack spacing={1.5} data-testid="driver-next-action">
          {stop && (
            <Box>
              <Typography variant="overline" color="text.secondary" sx={{ lineHeight: 1.5 }}>
                {t(goingTo === 'pickup' ? 'driver.next_pickup' : 'driver.next_drop')}
              </Typography>
              <Stack direction="row" spacing={1} alignItems="flex-start">
                {goingTo === 'pickup' ? (
                  <TripOriginIcon color="success" sx={{ mt: 0.3 }} />
                ) : (
                  <PlaceIcon color="error" sx={{ mt: 0.3 }} />
                )}
                <Typography variant="h6" component="p" fontWeight={700} sx={{ lineHeight: 1.3 }} data-testid="driver-next-address">
                  {stop.address}
                </Typography>
              </Stack>
              <NavigationLinks to={stop.point} />
            </Box>
          )}

          {error && (
            <Alert severity="error" onClose={() => setError(null)} data-testid="driver-trip-error">
              {t(error)}
            </Alert>
          )}

          {booking.status === 'ACCEPTED' && (
            <Button variant="contained" size="large" sx={BIG_BUTTON} disabled={command.isPending} onClick={() => run({ action: 'arrive' })} data-testid="trip-arrive">
              {t('driver.arrived')}
            </Button>
          )}
          {booking.status === 'ARRIVED' && (
            <Stack spacing={1}>
              {needsOtp && (
                <TextField
                  label={t('driver.otp')}
                  value={otp}
                  onChange={(event) => setOtp(event.target.value)}
                  helperText={t('driver.otp_help')}
                  slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 5, 'data-testid': 'trip-otp-input', dir: 'ltr' } }}
                />
              )}
              <Button variant="contained" size="large" sx={BIG_BUTTON} disabled={command.isPending} onClick={start} data-testid="trip-start">
                {t('driver.start')}
              </Button>
            </Stack>
          )}
          {booking.status === 'STARTED' && (
            <Button variant="contained" size="large" sx={BIG_BUTTON} disabled={command.isPending} onClick={() => run({ action: 'reach' })} data-testid="trip-reach">
              {t('driver.reached')}
            </Button>
          )}
          {booking.status === 'REACHED' && booking.prepaid && (
            <Alert severity="info" icon={false}>
              <Stack spacing={1}>
                <Typography>{t('driver.prepaid_prompt', { amount })}</Typography>
                <Button variant="contained" size="large" sx={BIG_BUTTON} disabled={command.isPending} onClick={() => run({ action: 'pay' })} data-testid="trip-finish">
                  {t('driver.finish_prepaid')}
                </Button>
              </Stack>
            </Alert>
          )}
          {(booking.status === 'REACHED' || booking.status === 'PENDING') && !booking.prepaid && (
            <Alert severity="info" icon={false}>
              <Stack spacing={1}>
                <Typography>{t('driver.collect_prompt', { amount })}</Typography>
                {booking.status === 'PENDING' && (
                  <Typography fontWeight={600} data-testid="driver-awaiting-card">
                    {t('driver.rider_pays_card')}
                  </Typography>
                )}
                <Button
                  variant="contained"
                  size="large"
                  sx={BIG_BUTTON}
                  disabled={command.isPending}
                  onClick={() => run({ action: 'pay', payment_mode: 'cash' })}
                  data-testid="trip-collect-cash"
                >
                  {t('driver.collect_cash', { amount })}
                </Button>
                <Typography variant="caption">{t('driver.or_wait_payment')}</Typography>
              </Stack>
            </Alert>
          )}
          {booking.status === 'PAID' && <Alert severity="success">{t('driver.paid', { amount })}</Alert>}
        </Stack>

        <Box sx={{ mt: 2 }}>
          <TripProgress status={booking.status} />
        </Box>
        <Grid container spacing={3} sx={{ mt: 0.5 }}>
          <Grid size={{ xs: 12, md: 7 }}>
            <TripMap booking={booking} car={position} carKind="me" height={{ xs: 260, md: MAP_HEIGHT }} />
          </Grid>
          <Grid size={{ xs: 12, md: 5 }}>
            <Stack spacing={2}>
              <Stack direction="row" spacing={2} alignItems="center">
                <Avatar src={booking.customer_image || undefined}>
                  <PersonIcon />
                </Avatar>
                <Box>
                  <Typography fontWeight={700} data-testid="rider-name">
                    {booking.customer_name}
                  </Typography>
                  {callable(booking.customer_contact) ? (
                    <Link href={`tel:${booking.customer_contact.replace(/[^+\d]/g, '')}`} variant="body2" dir="ltr" data-testid="rider-call">
                      {booking.customer_contact}
                    </Link>
                  ) : (
                    <Typography variant="body2" color="text.secondary">
                      {booking.customer_contact}
                    </Typography>
                  )}
                </Box>
              </Stack>
              <Stack spacing={1}>
                <Stack direction="row" spacing={1} alignItems="flex-start">
                  <TripOriginIcon color="success" fontSize="small" sx={{ mt: 0.3 }} />
                  <Typography>{booking.pickupAddress}</Typography>
                </Stack>
                <Stack direction="row" spacing={1} alignItems="flex-start">
                  <PlaceIcon color="error" fontSize="small" sx={{ mt: 0.3 }} />
                  <Typography>{booking.dropAddress}</Typography>
                </Stack>
              </Stack>
              <Stack direction="row" justifyContent="space-between">
                <Typography color="text.secondary">{t('trip.fare')}</Typography>
                <Typography fontWeight={800}>{formatMoney(booking.trip_cost || booking.estimate, settings)}</Typography>
              </Stack>
              {booking.driver_share !== undefined && (
                <Stack direction="row" justifyContent="space-between">
                  <Typography color="text.secondary">{t('trip.your_share')}</Typography>
                  <Typography fontWeight={700}>{formatMoney(booking.driver_share, settings)}</Typography>
                </Stack>
              )}

              <DeliveryDetails booking={booking} />
              {uploads}
              {chat}
            </Stack>
          </Grid>
        </Grid>
      </CardContent>
    </Card>
  );
}

/** A phone number that is not masked (demo mode hides contacts). */
function callable(contact: string | undefined): contact is string {
  return !!contact && !contact.includes('*') && contact.replace(/[^\d]/g, '').length >= 7;
}

const BIG_BUTTON = { minHeight: 56, fontSize: '1.1rem', fontWeight: 800 } as const;

/** Hands the stop to the phone's own navigation: each link opens the
 * address in that app (or its web page where the app is missing). */
function NavigationLinks({ to }: { to: LatLng }) {
  const { t } = useTranslation();
  const where = `${to.lat.toFixed(6)},${to.lng.toFixed(6)}`;
  const links = [
    { id: 'google', label: t('driver.nav_google'), href: `https://www.google.com/maps/dir/?api=1&destination=${where}&travelmode=driving` },
    { id: 'apple', label: t('driver.nav_apple'), href: `https://maps.apple.com/?daddr=${where}&dirflg=d` },
    { id: 'waze', label: t('driver.nav_waze'), href: `https://waze.com/ul?ll=${where}&navigate=yes` },
  ];
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 1, flexWrap: 'wrap' }} aria-label={t('driver.navigate')}>
      {links.map((link) => (
        <Button
          key={link.id}
          component="a"
          href={link.href}
          target="_blank"
          rel="noopener noreferrer"
          variant="outlined"
          size="small"
          startIcon={<NavigationIcon />}
          data-testid={`navigate-${link.id}`}
        >
          {link.label}
        </Button>
      ))}
    </Stack>
  );
}
