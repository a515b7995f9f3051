import { Box, Button, Typography } from '@mui/material';
import { useQueries } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FullPageSpinner } from '@/components/ui/full-page-spinner';
import { useRealtime } from '@/features/realtime/hooks/use-realtime';
import { applyServerLanguages, applyUserLanguage } from '@/i18n';
import { carTypesQueryOptions, languagesQueryOptions, settingsQueryOptions } from '@/lib/app-data';
import { meQueryOptions } from '@/lib/auth';

/** Spec §1: at start the app loads settings, languages, car types and the
 * current user, with a spinner; without settings it says so. */
export function Bootstrap({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [settings, languages, carTypes, me] = useQueries({
    queries: [settingsQueryOptions(), languagesQueryOptions(), carTypesQueryOptions(), meQueryOptions()],
  });

  const userLanguage = me.data?.lang?.langLocale;
  useEffect(() => {
    if (languages.data) applyServerLanguages(languages.data);
    // After the server's dictionaries, so a language only the server has is known.
    applyUserLanguage(userLanguage);
  }, [languages.data, userLanguage]);

  useEffect(() => {
    if (settings.data?.appName) document.title = settings.data.appName;
  }, [settings.data?.appName]);

  useRealtime(me.data?.id);

  const loading = settings.isPending || languages.isPending || carTypes.isPending || me.isPending;
  if (loading && !settings.isError) return <FullPageSpinner label={t('common.loading')} />;

  if (settings.isError || settings.data === null) {
    return (
      <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 3, textAlign: 'center' }}>
        <Box>
          <Typography variant="h5" data-testid="settings-missing">
            {settings.isError ? t('startup.settings_fetch_failed') : t('startup.no_settings')}
          </Typography>
          <Button sx={{ mt: 2 }} variant="outlined" onClick={() => void settings.refetch()}>
            {t('common.retry')}
          </Button>
        </Box>
      </Box>
    );
  }
  return <>{children}</>;
}
