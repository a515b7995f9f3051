import { Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { PageShell } from './page-shell';

export function AboutPage() {
  const { t } = useTranslation();
  const settings = useSettings();
  const values = { app: settings.appName, company: settings.CompanyName || settings.appName };
  return (
    <PageShell title={t('about.title', values)} testId="about-page">
      <Stack spacing={2}>
        <Typography variant="h6">{t('about.lead', values)}</Typography>
        <Typography>{t('about.body1', values)}</Typography>
        <Typography>{t('about.body2', values)}</Typography>
        <Typography>{t('about.body3', values)}</Typography>
      </Stack>
    </PageShell>
  );
}
