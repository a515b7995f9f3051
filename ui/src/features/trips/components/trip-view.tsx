import DirectionsCarIcon from '@mui/icons-material/DirectionsCar';
import PlaceIcon from '@mui/icons-material/Place';
import StarIcon from '@mui/icons-material/Star';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import {
  Alert,
  Avatar,
  Box,
  Button,
  Card,
  CardContent,
  Grid,
  Stack,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { PaymentProviderDialog } from '@/components/payment/payment-provider-dialog';
import { SosButton } from '@/features/sos/components/sos-button';
import { errorKey } from '@/lib/api-client';
import { useAppTexts } from '@/lib/app-texts';
import { MAP_HEIGHT } from '@/components/map/types';
import { useSettings } from '@/lib/app-data';
import { useUser } from '@/lib/auth';
import { formatDateTime, formatMoney } from '@/lib/format';
import { checkoutFields, checkoutReturnUrls, postToGateway, TRIP_PAYMENT_PARAM, useCheckoutOutcome } from '@/lib/payments';
import { bearing } from '@/lib/polyline';
import type { Booking } from '@/types/api';
import { useBookingCommand, useTracking } from '../api/bookings';
import {
  canCancel,
  canPayByWallet,
  canPayNow,
  canRate,
  INCOMPLETE_BOOKING_REASON,
  PAYMENT_PENDING_CANCEL_DELAY_MS,
  isActive,
  paymentNotice,
  showsOtp,
} from '../lib/booking-status';
import { CancelDialog } from './cancel-dialog';
import { DeliveryDetails } from './delivery-details';
import { RatingPanel } from './rating-panel';
import { StatusChip } from './status-chip';
import { TripMap } from './trip-map';
import { TripProgress } from './trip-progress';

/** Spec §9: an unpaid prepaid booking is cancelled about 1.5 s after the button. */

/** The rider's live trip: status, driver, the car on the map, the otp, chat,
 * cancel, payment and rating. */
export function TripView({ booking, chat }: { booking: Booking; chat?: ReactNode }) {
  // Every text in the booking's own words: a parcel's page speaks of the parcel (issue #34).
  const { t, i18n } = useAppTexts(booking.appcat);
  const settings = useSettings();
  const { data: user } = useUser();
  const role = user?.usertype ?? 'rider';
  const command = useBookingCommand(booking.id);
  const [cancelOpen, setCancelOpen] = useState(false);
  const [payOpen, setPayOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const payment = useCheckoutOutcome(TRIP_PAYMENT_PARAM);
  const hasDriver = Boolean(booking.driver);
  const tracked = ['ACCEPTED', 'ARRIVED', 'STARTED'].includes(booking.status);
  const tracking = useTracking(booking.id, hasDriver && tracked);
  const latest = tracking.data?.latest ?? null;
  const previous = useRef(latest);
  const [heading, setHeading] = useState(0);
  useEffect(() => {
    if (latest && previous.current && (latest.lat !== previous.current.lat || latest.lng !== previous.current.lng)) {
      setHeading(bearing(previous.current, latest));
    }
    previous.current = latest;
  }, [latest]);

  const run = (action: Parameters<typeof command.mutate>[0], after?: () => void) => {
    setError(null);
    command.mutate(action, {
      onSuccess: () => after?.(),
      onError: (failure) => setError(errorKey(failure)),
    });
  };

  const startCancel = () => {
    if (booking.status === 'PAYMENT_PENDING') {
      setTimeout(() => run({ action: 'cancel', reason: i18n.t(INCOMPLETE_BOOKING_REASON, { lng: 'en' }) }), PAYMENT_PENDING_CANCEL_DELAY_MS);
    } else {
      setCancelOpen(true);
    }
  };

  // DESIGN.md: the rider's card choice moves the trip to PENDING, where pay
  // now (spec §4) opens the provider chooser.
  const payByCard = () => {
    if (canPayNow(booking, role)) setPayOpen(true);
    else run({ action: 'pay', payment_mode: 'card' }, () => setPayOpen(true));
  };

  const fare = booking.trip_cost || booking.estimate;
  const car = hasDriver && tracked && latest ? { lat: latest.lat, lng: latest.lng, heading } : null;

  return (
    <Card variant="outlined" data-testid="trip-view" data-booking-id={booking.id} data-reference={booking.reference} data-status={booking.status}>
      <CardContent sx={{ p: { xs: 2, md: 3 } }}>
        <Stack direction="row" alignItems="center" spacing={1.5} flexWrap="wrap" useFlexGap sx={{ mb: 2 }}>
          <Typography variant="h5" component="h2" fontWeight={800}>
            {t('trip.title', { reference: booking.reference })}
          </Typography>
          <StatusChip status={booking.status} size="medium" />
          <Box sx={{ flexGrow: 1 }} />
          <Typography variant="body2" color="text.secondary">
            {booking.bookLater ? t('trip.scheduled_for', { date: formatDateTime(booking.tripdate) }) : formatDateTime(booking.bookingDate)}
          </Typography>
        </Stack>
        <TripProgress status={booking.status} />
        <SosButton booking={booking} lastPosition={latest} />
        {booking.status === 'CANCELLED' && (
          <Alert severity="error" sx={{ my: 2 }}>
            {t('trip.cancelled', { reason: booking.reason })}
            {booking.cancellationFee > 0 && ` ${t('trip.cancellation_fee', { amount: formatMoney(booking.cancellationFee, settings) })}`}
          </Alert>
        )}
        <Grid container spacing={3} sx={{ mt: 1 }}>
          <Grid size={{ xs: 12, md: 7 }}>
            <TripMap booking={booking} car={car} height={{ xs: 300, md: MAP_HEIGHT }} />
          </Grid>
          <Grid size={{ xs: 12, md: 5 }}>
            <Stack spacing={2}>
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

              {hasDriver ? (
                <Stack direction="row" spacing={2} alignItems="center" data-testid="driver-card">
                  <Avatar src={booking.driver_image || undefined} sx={{ width: 56, height: 56, bgcolor: 'primary.main' }}>
                    <DirectionsCarIcon />
                  </Avatar>
                  <Box>
                    <Typography fontWeight={700} data-testid="driver-name">
                      {booking.driver_name}
                    </Typography>
                    <Typography variant="body2" color="text.secondary">
                      {[booking.carType, booking.vehicle_number].filter(Boolean).join(' · ')}
                    </Typography>
                    <Stack direction="row" alignItems="center" spacing={0.5}>
                      <StarIcon sx={{ color: 'secondary.main' }} fontSize="small" />
                      <Typography variant="body2">
                        {Number(booking.driverRating) > 0 ? Number(booking.driverRating).toFixed(1) : t('trip.new_driver')}
                      </Typography>
                    </Stack>
                  </Box>
                </Stack>
              ) : (
                isActive(booking.status) && (
                  <Alert severity="info" icon={false} data-testid="finding-driver">
                    {booking.bookLater ? t('trip.scheduled_hint') : t('trip.finding_driver')}
                  </Alert>
                )
              )}
              {booking.status === 'STARTED' && <Typography fontWeight={700} data-testid="trip-under-way">{t('trip.under_way')}</Typography>}

              {showsOtp(booking) && (
                <Box sx={{ bgcolor: 'secondary.main', borderRadius: 2, p: 2, textAlign: 'center' }}>
                  <Typography variant="body2">{t('trip.otp_label')}</Typography>
                  <Typography variant="h4" fontWeight={800} letterSpacing={6} data-testid="trip-otp" dir="ltr">
                    {String(booking.otp)}
                  </Typography>
                </Box>
              )}

              <Stack direction="row" justifyContent="space-between">
                <Typography color="text.secondary">
                  {booking.status === 'PAID' || booking.status === 'COMPLETE' || booking.status === 'REACHED' || booking.status === 'PENDING'
                    ? t('trip.fare')
                    : t('trip.estimated_fare')}
                </Typography>
                <Typography fontWeight={800} data-testid="trip-fare">
                  {formatMoney(booking.status === 'PAID' || booking.status === 'COMPLETE' ? booking.customer_paid || fare : fare, settings)}
                </Typography>
              </Stack>
              {booking.payment_mode && booking.status !== 'PAYMENT_PENDING' && (
                <Typography variant="body2" color="text.secondary">
                  {t('trip.paid_by', { mode: t(`payment.mode.${booking.payment_mode}`) })}
                </Typography>
              )}

              <DeliveryDetails booking={booking} />

              {payment.outcome && (
                <Alert
                  severity={paymentNotice(booking, payment.outcome).severity}
                  onClose={payment.dismiss}
                  data-testid="payment-outcome"
                  data-outcome={payment.outcome}
                >
                  {t(paymentNotice(booking, payment.outcome).key)}
                </Alert>
              )}

              {error && (
                <Alert severity="error" onClose={() => setError(null)} data-testid="trip-error">
                  {t(error)}
                </Alert>
              )}

              {canPayByWallet(booking, role) && (
                <Alert severity="warning" icon={false}>
                  <Stack spacing={1}>
                    <Typography>{t('trip.payment_due', { amount: formatMoney(booking.payableAmount || fare, settings) })}</Typography>
                    <Stack direction="row" spacing={1} flexWrap="wrap" useFlexGap>
                      <Button variant="contained" disabled={command.isPending} onClick={() => run({ action: 'pay', payment_mode: 'wallet' })} data-testid="pay-wallet">
                        {t('trip.pay_wallet', { balance: formatMoney(user?.walletBalance ?? 0, settings) })}
                      </Button>
                      <Button variant="outlined" disabled={command.isPending} onClick={payByCard} data-testid="pay-now">
                        {t('trip.pay_now')}
                      </Button>
                    </Stack>
                    <Typography variant="caption">{t('trip.or_cash')}</Typography>
                  </Stack>
                </Alert>
              )}

              {canRate(booking, role) && (
                <RatingPanel
                  driverName={booking.driver_name}
                  appcat={booking.appcat}
                  busy={command.isPending}
                  error={null}
                  onRate={(rating) => run({ action: 'rate', rating })}
                />
              )}
              {booking.status === 'COMPLETE' && (
                <Alert severity="success" data-testid="trip-complete">
                  {role === 'rider' ? t('trip.complete') : t('trip.complete_rated', { rating: booking.rating ?? '-' })}
                </Alert>
              )}

              {canCancel(booking, role, settings.AllowCriticalEditsAdmin) && (
                <Button color="error" variant="outlined" onClick={startCancel} disabled={command.isPending} data-testid="cancel-booking">
                  {t('trip.cancel')}
                </Button>
              )}
              {chat}
            </Stack>
          </Grid>
        </Grid>
      </CardContent>
      <CancelDialog
        open={cancelOpen}
        busy={command.isPending}
        error={cancelOpen ? error : null}
        onClose={() => setCancelOpen(false)}
        onConfirm={(reason) => run({ action: 'cancel', reason }, () => setCancelOpen(false))}
      />
      {user && (
        <PaymentProviderDialog
          open={payOpen}
          amountText={formatMoney(booking.payableAmount || fare, settings)}
          onClose={() => setTimeout(() => setPayOpen(false), PAYMENT_PENDING_CANCEL_DELAY_MS)}
          onChoose={(provider) =>
            postToGateway(provider.link, checkoutFields(booking, user, settings, checkoutReturnUrls('/bookings', TRIP_PAYMENT_PARAM, { trip: booking.id })))
          }
        />
      )}
    </Card>
  );
}
