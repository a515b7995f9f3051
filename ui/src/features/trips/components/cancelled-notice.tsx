import { Alert, Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { reasonText } from '@/lib/booking-reason';
import { formatMoney } from '@/lib/format';
import type { Booking } from '@/types/api';

/** Why a booking was cancelled: the system's reasons in their own words (no
 * driver: not charged, and the same trip once more), a person's as written. */
export function CancelledNotice({ booking, onRebook, busy = false }: { booking: Booking; onRebook?: () => void; busy?: boolean }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const fee = (booking.cancellationFee ?? 0) > 0 ? ` ${t('trip.cancellation_fee', { amount: formatMoney(booking.cancellationFee, settings) })}` : '';
  if (booking.reason === 'no_driver_available') {
    return (
      <Alert severity="warning" data-testid="trip-cancelled" data-reason={booking.reason} sx={{ '& .MuiAlert-message': { width: '100%' } }}>
        <Stack spacing={1.5}>
          <Typography fontWeight={700}>{t('trip.no_driver')}</Typography>
          {onRebook && (
            <Button variant="contained" onClick={onRebook} disabled={busy} data-testid="rebook" sx={{ alignSelf: 'flex-start' }}>
              {t('trip.try_again')}
            </Button>
          )}
        </Stack>
      </Alert>
    );
  }
  const text =
    booking.reason === 'payment_not_received'
      ? t('trip.payment_not_received')
      : booking.reason
        ? t('trip.cancelled', { reason: reasonText(booking.reason, t) })
        : t('trip.cancelled_plain');
  return (
    <Alert severity="error" data-testid="trip-cancelled" data-reason={booking.reason}>
      {text}
      {fee}
    </Alert>
  );
}
