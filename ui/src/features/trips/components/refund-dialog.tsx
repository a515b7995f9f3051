import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import type { Booking } from '@/types/api';
import { refundable, refundProblem } from '../lib/booking-admin';

export interface RefundChoice {
  amount: number;
  reason: string;
  idempotencyKey: string;
}

/** An amount (at most what the rider paid less earlier refunds) and a reason
 * for a refund to the rider's wallet. The idempotency key is made once, when
 * the dialog opens: sending again from the same dialog refunds once. */
export function RefundDialog({
  booking,
  busy,
  onClose,
  onSubmit,
}: {
  booking: Booking;
  busy: boolean;
  onClose: () => void;
  onSubmit: (choice: RefundChoice) => void;
}) {
  const { t } = useTranslation();
  const settings = useSettings();
  const [idempotencyKey] = useState(newIdempotencyKey);
  const left = refundable(booking);
  const [amount, setAmount] = useState(String(left));
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const found = refundProblem(amount, reason, booking);
    setProblem(found);
    if (found) return;
    onSubmit({ amount: Number(amount.trim().replace(',', '.')), reason: reason.trim(), idempotencyKey });
  };
  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="xs" data-testid="refund-dialog">
      <DialogTitle>{t('booking_page.refund_title', { reference: booking.reference })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            {t('booking_page.refund_help', { name: booking.customer_name, amount: formatMoney(left, settings) })}
          </Typography>
          <TextField
            label={t('wallet.amount')}
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            inputMode="decimal"
            error={problem === 'booking_page.refund_amount_invalid' || problem === 'booking_page.refund_amount_over'}
            slotProps={{ htmlInput: { 'data-testid': 'refund-amount', dir: 'ltr' } }}
          />
          <TextField
            label={t('booking_page.refund_reason')}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            multiline
            minRows={2}
            error={problem === 'booking_page.refund_reason_missing'}
            helperText={problem ? t(problem, { amount: formatMoney(left, settings) }) : ' '}
            slotProps={{ htmlInput: { 'data-testid': 'refund-reason', maxLength: 500 } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={busy} data-testid="refund-submit">
          {t('booking_page.refund')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
