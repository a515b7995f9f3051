import DirectionsCarIcon from '@mui/icons-material/DirectionsCar';
import PlaceIcon from '@mui/icons-material/Place';
import StarIcon from '@mui/icons-material/Star';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Alert, Avatar, Box, Button, Card, CardContent, Grid, Stack, Typography } from '@mui/material';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { PaymentProviderDialog } from '@/components/payment/payment-provider-dialog';
import { errorKey } from '@/lib/api-client';
import { useAppTexts } from '@/lib/app-texts';
import { MAP_HEIGHT } from '@/components/map/types';
import { useSettings } from '@/lib/app-data';
import { useUser } from '@/lib/auth';
import { formatDateTime, formatMoney } from '@/lib/format';
import { checkoutFields, checkoutReturnUrls, postToGateway, TRIP_PAYMENT_PARAM, useCheckoutOutcome } from '@/lib/payments';
import { bearing } from '@/lib/polyline';
import type { Booking, LatLng } from '@/types/api';
import { useBookingCommand, useRebook, useTracking } from '../api/bookings';
import {
  autoCompleteAt,
  canCancel,
  canPayByWallet,
  canPayNow,
  canRate,
  canRebook,
  INCOMPLETE_BOOKING_REASON,
  isWaitingForDriver,
  PAYMENT_PENDING_CANCEL_DELAY_MS,
  paymentNotice,
  showsOtp,
} from '../lib/booking-status';
import { CancelDialog } from './cancel-dialog';
import { CancelledNotice } from './cancelled-notice';
import { DeliveryDetails } from './delivery-details';
import { DropAddress } from './drop-address';
import { NextStep } from './next-step';
import { PaymentDue } from './payment-due';
import { PaymentNeeded } from './payment-needed';
import { RatingPanel } from './rating-panel';
import { ReceiptButtons } from './receipt-buttons';
import { StatusChip } from './status-chip';
import { TripMap } from './trip-map';
import { TripProgress } from './trip-progress';
import { WaitingForDriver } from './waiting-for-driver';

/** The rider's live trip: status, what happens next and the rider's action
 * for it (wait or cancel for free, pay, rate or skip, try again), the driver,
 * the car on the map, the otp, chat. `sos` draws the SOS button (another
 * feature's, so the route hands it in) for the last tracked position. */
export function TripView({ booking, chat, sos }: { booking: Booking; chat?: ReactNode; sos?: (lastPosition: LatLng | null) => ReactNode }) {
  // Every text in the booking's own words: a parcel's page speaks of the parcel (issue #34).
  const { t, i18n } = useAppTexts(booking.appcat);
  const settings = useSettings();
  const navigate = useNavigate();
  const { data: user } = useUser();
  const role = user?.usertype ?? 'rider';
  const command = useBookingCommand(booking.id);
  const rebook = useRebook(booking.id);
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

  const tryAgain = () => {
    setError(null);
    rebook.mutate(undefined, {
      onSuccess: (id) => void navigate(`/bookings?trip=${encodeURIComponent(id)}`),
      onError: (failure) => setError(errorKey(failure)),
    });
  };

  const fare = booking.trip_cost || booking.estimate;
  const amountDue = formatMoney(booking.payableAmount || fare, settings);
  const car = hasDriver && tracked && latest ? { lat: latest.lat, lng: latest.lng, heading } : null;
  const cancellable = canCancel(booking, role, settings.AllowCriticalEditsAdmin);
  // Waiting for a driver, the free cancel sits with the clock; otherwise under the details.
  const waiting = isWaitingForDriver(booking);
  const isRider = role === 'rider';

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
        {isRider && <NextStep booking={booking} />}
        {sos?.(latest)}

        <Stack spacing={2} sx={{ my: 2, '&:empty': { display: 'none' } }}>
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
          {booking.status === 'CANCELLED' && (
            <CancelledNotice booking={booking} onRebook={canRebook(booking, role) ? tryAgain : undefined} busy={rebook.isPending} />
          )}
          {booking.status === 'PAYMENT_PENDING' && (
            <PaymentNeeded booking={booking} amountText={amountDue} onPay={isRider && user ? () => setPayOpen(true) : undefined} />
          )}
          {waiting && <WaitingForDriver booking={booking} onCancel={cancellable ? startCancel : undefined} busy={command.isPending} />}
          {canPayByWallet(booking, role) && (
            <PaymentDue
              booking={booking}
              amountText={amountDue}
              balanceText={formatMoney(user?.walletBalance ?? 0, settings)}
              busy={command.isPending}
              onWallet={() => run({ action: 'pay', payment_mode: 'wallet' })}
              onCard={payByCard}
            />
          )}
          {canRate(booking, role) && (
            <RatingPanel
              driverName={booking.driver_name ?? ''}
              appcat={booking.appcat}
              busy={command.isPending}
              error={null}
              closesAt={autoCompleteAt(booking)}
              onRate={(rating) => run({ action: 'rate', rating })}
              onSkip={() => run({ action: 'rate', skip: true })}
            />
          )}
          {booking.status === 'COMPLETE' && (
            <Alert severity="success" data-testid="trip-complete" data-rated={booking.rating !== null}>
              {isRider
                ? booking.rating !== null
                  ? t('trip.rating_sent')
                  : t('trip.closed')
                : t('trip.complete_rated', { rating: booking.rating ?? '-' })}
            </Alert>
          )}
          {isRider && <ReceiptButtons booking={booking} />}
          {error && (
            <Alert severity="error" onClose={() => setError(null)} data-testid="trip-error">
              {t(error)}
            </Alert>
          )}
        </Stack>

        <Grid container spacing={3}>
          <Grid size={{ xs: 12, md: 7 }}>
            <TripMap booking={booking} car={car} height={{ xs: 300, md: MAP_HEIGHT }} />
          </Grid>
          <Grid size={{ xs: 12, md: 5 }}>
            <Stack spacing={2}>
              <Stack spacing={1}>
                <Stack direction="row" spacing={1} alignItems="flex-start">
                  <TripOriginIcon color="success" fontSize="small" sx={{ mt: 0.3 }} />
                  <Typography data-testid="pickup-address">{booking.pickupAddress}</Typography>
                </Stack>
                <Stack direction="row" spacing={1} alignItems="flex-start">
                  <PlaceIcon color="error" fontSize="small" sx={{ mt: 0.3 }} />
                  <DropAddress booking={booking} />
                </Stack>
              </Stack>

              {hasDriver && (
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

              {cancellable && !waiting && (
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
        free={waiting}
        onClose={() => setCancelOpen(false)}
        onConfirm={(reason) => run({ action: 'cancel', reason }, () => setCancelOpen(false))}
      />
      {user && (
        <PaymentProviderDialog
          open={payOpen}
          amountText={amountDue}
          onClose={() => setTimeout(() => setPayOpen(false), PAYMENT_PENDING_CANCEL_DELAY_MS)}
          onChoose={(provider) =>
            postToGateway(provider.link, checkoutFields(booking, user, settings, checkoutReturnUrls('/bookings', TRIP_PAYMENT_PARAM, { trip: booking.id })))
          }
        />
      )}
    </Card>
  );
}
