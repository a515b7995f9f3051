import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PaymentProviderDialog } from '@/components/payment/payment-provider-dialog';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import { checkoutReturnUrls, postToGateway, TOP_UP_PARAM, topUpFields } from '@/lib/payments';
import type { User } from '@/types/api';
import { parseWalletAmount } from '../lib/amount';

/** Spec §4 "Pay now" dialog close delay, kept for the provider chooser here too. */
const PROVIDER_DIALOG_CLOSE_DELAY_MS = 1500;

/** Adding money to the wallet: an amount, then a payment provider, whose
 * checkout (an order `wallet-…`, docs/api.md "Payments") brings the payer
 * back to `/bookings?topup=paid` or `…=cancelled`. */
export function TopUpDialog({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const [typed, setTyped] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [amount, setAmount] = useState<string | null>(null);

  const next = () => {
    const parsed = parseWalletAmount(typed, settings.decimal);
    setInvalid(parsed === null);
    if (parsed === null) return;
    setAmount(parsed);
    onClose();
  };

  return (
    <>
      <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth data-testid="topup-dialog">
        <DialogTitle>{t('wallet.topup_title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{t('wallet.topup_help')}</DialogContentText>
          <TextField
            autoFocus
            fullWidth
            sx={{ mt: 2 }}
            label={t('wallet.amount')}
            value={typed}
            onChange={(event) => {
              setTyped(event.target.value);
              setInvalid(false);
            }}
            onKeyDown={(event) => event.key === 'Enter' && next()}
            error={invalid}
            helperText={invalid ? t('invalid_amount') : ' '}
            slotProps={{
              htmlInput: { inputMode: 'decimal', dir: 'ltr', 'data-testid': 'topup-amount' },
              formHelperText: { 'data-testid': 'topup-amount-help' } as object,
            }}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button variant="contained" onClick={next} data-testid="topup-continue">
            {t('wallet.topup_continue')}
          </Button>
        </DialogActions>
      </Dialog>
      <PaymentProviderDialog
        open={amount !== null}
        amountText={formatMoney(Number(amount ?? 0), settings)}
        onClose={() => setTimeout(() => setAmount(null), PROVIDER_DIALOG_CLOSE_DELAY_MS)}
        onChoose={(provider) =>
          amount !== null &&
          postToGateway(
            provider.link,
            topUpFields(amount, t('wallet.topup_product', { app: settings.appName }), user, settings, checkoutReturnUrls('/bookings', TOP_UP_PARAM)),
          )
        }
      />
    </>
  );
}
