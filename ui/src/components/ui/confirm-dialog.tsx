// The panel's one confirm dialog: `await confirm({...})` anywhere, one host
// drawing it (mounted by the shells), so every "are you sure" looks and
// behaves the same and tests find it by one test id.
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { atom, useAtomValue } from 'jotai';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { appStore } from '@/lib/store';

export interface ConfirmRequest {
  /** Translation key or text of the title. */
  title: string;
  /** What will happen, already translated (it often names the thing). */
  message: ReactNode;
  /** Translation key of the confirm button; `common.yes` by default. */
  confirmLabel?: string;
  /** A destructive action draws its button in the error colour. */
  destructive?: boolean;
}

interface PendingConfirm extends ConfirmRequest {
  resolve: (confirmed: boolean) => void;
}

const pendingConfirmAtom = atom<PendingConfirm | null>(null);

/** Asks, and resolves true when the user confirms, false when they cancel or close. */
export function confirm(request: ConfirmRequest): Promise<boolean> {
  // A second question while one is open answers the first with "no".
  appStore.get(pendingConfirmAtom)?.resolve(false);
  return new Promise((resolve) => {
    appStore.set(pendingConfirmAtom, {
      ...request,
      resolve: (confirmed) => {
        appStore.set(pendingConfirmAtom, null);
        resolve(confirmed);
      },
    });
  });
}

export function ConfirmHost() {
  const { t } = useTranslation();
  const pending = useAtomValue(pendingConfirmAtom, { store: appStore });
  const answer = (confirmed: boolean) => pending?.resolve(confirmed);
  return (
    <Dialog open={Boolean(pending)} onClose={() => answer(false)} maxWidth="xs" fullWidth data-testid="confirm-dialog">
      {pending && (
        <>
          <DialogTitle>{t(pending.title)}</DialogTitle>
          <DialogContent>
            <DialogContentText component="div" sx={{ color: 'text.primary' }} data-testid="confirm-message">
              {pending.message}
            </DialogContentText>
          </DialogContent>
          <DialogActions>
            <Button onClick={() => answer(false)} data-testid="confirm-cancel">
              {t('common.cancel')}
            </Button>
            <Button
              variant="contained"
              color={pending.destructive ? 'error' : 'primary'}
              onClick={() => answer(true)}
              data-testid="confirm-ok"
              autoFocus
            >
              {t(pending.confirmLabel ?? 'common.yes')}
            </Button>
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}
