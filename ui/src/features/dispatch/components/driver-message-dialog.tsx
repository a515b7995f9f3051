import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSendDriverMessage } from '../api/dispatch';
import { useConsoleTopic } from '../hooks/use-console-topic';
import type { ConsoleStore } from '../stores/console-store';

/** A driver clicked on the map or in a timeline: what the feed knows of
 * them, and an in-app message to send them. */
export function DriverMessageDialog({ store, driver, onClose }: { store: ConsoleStore; driver: string; onClose: () => void }) {
  const { t } = useTranslation();
  const send = useSendDriverMessage();
  const [message, setMessage] = useState('');
  useConsoleTopic(store, 'names');
  const track = store.tracks.get(driver);
  const submit = () => {
    const text = message.trim();
    if (!text) return;
    send.mutate(
      { driver, message: text },
      {
        onSuccess: () => {
          notify({ severity: 'success', message: 'dispatch.driver.sent' });
          onClose();
        },
      },
    );
  };
  return (
    <Dialog open onClose={send.isPending ? undefined : onClose} fullWidth maxWidth="xs" data-testid="driver-dialog">
      <DialogTitle>{t('dispatch.driver.title', { driver: store.directory.label(driver) })}</DialogTitle>
      <DialogContent>
        <Stack spacing={1.5} sx={{ pt: 0.5 }}>
          <Typography variant="body2" color="text.secondary" data-testid="driver-state">
            {track
              ? [t(`dispatch.state.${track.state}`), track.carType].filter(Boolean).join(' · ')
              : t('dispatch.driver.offline')}
          </Typography>
          <TextField
            label={t('dispatch.driver.message')}
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            multiline
            minRows={2}
            autoFocus
            slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'driver-message' } }}
          />
          {send.isError && <ServerErrorAlert error={send.error} />}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={send.isPending}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={!message.trim() || send.isPending} data-testid="driver-message-send">
          {t('dispatch.driver.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
