// Add to wallet (spec §2 "/addtowallet", §5 "Wallet and withdraw"): an admin
// picks a rider or driver and credits an amount above 0. One idempotency key
// per credit, kept until it succeeds, so a retry after a lost answer never
// pays twice.
import { Alert, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UserPicker, userName } from '@/components/panel/user-picker';
import { useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatMoney } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import { errorText } from '@/lib/server-errors';
import type { User } from '@/types/api';
import { useCreditWallet } from '../api/money';
import { creditProblem } from '../lib/money-columns';

export function AddToWallet() {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const credit = useCreditWallet();
  const [user, setUser] = useState<User | null>(null);
  const [amount, setAmount] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [key, setKey] = useState(newIdempotencyKey);
  const [done, setDone] = useState<{ name: string; balance: number } | null>(null);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const found = creditProblem(user?.id ?? null, amount);
    setProblem(found);
    setDone(null);
    if (found || !user) return;
    credit.mutate(
      { user: user.id, amount: Number(amount.trim().replace(',', '.')), key },
      {
        onSuccess: (answer) => {
          setDone({ name: userName(user), balance: answer.walletBalance });
          setAmount('');
          setKey(newIdempotencyKey());
        },
      },
    );
  };

  return (
    <Card variant="outlined" sx={{ maxWidth: 560 }}>
      <CardContent component="form" onSubmit={submit} noValidate data-testid="add-to-wallet">
        <Stack spacing={2}>
          <Typography color="text.secondary">{t('panel.money.add_help')}</Typography>
          {!criticalEdits && <Alert severity="info">{t('demo_mode')}</Alert>}
          <UserPicker label="panel.money.user" roles={['rider', 'driver']} value={user} onChange={(next) => { setUser(next); setDone(null); }} testId="wallet-user" />
          {user && (
            <Typography variant="body2" data-testid="wallet-current-balance">
              {t('panel.money.current_balance', { amount: formatMoney(user.walletBalance, settings) })}
            </Typography>
          )}
          <TextField
            label={t('wallet.amount')}
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            inputMode="decimal"
            slotProps={{ htmlInput: { 'data-testid': 'wallet-amount', dir: 'ltr' } }}
            error={problem !== null}
            helperText={problem ? t(problem) : ' '}
          />
          {credit.isError && <Alert severity="error" data-testid="wallet-credit-error">{errorText(credit.error, t, (name) => i18n.exists(name))}</Alert>}
          {done && (
            <Alert severity="success" data-testid="wallet-credited">
              {t('panel.money.credited', { name: done.name, amount: formatMoney(done.balance, settings) })}
            </Alert>
          )}
          <Button type="submit" variant="contained" disabled={!criticalEdits || credit.isPending} data-testid="wallet-submit" sx={{ alignSelf: 'flex-start' }}>
            {t('panel.money.add')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}
