import { Link, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { PageShell } from './page-shell';

/** Spec §2: translated text, the contact e-mail from settings and the account-deletion text. */
export function PrivacyPage() {
  const { t } = useTranslation();
  const settings = useSettings();
  const values = { app: settings.appName, company: settings.CompanyName || settings.appName };
  const sections = ['collect', 'use', 'share', 'location', 'retention'];
  return (
    <PageShell title={t('privacy.title')} testId="privacy-page">
      <Stack spacing={2}>
        <Typography>{t('privacy.intro', values)}</Typography>
        {sections.map((section) => (
          <Stack key={section} spacing={0.5}>
            <Typography variant="h6">{t(`privacy.${section}_title`)}</Typography>
            <Typography>{t(`privacy.${section}_body`, values)}</Typography>
          </Stack>
        ))}
        <Stack spacing={0.5} data-testid="account-deletion">
          <Typography variant="h6">{t('privacy.deletion_title')}</Typography>
          <Typography>{t('privacy.deletion_body', values)}</Typography>
        </Stack>
        <Stack spacing={0.5}>
          <Typography variant="h6">{t('privacy.contact_title')}</Typography>
          <Typography>
            {t('privacy.contact_body')}{' '}
            {settings.contact_email ? (
              <Link href={`mailto:${settings.contact_email}`} data-testid="privacy-email">
                {settings.contact_email}
              </Link>
            ) : (
              t('privacy.no_email')
            )}
          </Typography>
        </Stack>
      </Stack>
    </PageShell>
  );
}
