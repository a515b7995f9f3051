// Push notifications (spec §2 "/notifications", §7 sendNotification,
// editNotifications): what was sent, newest first, and sending to a user
// type on a platform; nobody matching is `no_user_match`. Deleting stays
// open in demo mode, as the server allows.
import DeleteIcon from '@mui/icons-material/Delete';
import SendIcon from '@mui/icons-material/Send';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, useMediaQuery, useTheme } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatDateTime } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import { fetchNotificationsPage, NOTIFICATIONS, useDeleteNotification, useSendNotification } from '../api/catalogue';
import type { SentNotification } from '@/types/api';

const USER_TYPES = ['All', 'rider', 'driver'] as const;
const DEVICES = ['All', 'ANDROID', 'IOS'] as const;

function SendDialog({ onClose }: { onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const send = useSendNotification();
  const [usertype, setUsertype] = useState<(typeof USER_TYPES)[number]>('All');
  const [devicetype, setDevicetype] = useState<(typeof DEVICES)[number]>('All');
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    if (!title.trim() || !body.trim()) {
      setProblem(t('catalogue.notification_needs_text'));
      return;
    }
    setProblem(null);
    send.mutate(
      { usertype, devicetype, title: title.trim(), body: body.trim() },
      {
        onSuccess: (sent) => {
          notify({ severity: 'success', message: t('catalogue.notification_sent', { count: sent.recipients }), translated: true });
          onClose();
        },
        onError: (error) => setProblem(errorText(error, t, (key) => i18n.exists(key))),
      },
    );
  };
  const select = (label: string, value: string, options: readonly string[], onChange: (value: string) => void, testId: string) => (
    <TextField select fullWidth label={t(label)} value={value} onChange={(event) => onChange(event.target.value)} slotProps={{ select: { SelectDisplayProps: { 'data-testid': testId } as React.HTMLAttributes<HTMLDivElement> } }}>
      {options.map((option) => (
        <MenuItem key={option} value={option} data-testid={`${testId}-${option}`}>
          {t(`catalogue.target.${option}`)}
        </MenuItem>
      ))}
    </TextField>
  );
  return (
    <Dialog open onClose={send.isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={phone} data-testid="notification-dialog">
      <DialogTitle>{t('catalogue.send_notification')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {problem && <Alert severity="error" data-testid="notification-error">{problem}</Alert>}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {select('catalogue.user_type', usertype, USER_TYPES, (value) => setUsertype(value as typeof usertype), 'notification-usertype')}
            {select('catalogue.device_type', devicetype, DEVICES, (value) => setDevicetype(value as typeof devicetype), 'notification-devicetype')}
          </Stack>
          <TextField label={t('catalogue.title')} value={title} onChange={(event) => setTitle(event.target.value)} slotProps={{ htmlInput: { maxLength: 100, 'data-testid': 'notification-title' } }} />
          <TextField label={t('catalogue.body')} value={body} onChange={(event) => setBody(event.target.value)} multiline minRows={3} slotProps={{ htmlInput: { maxLength: 1000, 'data-testid': 'notification-body' } }} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={send.isPending}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" startIcon={<SendIcon />} onClick={submit} disabled={send.isPending} data-testid="notification-send">
          {t('catalogue.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function Notifications() {
  const { t, i18n } = useTranslation();
  const criticalEdits = useCriticalEditsAllowed();
  const remove = useDeleteNotification();
  const [sending, setSending] = useState(false);
  const columns = useMemo<GridColDef<SentNotification>[]>(
    () => [
      { field: 'title', headerName: t('catalogue.title'), minWidth: 160, flex: 1 },
      { field: 'body', headerName: t('catalogue.body'), minWidth: 220, flex: 2 },
      { field: 'usertype', headerName: t('catalogue.user_type'), minWidth: 120, valueFormatter: (value: string) => t(`catalogue.target.${value}`) },
      { field: 'devicetype', headerName: t('catalogue.device_type'), minWidth: 120, valueFormatter: (value: string) => t(`catalogue.target.${value}`) },
      { field: 'createdAt', headerName: t('catalogue.sent_at'), minWidth: 150, valueFormatter: (value: number) => formatDateTime(value) },
    ],
    [t],
  );
  return (
    <>
      <PanelTable<SentNotification>
        testId="notifications-grid"
        columns={columns}
        emptyText="panel.empty.notifications"
        search={false}
        source={{ mode: 'server', queryKey: NOTIFICATIONS, fetchPage: fetchNotificationsPage }}
        actions={(sent) => [
          {
            key: 'delete',
            label: 'users.delete',
            icon: <DeleteIcon />,
            onClick: async () => {
              const yes = await confirm({ title: 'catalogue.delete_notification', message: sent.title, confirmLabel: 'users.delete', destructive: true });
              if (yes) remove.mutate(sent.id, { onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }) });
            },
          },
        ]}
        toolbar={
          <Button variant="contained" startIcon={<SendIcon />} onClick={() => setSending(true)} disabled={!criticalEdits} data-testid="notification-new">
            {t('catalogue.send_notification')}
          </Button>
        }
      />
      {sending && <SendDialog onClose={() => setSending(false)} />}
    </>
  );
}
