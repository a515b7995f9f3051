import { Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import { isPanelRole } from '@/components/panel/panel-menu';
import { useUser } from '@/lib/auth';
import { PageShell } from './page-shell';

/** Issue #34: a path the app has no page for, public or panel, says so in
 * the site's layout and leads home, instead of silently sending the visitor
 * to the login page. */
export function NotFoundPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { data: user } = useUser();
  return (
    <PageShell title={t('notfound.title')} testId="not-found">
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Typography>
          {t('notfound.body')}{' '}
          <bdi dir="ltr" data-testid="not-found-path">
            {pathname}
          </bdi>
        </Typography>
        <Typography color="text.secondary">{t('notfound.hint')}</Typography>
        <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Button component={RouterLink} to="/" variant="contained" data-testid="not-found-home">
            {t('notfound.home')}
          </Button>
          {isPanelRole(user?.usertype) && (
            <Button component={RouterLink} to="/dashboard" variant="outlined" data-testid="not-found-dashboard">
              {t('notfound.dashboard')}
            </Button>
          )}
        </Stack>
      </Stack>
    </PageShell>
  );
}
