// A one-field dialog (a cancellation reason): the server's refusal on the field.
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export function TextDialog({
  title,
  label,
  initial,
  busy,
  error,
  onSave,
  onClose,
  testId,
}: {
  title: string;
  label: string;
  initial: string;
  busy: boolean;
  error: string | null;
  onSave: (text: string) => void;
  onClose: () => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(initial);
  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="xs" data-testid={testId}>
      <DialogTitle>{t(title)}</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          fullWidth
          margin="dense"
          label={t(label)}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => event.key === 'Enter' && onSave(text.trim())}
          error={Boolean(error)}
          helperText={error ?? ' '}
          slotProps={{ htmlInput: { maxLength: 200, 'data-testid': `${testId}-input` } }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy} data-testid={`${testId}-cancel`}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={() => onSave(text.trim())} disabled={busy} data-testid={`${testId}-save`}>
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
