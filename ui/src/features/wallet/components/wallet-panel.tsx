import AccountBalanceWalletIcon from '@mui/icons-material/AccountBalanceWallet';
import { Alert, Box, Button, Card, CardContent, Chip, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { useUser } from '@/lib/auth';
import { formatDateTime, formatMoney } from '@/lib/format';
import { TOP_UP_PARAM, useCheckoutOutcome } from '@/lib/payments';
import type { WalletEntry } from '@/types/api';
import { useWallet, useWithdraws } from '../api/wallet';
import { TopUpDialog } from './top-up-dialog';
import { WithdrawDialog } from './withdraw-dialog';

/** "CashCollected:PWNXZR" reads "Cash collected · PWNXZR": the kind translated,
 * the booking reference kept. A withdraw's txRef is its request id: it reads
 * "Withdrawal". */
export function transactionLabel(entry: Pick<WalletEntry, 'type' | 'txRef'>, t: (key: string, options?: Record<string, unknown>) => string) {
  if (entry.type === 'Withdraw') return t('wallet.tx.Withdraw');
  const [kind, ...rest] = entry.txRef.split(':');
  const label = t(`wallet.tx.${kind}`, { defaultValue: kind });
  return rest.length > 0 ? `${label} · ${rest.join(':')}` : label;
}

/** The wallet: balance, adding money through a payment provider, history
 * newest first, and withdraw requests. */
export function WalletPanel({ userId, canWithdraw }: { userId: string; canWithdraw: boolean }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const { data: user } = useUser();
  const wallet = useWallet(userId);
  const withdraws = useWithdraws(userId, canWithdraw);
  const topUp = useCheckoutOutcome(TOP_UP_PARAM);
  const [dialog, setDialog] = useState<'top-up' | 'withdraw' | null>(null);
  const [sent, setSent] = useState(false);
  const balance = wallet.data?.walletBalance ?? 0;
  const history = wallet.data?.walletHistory ?? [];
  const requests = withdraws.data?.items ?? [];

  return (
    <Card variant="outlined" data-testid="wallet-panel">
      <CardContent>
        <Stack direction="row" alignItems="center" spacing={1} sx={{ mb: 1 }} flexWrap="wrap" useFlexGap>
          <AccountBalanceWalletIcon color="primary" />
          <Typography variant="h6" sx={{ flexGrow: 1 }}>
            {t('wallet.title')}
          </Typography>
          {user && (
            <Button size="small" variant="contained" onClick={() => setDialog('top-up')} data-testid="topup-open">
              {t('wallet.topup')}
            </Button>
          )}
          {canWithdraw && (
            <Button size="small" variant="outlined" onClick={() => setDialog('withdraw')} disabled={balance <= 0} data-testid="withdraw-open">
              {t('wallet.withdraw')}
            </Button>
          )}
        </Stack>
        <Typography variant="h4" fontWeight={800} data-testid="wallet-balance">
          {formatMoney(balance, settings)}
        </Typography>
        {topUp.outcome && (
          <Alert
            severity={topUp.outcome === 'paid' ? 'success' : 'warning'}
            sx={{ mt: 1 }}
            onClose={topUp.dismiss}
            data-testid="topup-outcome"
            data-outcome={topUp.outcome}
          >
            {t(topUp.outcome === 'paid' ? 'wallet.topup_paid' : 'wallet.topup_cancelled')}
          </Alert>
        )}
        {sent && (
          <Alert severity="success" sx={{ mt: 1 }} onClose={() => setSent(false)} data-testid="withdraw-sent">
            {t('wallet.withdraw_sent')}
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
              <ListItem key={`${entry.date}-${index}`} disableGutters data-testid="wallet-entry" data-type={entry.type}>
                {/* An admin's reason (a refund, a debit, an adjustment) is the holder's to read. */}
                <ListItemText
                  primary={transactionLabel(entry, t)}
                  secondary={entry.description ? `${formatDateTime(entry.date)} · ${entry.description}` : formatDateTime(entry.date)}
                />
                <Box sx={{ color: entry.type === 'Credit' ? 'success.main' : 'error.main', fontWeight: 700 }} dir="ltr">
                  {entry.type === 'Credit' ? '+' : '−'}
                  {formatMoney(entry.amount, settings)}
                </Box>
              </ListItem>
            ))}
          </List>
        )}
        {canWithdraw && (
          <>
            <Typography variant="subtitle2" sx={{ mt: 2 }}>
              {t('wallet.withdraws')}
            </Typography>
            {requests.length === 0 ? (
              <Typography color="text.secondary" variant="body2" sx={{ py: 1 }} data-testid="withdraws-empty">
                {withdraws.isPending ? t('common.loading') : t('wallet.no_withdraws')}
              </Typography>
            ) : (
              <List dense sx={{ maxHeight: 200, overflowY: 'auto' }} data-testid="withdraw-list">
                {requests.map((request) => (
                  <ListItem key={request.id} disableGutters data-testid="withdraw-row" data-processed={request.processed ? 'true' : 'false'}>
                    <ListItemText primary={formatMoney(request.amount, settings)} secondary={formatDateTime(request.date)} />
                    <Chip
                      size="small"
                      color={request.processed ? 'success' : 'default'}
                      label={request.processed ? t('wallet.withdraw_processed', { date: formatDateTime(request.procesDate) }) : t('wallet.withdraw_pending')}
                    />
                  </ListItem>
                ))}
              </List>
            )}
          </>
        )}
      </CardContent>
      {user && <TopUpDialog user={user} open={dialog === 'top-up'} onClose={() => setDialog(null)} />}
      {canWithdraw && (
        <WithdrawDialog
          userId={userId}
          balance={balance}
          open={dialog === 'withdraw'}
          onClose={() => setDialog(null)}
          onSent={() => {
            setDialog(null);
            setSent(true);
          }}
        />
      )}
    </Card>
  );
}
