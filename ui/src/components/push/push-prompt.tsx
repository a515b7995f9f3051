// Offers Web Push where it would help: a driver hears of offers, a rider of
// their trip, while the tab is in the background. Asks only on a click (the
// browser's rule), says so when it was refused, and keeps a granted
// subscription current.
import NotificationsActiveIcon from '@mui/icons-material/NotificationsActive';
import { Alert, Button } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { enablePush, pushState, syncPush, type PushState } from '@/lib/web-push';

export function PushPrompt({ role }: { role: 'rider' | 'driver' }) {
  const { t } = useTranslation();
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    pushState()
      .then((found) => {
        if (!live) return;
        setState(found);
        if (found === 'granted') void syncPush().catch(() => undefined);
      })
      .catch(() => live && setState('unavailable'));
    return () => {
      live = false;
    };
  }, []);

  if (state === 'default') {
    const turnOn = async () => {
      setBusy(true);
      try {
        setState(await enablePush());
      } catch {
        setState('unavailable');
      } finally {
        setBusy(false);
      }
    };
    return (
      <Alert
        severity="info"
        icon={<NotificationsActiveIcon />}
        data-testid="push-prompt"
        action={
          <Button color="inherit" size="small" onClick={() => void turnOn()} disabled={busy} data-testid="push-enable">
            {t('push.enable')}
          </Button>
        }
      >
        {t(role === 'driver' ? 'push.why_driver' : 'push.why_rider')}
      </Alert>
    );
  }
  if (state === 'denied') {
    return (
      <Alert severity="warning" data-testid="push-denied">
        {t('push.denied')}
      </Alert>
    );
  }
  return null;
}
