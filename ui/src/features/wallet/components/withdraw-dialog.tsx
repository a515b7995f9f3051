import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorKey } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import { useRequestWithdraw } from '../api/wallet';
import { parseWalletAmount } from '../lib/amount';

/** A withdraw request (spec §3, docs/api.md "Withdraw requests"): the amount
 * is checked here as the server would; whether the balance covers it is the
 * server's to say (`insufficient_wallet_balance`, unless negative balances
 * are allowed). */
export function WithdrawDialog({
  userId,
  balance,
  open,
  onClose,
  onSent,
}: {
  userId: string;
  balance: number;
  open: boolean;
  onClose: () => void;
  onSent: () => void;
}) {
  const { t } = useTranslation();
  const settings = useSettings();
  const withdraw = useRequestWithdraw(userId);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setError(null);
    onClose();
  };

  const submit = () => {
    const amount = parseWalletAmount(typed, settings.decimal);
    if (amount === null) {
      setError('invalid_amount');
      return;
    }
    setError(null);
    withdraw.mutate(Number(amount), {
      onSuccess: () => {
        setTyped('');
        onSent();
      },
      onError: (failure) => {
        const key = errorKey(failure);
        setError(key === 'not_found' ? 'wallet.withdraw_unavailable' : key);
      },
    });
  };

  return (
    <Dialog open={open} onClose={close} maxWidth="xs" fullWidth data-testid="withdraw-dialog">
      <DialogTitle>{t('wallet.withdraw_title')}</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          fullWidth
          sx={{ mt: 1 }}
          label={t('wallet.amount')}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => event.key === 'Enter' && submit()}
          helperText={t('wallet.available', { amount: formatMoney(balance, settings) })}
          slotProps={{ htmlInput: { inputMode: 'decimal', dir: 'ltr', 'data-testid': 'withdraw-amount' } }}
        />
        {error && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="withdraw-error">
            {t(error)}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={withdraw.isPending} data-testid="withdraw-submit">
          {t('wallet.withdraw_submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
