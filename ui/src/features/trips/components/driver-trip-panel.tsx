import PersonIcon from '@mui/icons-material/Person';
import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Alert, Avatar, Box, Button, Card, CardContent, Grid, Stack, TextField, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SosButton } from '@/features/sos/components/sos-button';
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
}: {
  booking: Booking;
  position: (LatLng & { heading?: number }) | null;
  chat?: ReactNode;
  uploads?: ReactNode;
}) {
  const { t } = useTranslation();
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

  return (
    <Card variant="outlined" data-testid="driver-trip" data-booking-id={booking.id} data-reference={booking.reference} data-status={booking.status}>
      <CardContent sx={{ p: { xs: 2, md: 3 } }}>
        <Stack direction="row" alignItems="center" spacing={1.5} sx={{ mb: 2 }} flexWrap="wrap" useFlexGap>
          <Typography variant="h5" component="h2" fontWeight={800}>
            {t('trip.title', { reference: booking.reference })}
          </Typography>
          <StatusChip status={booking.status} size="medium" />
        </Stack>
        <TripProgress status={booking.status} />
        <SosButton booking={booking} lastPosition={position} />
        <Grid container spacing={3} sx={{ mt: 1 }}>
          <Grid size={{ xs: 12, md: 7 }}>
            <TripMap booking={booking} car={position} carKind="me" height={{ xs: 300, md: MAP_HEIGHT }} />
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
                  <Typography variant="body2" color="text.secondary">
                    {booking.customer_contact}
                  </Typography>
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

              {error && (
                <Alert severity="error" onClose={() => setError(null)} data-testid="driver-trip-error">
                  {t(error)}
                </Alert>
              )}

              {booking.status === 'ACCEPTED' && (
                <Button variant="contained" size="large" disabled={command.isPending} onClick={() => run({ action: 'arrive' })} data-testid="trip-arrive">
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
                  <Button variant="contained" size="large" disabled={command.isPending} onClick={start} data-testid="trip-start">
                    {t('driver.start')}
                  </Button>
                </Stack>
              )}
              {booking.status === 'STARTED' && (
                <Button variant="contained" size="large" disabled={command.isPending} onClick={() => run({ action: 'reach' })} data-testid="trip-reach">
                  {t('driver.reached')}
                </Button>
              )}
              {booking.status === 'REACHED' && booking.prepaid && (
                <Alert severity="info" icon={false}>
                  <Stack spacing={1}>
                    <Typography>{t('driver.prepaid_prompt', { amount })}</Typography>
                    <Button variant="contained" disabled={command.isPending} onClick={() => run({ action: 'pay' })} data-testid="trip-finish">
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
                    {!booking.prepaid && (
                      <Button
                        variant="contained"
                        disabled={command.isPending}
                        onClick={() => run({ action: 'pay', payment_mode: 'cash' })}
                        data-testid="trip-collect-cash"
                      >
                        {t('driver.collect_cash', { amount })}
                      </Button>
                    )}
                    <Typography variant="caption">{t('driver.or_wait_payment')}</Typography>
                  </Stack>
                </Alert>
              )}
              {booking.status === 'PAID' && <Alert severity="success">{t('driver.paid', { amount })}</Alert>}
              {uploads}
              {chat}
            </Stack>
          </Grid>
        </Grid>
      </CardContent>
    </Card>
  );
}
