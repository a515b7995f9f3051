import { Alert, AlertTitle, Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { formatTimeOfDay } from '@/lib/format';
import type { Booking } from '@/types/api';
import { autoCancelAt } from '../lib/booking-status';

/** A prepaid booking not paid yet (PAYMENT_PENDING): no driver sees it until
 * it is paid, and it is cancelled when its payment does not come in time. */
export function PaymentNeeded({ booking, amountText, onPay }: { booking: Booking; amountText: string; onPay?: () => void }) {
  const { t } = useTranslation();
  const cancelAt = autoCancelAt(booking);
  return (
    <Alert severity="warning" data-testid="payment-needed" sx={{ '& .MuiAlert-message': { width: '100%' } }}>
      <AlertTitle sx={{ fontWeight: 800 }}>{t('trip.payment_needed.title')}</AlertTitle>
      <Stack spacing={1}>
        <Typography>{t('trip.payment_needed.body')}</Typography>
        {cancelAt && (
          <Typography data-testid="payment-deadline" data-at={cancelAt}>
            {t('trip.payment_needed.deadline', { time: formatTimeOfDay(cancelAt) })}
          </Typography>
        )}
        {onPay && (
          <Button variant="contained" onClick={onPay} data-testid="pay-booking" sx={{ alignSelf: 'flex-start' }}>
            {t('trip.pay_amount', { amount: amountText })}
          </Button>
        )}
      </Stack>
    </Alert>
  );
}
