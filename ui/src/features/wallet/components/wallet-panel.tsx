import AccountBalanceWalletIcon from '@mui/icons-material/AccountBalanceWallet';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemText,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorKey } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useRequestWithdraw, useWallet } from '../api/wallet';

/** "CashCollected:PWNXZR" reads "Cash collected · PWNXZR": the kind translated, the booking reference kept. */
export function transactionLabel(txRef: string, t: (key: string, options?: Record<string, unknown>) => string) {
  const [kind, ...rest] = txRef.split(':');
  const label = t(`wallet.tx.${kind}`, { defaultValue: kind });
  return rest.length > 0 ? `${label} · ${rest.join(':')}` : label;
}

/** The wallet's balance and history, newest first, and a withdraw request. */
export function WalletPanel({ userId, canWithdraw }: { userId: string; canWithdraw: boolean }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const wallet = useWallet(userId);
  const withdraw = useRequestWithdraw(userId);
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('');
  const [message, setMessage] = useState<{ severity: 'success' | 'error'; key: string } | null>(null);
  const balance = wallet.data?.walletBalance ?? 0;
  const history = wallet.data?.walletHistory ?? [];

  const submit = () => {
    const value = Number(amount);
    if (!Number.isFinite(value) || value <= 0 || value > balance) {
      setMessage({ severity: 'error', key: 'invalid_amount' });
      return;
    }
    withdraw.mutate(value, {
      onSuccess: () => {
        setOpen(false);
        setAmount('');
        setMessage({ severity: 'success', key: 'wallet.withdraw_sent' });
      },
      onError: (error) => {
        const key = errorKey(error);
        setMessage({ severity: 'error', key: key === 'not_found' ? 'wallet.withdraw_unavailable' : key });
        setOpen(false);
      },
    });
  };

  return (
    <Card variant="outlined" data-testid="wallet-panel">
      <CardContent>
        <Stack direction="row" alignItems="center" spacing={1.5} sx={{ mb: 1 }}>
          <AccountBalanceWalletIcon color="primary" />
          <Typography variant="h6" sx={{ flexGrow: 1 }}>
            {t('wallet.title')}
          </Typography>
          {canWithdraw && (
            <Button size="small" variant="outlined" onClick={() => setOpen(true)} disabled={balance <= 0} data-testid="withdraw-open">
              {t('wallet.withdraw')}
            </Button>
          )}
        </Stack>
        <Typography variant="h4" fontWeight={800} data-testid="wallet-balance">
          {formatMoney(balance, settings)}
        </Typography>
        {message && (
          <Alert severity={message.severity} sx={{ mt: 1 }} onClose={() => setMessage(null)}>
            {t(message.key)}
          </Alert>
        )}
        <Typography variant="subtitle2" sx={{ mt: 2 }}>
          {t('wallet.history')}
        </Typography>
        {history.length === 0 ? (
          <Typography color="text.secondary" variant="body2" sx={{ py: 1 }}>
            {wallet.isPending ? t('common.loading') : t('wallet.no_history')}
          </Typography>
        ) : (
          <List dense sx={{ maxHeight: 260, overflowY: 'auto' }} data-testid="wallet-history">
            {history.map((entry, index) => (
              <ListItem key={`${entry.date}-${index}`} disableGutters>
                <ListItemText primary={transactionLabel(entry.txRef, t)} secondary={formatDateTime(entry.date)} />
                <Box sx={{ color: entry.type === 'Credit' ? 'success.main' : 'error.main', fontWeight: 700 }}>
                  {entry.type === 'Credit' ? '+' : '−'}
                  {formatMoney(entry.amount, settings)}
                </Box>
              </ListItem>
            ))}
          </List>
        )}
      </CardContent>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="xs" fullWidth>
        <DialogTitle>{t('wallet.withdraw_title')}</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            sx={{ mt: 1 }}
            type="number"
            label={t('wallet.amount')}
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            helperText={t('wallet.available', { amount: formatMoney(balance, settings) })}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{t('common.cancel')}</Button>
          <Button variant="contained" onClick={submit} disabled={withdraw.isPending}>
            {t('wallet.withdraw_submit')}
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
}
