// Issue #33: the red banner over every panel screen (the dispatch console
// included) while an SOS alert is open: who, which booking, when, with
// "Take" and "Open". It reads the open alerts once and then follows the
// socket's `sos` event (features/realtime writes it into the same query).
import SosIcon from '@mui/icons-material/Sos';
import { Box, Button, Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useUser } from '@/lib/auth';
import { formatDateTime } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import type { SosAlertShown } from '@/types/api';
import { useOpenSos, useTakeSos } from '../api/sos';

/** Shown one per line; more are on the SOS screen. */
const BANNER_ROWS = 5;

export function sosScreenPath(alert: Pick<SosAlertShown, 'id'>) {
  return `/sos?alert=${alert.id}`;
}

export function SosBanner() {
  const { t, i18n } = useTranslation();
  const { data: user } = useUser();
  const handler = user?.usertype === 'admin' || user?.usertype === 'fleetadmin';
  const open = useOpenSos(handler);
  const take = useTakeSos();
  const alerts = open.data ?? [];
  if (!handler || alerts.length === 0) return null;

  const takeAlert = (alert: SosAlertShown) =>
    take.mutate(alert.id, {
      onSuccess: () => notify({ severity: 'success', message: 'sos.taken_done' }),
      onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
    });

  return (
    <Paper
      role="alert"
      elevation={3}
      data-testid="sos-banner"
      sx={{ bgcolor: 'error.main', color: 'error.contrastText', p: { xs: 1.5, md: 2 }, mb: 2, borderRadius: 2 }}
    >
      <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: 1 }}>
        <SosIcon />
        <Typography variant="h6" component="p" fontWeight={800}>
          {t('sos.banner_title', { count: alerts.length })}
        </Typography>
      </Stack>
      <Stack spacing={1}>
        {alerts.slice(0, BANNER_ROWS).map((alert) => (
          <Stack
            key={alert.id}
            direction={{ xs: 'column', sm: 'row' }}
            spacing={1}
            alignItems={{ xs: 'stretch', sm: 'center' }}
            data-testid="sos-banner-alert"
            data-alert-id={alert.id}
            sx={{ bgcolor: 'rgba(0,0,0,0.18)', borderRadius: 1, px: 1.5, py: 1 }}
          >
            <Box sx={{ flexGrow: 1, minWidth: 0 }}>
              <Typography fontWeight={700} noWrap>
                {alert.raised_by_name} · {t(`sos.role.${alert.raised_by_role}`)}
              </Typography>
              <Typography variant="body2">
                {t('sos.banner_booking', { reference: alert.reference })} · <bdi>{formatDateTime(alert.created_at)}</bdi>
              </Typography>
            </Box>
            <Stack direction="row" spacing={1}>
              <Button
                variant="contained"
                onClick={() => takeAlert(alert)}
                disabled={take.isPending}
                data-testid="sos-banner-take"
                sx={{ bgcolor: 'common.white', color: 'error.main', fontWeight: 800, '&:hover': { bgcolor: 'grey.100' } }}
              >
                {t('sos.take')}
              </Button>
              <Button
                variant="outlined"
                component={RouterLink}
                to={sosScreenPath(alert)}
                data-testid="sos-banner-open"
                sx={{ color: 'inherit', borderColor: 'rgba(255,255,255,0.7)', fontWeight: 700 }}
              >
                {t('sos.open')}
              </Button>
            </Stack>
          </Stack>
        ))}
        {alerts.length > BANNER_ROWS && (
          <Typography variant="body2">{t('sos.banner_more', { count: alerts.length - BANNER_ROWS })}</Typography>
        )}
      </Stack>
    </Paper>
  );
}
