import { Alert, AlertTitle, Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Booking } from '@/types/api';

/** The trip is over and not paid: at REACHED the rider picks wallet, card or
 * cash; at PENDING (card chosen, not paid yet) a reminder with the Pay button
 * first. */
export function PaymentDue({
  booking,
  amountText,
  balanceText,
  busy,
  onWallet,
  onCard,
}: {
  booking: Booking;
  amountText: string;
  balanceText: string;
  busy: boolean;
  onWallet: () => void;
  onCard: () => void;
}) {
  const { t } = useTranslation();
  const wallet = (
    <Button variant={booking.status === 'PENDING' ? 'outlined' : 'contained'} disabled={busy} onClick={onWallet} data-testid="pay-wallet">
      {t('trip.pay_wallet', { balance: balanceText })}
    </Button>
  );
  if (booking.status === 'PENDING') {
    return (
      <Alert severity="warning" data-testid="payment-due" data-status="PENDING" sx={{ '& .MuiAlert-message': { width: '100%' } }}>
        <AlertTitle sx={{ fontWeight: 800 }} data-testid="payment-due-title">
          {t('trip.payment_due_reminder', { amount: amountText })}
        </AlertTitle>
        <Stack spacing={1}>
          <Typography>{t('trip.payment_due_body')}</Typography>
          <Stack direction="row" spacing={1} flexWrap="wrap" useFlexGap>
            <Button variant="contained" disabled={busy} onClick={onCard} data-testid="pay-now">
              {t('trip.pay')}
            </Button>
            {wallet}
          </Stack>
        </Stack>
      </Alert>
    );
  }
  return (
    <Alert severity="warning" icon={false} data-testid="payment-due" data-status={booking.status}>
      <Stack spacing={1}>
        <Typography>{t('trip.payment_due', { amount: amountText })}</Typography>
        <Stack direction="row" spacing={1} flexWrap="wrap" useFlexGap>
          {wallet}
          <Button variant="outlined" disabled={busy} onClick={onCard} data-testid="pay-now">
            {t('trip.pay_now')}
          </Button>
        </Stack>
        <Typography variant="caption">{t('trip.or_cash')}</Typography>
      </Stack>
    </Alert>
  );
}
