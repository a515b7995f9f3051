import { Box, Container, Link, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useSettings } from '@/lib/app-data';

export function Footer() {
  const { t } = useTranslation();
  const settings = useSettings();
  const company = settings.CompanyName || settings.appName;
  const links = [
    { to: '/', label: t('nav.home') },
    { to: '/bookings', label: t('nav.my_account') },
    { to: '/about-us', label: t('footer.about_us') },
    { to: '/contact-us', label: t('footer.contact_us') },
    { to: '/privacy-policy', label: t('footer.privacy_policy') },
  ];
  return (
    <Box component="footer" sx={{ bgcolor: '#10201f', color: 'rgba(255,255,255,0.85)', py: 4, mt: 'auto' }} data-testid="app-footer">
      <Container maxWidth="lg">
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={{ xs: 1, sm: 3 }} flexWrap="wrap" useFlexGap sx={{ mb: 2 }}>
          {links.map((link) => (
            <Link key={link.to} component={RouterLink} to={link.to} color="inherit" underline="hover">
              {link.label}
            </Link>
          ))}
        </Stack>
        <Typography variant="body2" sx={{ opacity: 0.8 }} data-testid="copyright">
          {t('footer.copyright', { year: new Date().getFullYear(), company })}
          {settings.CompanyWebsite && (
            <>
              {' · '}
              <Link href={settings.CompanyWebsite} color="inherit" target="_blank" rel="noopener noreferrer">
                {settings.CompanyWebsite.replace(/^https?:\/\//, '')}
              </Link>
            </>
          )}
        </Typography>
      </Container>
    </Box>
  );
}
