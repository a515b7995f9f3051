// Add to wallet (spec §2 "/addtowallet", §5 "Wallet and withdraw"): an admin
// picks a rider or driver and credits an amount above 0; issue #37 adds a
// debit of an amount and an adjustment to a balance, each with a reason.
// One idempotency key per move, kept until it succeeds, so a retry after a
// lost answer never moves the money twice.
import AddIcon from '@mui/icons-material/Add';
import RemoveIcon from '@mui/icons-material/Remove';
import TuneIcon from '@mui/icons-material/Tune';
import { Alert, Button, Card, CardContent, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography, useTheme } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UserPicker, userName } from '@/components/panel/user-picker';
import { confirm } from '@/components/ui/confirm-dialog';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatMoney, isolateLtr } from '@/lib/format';
import { newIdempotencyKey } from '@/lib/idempotency';
import type { User } from '@/types/api';
import { useMoveWallet, useWalletBalance, type WalletMove } from '../api/money';
import { walletMoveProblem, type WalletMoveKind } from '../lib/money-columns';

const KINDS: { kind: WalletMoveKind; icon: React.ReactElement }[] = [
  { kind: 'credit', icon: <AddIcon fontSize="small" /> },
  { kind: 'debit', icon: <RemoveIcon fontSize="small" /> },
  { kind: 'adjust', icon: <TuneIcon fontSize="small" /> },
];

const HELP: Record<WalletMoveKind, string> = {
  credit: 'panel.money.add_help',
  debit: 'panel.money.debit_help',
  adjust: 'panel.money.adjust_help',
};

const DONE: Record<WalletMoveKind, string> = {
  credit: 'panel.money.credited',
  debit: 'panel.money.debited',
  adjust: 'panel.money.adjusted',
};

export function AddToWallet() {
  const { t } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const move = useMoveWallet();
  const [kind, setKind] = useState<WalletMoveKind>('credit');
  const [user, setUser] = useState<User | null>(null);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [key, setKey] = useState(newIdempotencyKey);
  const [done, setDone] = useState<{ message: string; name: string; balance: number } | null>(null);
  const current = useWalletBalance(user?.id ?? null);
  const balance = current.data ?? user?.walletBalance ?? 0;
  const direction = useTheme().direction;
  const money = (value: number) => isolateLtr(formatMoney(value, settings), direction);
  const typed = Number(amount.trim().replace(',', '.'));

  const clearOutcome = () => {
    setDone(null);
    setProblem(null);
    move.reset();
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const found = walletMoveProblem(kind, user?.id ?? null, amount, reason);
    setProblem(found);
    setDone(null);
    if (found || !user) return;
    const name = userName(user);
    const request: WalletMove =
      kind === 'credit'
        ? { kind, user: user.id, amount: typed, key }
        : kind === 'debit'
          ? { kind, user: user.id, amount: typed, reason: reason.trim(), key }
          : { kind, user: user.id, balance: typed, reason: reason.trim(), key };
    // Money taken out, or a balance set by hand: asked once more.
    if (kind !== 'credit') {
      const yes = await confirm({
        title: kind === 'debit' ? 'panel.money.debit_title' : 'panel.money.adjust_title',
        message: t(kind === 'debit' ? 'panel.money.debit_message' : 'panel.money.adjust_message', { name, amount: money(typed), from: money(balance) }),
        confirmLabel: kind === 'debit' ? 'panel.money.debit' : 'panel.money.adjust',
        destructive: kind === 'debit',
      });
      if (!yes) return;
    }
    move.mutate(request, {
      onSuccess: (answer) => {
        setDone({ message: answer.applied ? DONE[kind] : 'panel.money.already_done', name, balance: answer.walletBalance });
        setUser({ ...user, walletBalance: answer.walletBalance });
        setAmount('');
        setReason('');
        setKey(newIdempotencyKey());
      },
    });
  };

  const reasonProblem = problem === 'panel.money.reason_missing';
  return (
    <Card variant="outlined" sx={{ maxWidth: 560 }}>
      <CardContent component="form" onSubmit={(event) => void submit(event)} noValidate data-testid="add-to-wallet" data-kind={kind}>
        <Stack spacing={2}>
          <Typography color="text.secondary">{t(HELP[kind])}</Typography>
          {!criticalEdits && <Alert severity="info">{t('demo_mode')}</Alert>}
          <ToggleButtonGroup
            exclusive
            fullWidth
            size="small"
            color="primary"
            value={kind}
            onChange={(_, next: WalletMoveKind | null) => {
              if (!next) return;
              setKind(next);
              clearOutcome();
            }}
            aria-label={t('panel.money.what')}
          >
            {KINDS.map((option) => (
              <ToggleButton key={option.kind} value={option.kind} data-testid={`wallet-kind-${option.kind}`} sx={{ gap: 0.75 }}>
                {option.icon}
                {t(`panel.money.${option.kind}`)}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
          <UserPicker
            label="panel.money.user"
            roles={['rider', 'driver']}
            value={user}
            onChange={(next) => {
              setUser(next);
              clearOutcome();
            }}
            testId="wallet-user"
          />
          {user && (
            <Typography variant="body2" data-testid="wallet-current-balance" data-balance={balance}>
              {t('panel.money.current_balance', { amount: money(balance) })}
            </Typography>
          )}
          <TextField
            label={t(kind === 'adjust' ? 'panel.money.new_balance' : 'wallet.amount')}
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            inputMode="decimal"
            slotProps={{ htmlInput: { 'data-testid': 'wallet-amount', dir: 'ltr' } }}
            error={problem !== null && !reasonProblem}
            helperText={
              problem && !reasonProblem
                ? t(problem)
                : kind === 'adjust' && user && amount.trim() !== '' && Number.isFinite(typed)
                  ? t(typed >= balance ? 'panel.money.adjust_up' : 'panel.money.adjust_down', { amount: money(Math.abs(typed - balance)) })
                  : ' '
            }
          />
          {kind !== 'credit' && (
            <TextField
              label={t('panel.money.reason')}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              multiline
              minRows={2}
              error={reasonProblem}
              helperText={reasonProblem ? t('panel.money.reason_missing') : t('panel.money.reason_help')}
              slotProps={{ htmlInput: { 'data-testid': 'wallet-reason', maxLength: 500 } }}
            />
          )}
          {move.isError && <ServerErrorAlert error={move.error} />}
          {done && (
            <Alert severity={done.message === 'panel.money.already_done' ? 'info' : 'success'} data-testid="wallet-credited">
              {t(done.message, { name: done.name, amount: money(done.balance) })}
            </Alert>
          )}
          <Button
            type="submit"
            variant="contained"
            color={kind === 'debit' ? 'error' : 'primary'}
            disabled={!criticalEdits || move.isPending}
            data-testid="wallet-submit"
            sx={{ alignSelf: 'flex-start' }}
          >
            {t(kind === 'credit' ? 'panel.money.add' : `panel.money.${kind}`)}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}
