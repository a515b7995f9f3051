import {
  Alert,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Radio,
  RadioGroup,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCancelReasons } from '../api/bookings';

/** Spec §4: NEW or ACCEPTED opens a reason dialog, then cancels with the
 * reason. `free`: no driver has taken the booking, so cancelling costs nothing. */
export function CancelDialog({
  open,
  busy,
  error,
  free = false,
  onClose,
  onConfirm,
}: {
  open: boolean;
  busy: boolean;
  error: string | null;
  free?: boolean;
  onClose: () => void;
  onConfirm: (reason: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const reasons = useCancelReasons(open);
  const [chosen, setChosen] = useState<string>('');
  const options = reasons.data ?? [];
  const confirm = () => {
    const option = options.find((reason) => reason.value === chosen);
    if (!option) return;
    // Built-in reasons are stored in English, as an admin's list would be.
    onConfirm(option.builtIn ? i18n.t(option.label, { lng: 'en' }) : option.value);
  };
  return (
    <Dialog open={open} onClose={busy ? undefined : onClose} fullWidth maxWidth="xs" data-testid="cancel-dialog">
      <DialogTitle>{t('cancel.title')}</DialogTitle>
      <DialogContent>
        {free && (
          <Alert severity="info" sx={{ mb: 1 }} data-testid="cancel-free-note">
            {t('cancel.free_note')}
          </Alert>
        )}
        {reasons.isPending && <CircularProgress size={24} />}
        {reasons.isError && <Alert severity="error">{t('no_cancel_reason')}</Alert>}
        <RadioGroup value={chosen} onChange={(event) => setChosen(event.target.value)}>
          {options.map((reason) => (
            <FormControlLabel
              key={reason.value}
              value={reason.value}
              control={<Radio />}
              label={reason.builtIn ? t(reason.label) : reason.label}
            />
          ))}
        </RadioGroup>
        {error && <Alert severity="error">{t(error)}</Alert>}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {t('cancel.keep')}
        </Button>
        <Button color="error" variant="contained" disabled={!chosen || busy} onClick={confirm} data-testid="cancel-confirm">
          {t('cancel.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
