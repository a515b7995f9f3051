import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The spec's alert dialogs: a message and an OK, or a question with cancel / yes. */
export function AlertDialog({
  open,
  title,
  message,
  onClose,
  onConfirm,
  confirmLabel,
  children,
}: {
  open: boolean;
  title?: string;
  message: ReactNode;
  onClose: () => void;
  onConfirm?: () => void;
  confirmLabel?: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth data-testid="alert-dialog">
      {title && <DialogTitle>{title}</DialogTitle>}
      <DialogContent>
        <DialogContentText component="div" data-testid="alert-message" sx={{ color: 'text.primary' }}>
          {message}
        </DialogContentText>
        {children}
      </DialogContent>
      <DialogActions>
        {onConfirm ? (
          <>
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button variant="contained" onClick={onConfirm} data-testid="alert-confirm">
              {confirmLabel ?? t('common.yes')}
            </Button>
          </>
        ) : (
          <Button variant="contained" onClick={onClose} data-testid="alert-ok">
            {t('common.ok')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
