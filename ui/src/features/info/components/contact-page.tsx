import BusinessIcon from '@mui/icons-material/Business';
import EmailIcon from '@mui/icons-material/Email';
import LanguageIcon from '@mui/icons-material/Language';
import PhoneIcon from '@mui/icons-material/Phone';
import PlaceIcon from '@mui/icons-material/Place';
import { Link, List, ListItem, ListItemIcon, ListItemText, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { SocialLinks } from '@/components/layout/social-links';
import { useSettings } from '@/lib/app-data';
import { PageShell } from './page-shell';

/** Spec §2: company name, address, contact e-mail, phone and social links. */
export function ContactPage() {
  const { t } = useTranslation();
  const settings = useSettings();
  const rows = [
    { icon: <BusinessIcon />, label: t('contact.company'), value: settings.CompanyName || settings.appName },
    { icon: <PlaceIcon />, label: t('contact.address'), value: settings.CompanyAddress },
    {
      icon: <EmailIcon />,
      label: t('contact.email'),
      value: settings.contact_email,
      href: settings.contact_email ? `mailto:${settings.contact_email}` : undefined,
    },
    {
      icon: <PhoneIcon />,
      label: t('contact.phone'),
      value: settings.CompanyPhone,
      href: settings.CompanyPhone ? `tel:${settings.CompanyPhone.replace(/\s/g, '')}` : undefined,
    },
    { icon: <LanguageIcon />, label: t('contact.website'), value: settings.CompanyWebsite, href: settings.CompanyWebsite || undefined },
  ].filter((row) => row.value);
  return (
    <PageShell title={t('contact.title')} testId="contact-page">
      <Typography sx={{ mb: 2 }}>{t('contact.intro', { app: settings.appName })}</Typography>
      <List>
        {rows.map((row) => (
          <ListItem key={row.label} disableGutters>
            <ListItemIcon sx={{ color: 'primary.main' }}>{row.icon}</ListItemIcon>
            <ListItemText
              primary={row.label}
              secondary={
                row.href ? (
                  <Link href={row.href} target={row.href.startsWith('http') ? '_blank' : undefined} rel="noopener noreferrer">
                    {row.value}
                  </Link>
                ) : (
                  row.value
                )
              }
            />
          </ListItem>
        ))}
      </List>
      <Stack direction="row" alignItems="center" spacing={1} sx={{ color: 'primary.main' }}>
        <SocialLinks settings={settings} size="medium" />
      </Stack>
    </PageShell>
  );
}
