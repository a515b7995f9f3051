// Issue #37: an admin gives a booking's money back, from its page or from
// the bookings grid (one dialog for both): to the card through the gateway
// that took it, or to the rider's wallet; the whole of what is left or a
// part; with a reason. The server's answer to `GET /refunds` says whether
// the gateway can take it and how much is left; its refusals show here.
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
  useTheme,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { confirm } from '@/components/ui/confirm-dialog';
import { Ltr } from '@/components/ui/detail-line';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { isApiError } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import { formatMoney, isolateLtr } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import type { Booking, RefundDestination } from '@/types/api';
import { useBookingRefunds, useRefundBooking } from '../api/booking-admin';
import { refundLimit, refundProblem } from '../lib/booking-admin';
import { RefundList } from './refund-list';

/** The server's "this gateway cannot refund" (`invalid_input` on `destination`). */
function gatewayRefused(error: unknown) {
  return isApiError(error) && error.code === 'invalid_input' && error.field === 'destination';
}

/** The idempotency key is made once, when the dialog opens: sending again
 * from the same dialog (after a lost answer, a declined gateway) refunds once. */
export function RefundDialog({ booking, onClose }: { booking: Booking; onClose: () => void }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const refunds = useBookingRefunds(booking.id);
  const refund = useRefundBooking();
  const [idempotencyKey] = useState(newIdempotencyKey);
  const [chosen, setChosen] = useState<RefundDestination | null>(null);
  const [whole, setWhole] = useState(true);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const gatewayAvailable = refunds.data?.gateway.available === true;
  // A card payment goes back to the card unless the admin says otherwise.
  const destination: RefundDestination = chosen ?? (gatewayAvailable ? 'gateway' : 'wallet');
  const limit = refundLimit(destination, booking, refunds.data);
  const busy = refund.isPending;
  const gatewayName = booking.gateway || '—';
  const direction = useTheme().direction;
  const money = (value: number) => isolateLtr(formatMoney(value, settings), direction);
  const earlier = refunds.data?.items ?? [];

  const choose = (next: RefundDestination) => {
    setChosen(next);
    setProblem(null);
    refund.reset();
  };

  const submit = async () => {
    const amountText = whole ? String(limit) : amount;
    const found = refundProblem(amountText, reason, limit);
    setProblem(found);
    if (found) return;
    const value = Number(amountText.trim().replace(',', '.'));
    const values = { amount: money(value), name: booking.customer_name, reference: booking.reference, gateway: gatewayName };
    const yes = await confirm({
      title: destination === 'gateway' ? 'booking_page.refund_confirm_gateway_title' : 'booking_page.refund_confirm_title',
      message: t(destination === 'gateway' ? 'booking_page.refund_confirm_gateway' : 'booking_page.refund_confirm_message', values),
      confirmLabel: 'booking_page.refund',
    });
    if (!yes) return;
    refund.mutate(
      { id: booking.id, amount: value, destination, reason: reason.trim(), idempotencyKey },
      {
        onSuccess: (answer) => {
          const done = destination === 'gateway' ? 'booking_page.refunded_gateway' : 'booking_page.refunded';
          notify(answer.applied ? { severity: 'success', message: done } : { severity: 'info', message: 'booking_page.refund_repeated' });
          onClose();
        },
      },
    );
  };

  const amountProblem = problem === 'booking_page.refund_amount_invalid' || problem === 'booking_page.refund_amount_over';
  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="sm" data-testid="refund-dialog" data-destination={destination}>
      <DialogTitle>{t('booking_page.refund_title', { reference: booking.reference })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary" data-testid="refund-left">
            {t('booking_page.refund_help', { name: booking.customer_name, amount: money(refundLimit('wallet', booking, refunds.data)) })}
          </Typography>
          <FormControl error={gatewayRefused(refund.error)} disabled={busy}>
            <FormLabel id="refund-destination-label">{t('booking_page.refund_destination')}</FormLabel>
            <RadioGroup aria-labelledby="refund-destination-label" value={destination} onChange={(event) => choose(event.target.value as RefundDestination)}>
              <FormControlLabel
                value="gateway"
                disabled={!gatewayAvailable}
                control={<Radio slotProps={{ input: { 'data-testid': 'refund-destination-gateway' } as object }} />}
                label={
                  <Box>
                    <Typography variant="body2">{t('booking_page.refund_to_gateway', { gateway: gatewayName })}</Typography>
                    <Typography variant="caption" color="text.secondary" data-testid="refund-gateway-note">
                      {gatewayAvailable
                        ? t('booking_page.refund_gateway_left', { amount: money(refunds.data?.gateway.refundable ?? 0) })
                        : t(refunds.isPending ? 'common.loading' : 'booking_page.refund_gateway_none')}
                    </Typography>
                  </Box>
                }
              />
              <FormControlLabel
                value="wallet"
                control={<Radio slotProps={{ input: { 'data-testid': 'refund-destination-wallet' } as object }} />}
                label={<Typography variant="body2">{t('booking_page.refund_to_wallet_of', { name: booking.customer_name })}</Typography>}
              />
            </RadioGroup>
            {gatewayRefused(refund.error) && <FormHelperText data-testid="refund-destination-error">{t('booking_page.refund_gateway_unsupported')}</FormHelperText>}
          </FormControl>
          <FormControl disabled={busy}>
            <FormLabel id="refund-amount-label">{t('wallet.amount')}</FormLabel>
            <RadioGroup aria-labelledby="refund-amount-label" value={whole ? 'whole' : 'part'} onChange={(event) => setWhole(event.target.value === 'whole')}>
              <FormControlLabel
                value="whole"
                control={<Radio slotProps={{ input: { 'data-testid': 'refund-whole' } as object }} />}
                label={
                  <Typography variant="body2">
                    {t('booking_page.refund_whole')} <Ltr>{money(limit)}</Ltr>
                  </Typography>
                }
              />
              <FormControlLabel value="part" control={<Radio slotProps={{ input: { 'data-testid': 'refund-part' } as object }} />} label={<Typography variant="body2">{t('booking_page.refund_part')}</Typography>} />
            </RadioGroup>
          </FormControl>
          {!whole && (
            <TextField
              label={t('booking_page.refund_part_amount')}
              value={amount}
              onChange={(event) => setAmount(event.target.value)}
              inputMode="decimal"
              autoFocus
              disabled={busy}
              error={amountProblem}
              helperText={amountProblem && problem ? t(problem, { amount: money(limit) }) : ' '}
              slotProps={{ htmlInput: { 'data-testid': 'refund-amount', dir: 'ltr' } }}
            />
          )}
          {whole && amountProblem && problem && (
            <Alert severity="warning" data-testid="refund-nothing-left">
              {t(problem, { amount: money(limit) })}
            </Alert>
          )}
          <TextField
            label={t('booking_page.refund_reason')}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            multiline
            minRows={2}
            disabled={busy}
            error={problem === 'booking_page.refund_reason_missing'}
            helperText={problem === 'booking_page.refund_reason_missing' ? t(problem) : ' '}
            slotProps={{ htmlInput: { 'data-testid': 'refund-reason', maxLength: 500 } }}
          />
          {refund.isError && !gatewayRefused(refund.error) && <ServerErrorAlert error={refund.error} />}
          {refunds.isError && <ServerErrorAlert error={refunds.error} onRetry={() => void refunds.refetch()} />}
          {earlier.length > 0 && (
            <Box>
              <Typography variant="subtitle2" component="h3">{t('booking_page.refunds')}</Typography>
              <RefundList items={earlier} gateway={booking.gateway} />
            </Box>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={() => void submit()} disabled={busy || refunds.isPending} data-testid="refund-submit">
          {t('booking_page.refund')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
