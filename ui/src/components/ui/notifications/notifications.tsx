import { Alert, AlertTitle, Snackbar, Stack } from '@mui/material';
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { dismissNotification, notificationsAtom } from './notifications-store';

/** Toasts from anywhere in the app, bottom of the screen, newest last. */
export function Notifications() {
  const { t } = useTranslation();
  const notifications = useAtomValue(notificationsAtom);
  return (
    <Stack spacing={1} sx={{ position: 'fixed', bottom: 16, insetInlineStart: 16, zIndex: 2000, maxWidth: 'calc(100vw - 32px)' }}>
      {notifications.map((entry) => (
        <Snackbar
          key={entry.id}
          open
          autoHideDuration={6000}
          onClose={(_, reason) => reason !== 'clickaway' && dismissNotification(entry.id)}
          sx={{ position: 'static', transform: 'none' }}
        >
          <Alert
            severity={entry.severity}
            variant="filled"
            onClose={() => dismissNotification(entry.id)}
            data-testid="notification"
            sx={{ width: '100%' }}
          >
            {entry.title && <AlertTitle data-testid="notification-title">{entry.title}</AlertTitle>}
            {entry.translated ? entry.message : t(entry.message, entry.values)}
          </Alert>
        </Snackbar>
      ))}
    </Stack>
  );
}
