import BoltIcon from '@mui/icons-material/Bolt';
import ChatIcon from '@mui/icons-material/ChatBubbleOutline';
import ShieldIcon from '@mui/icons-material/VerifiedUser';
import AppleIcon from '@mui/icons-material/Apple';
import ShopIcon from '@mui/icons-material/Shop';
import { Box, Button, Card, CardContent, Container, Grid, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { textContext } from '@/lib/app-texts';

/** Three highlights (spec §2 landing). */
export function Highlights() {
  const { t } = useTranslation();
  const context = textContext(useSettings().appcat);
  const items = [
    { icon: <BoltIcon fontSize="large" />, title: t('landing.feature_fast_title'), body: t('landing.feature_fast_body', { context }) },
    { icon: <ChatIcon fontSize="large" />, title: t('landing.feature_live_title'), body: t('landing.feature_live_body', { context }) },
    { icon: <ShieldIcon fontSize="large" />, title: t('landing.feature_safe_title'), body: t('landing.feature_safe_body', { context }) },
  ];
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 6, md: 10 } }}>
      <Typography variant="h4" component="h2" textAlign="center" sx={{ mb: 5 }}>
        {t('landing.features_title', { context })}
      </Typography>
      <Grid container spacing={3}>
        {items.map((item) => (
          <Grid key={item.title} size={{ xs: 12, md: 4 }}>
            <Card variant="outlined" sx={{ height: '100%', borderRadius: 4 }}>
              <CardContent sx={{ p: 4 }}>
                <Box sx={{ color: 'primary.main', mb: 2 }}>{item.icon}</Box>
                <Typography variant="h6" fontWeight={700} gutterBottom>
                  {item.title}
                </Typography>
                <Typography color="text.secondary">{item.body}</Typography>
              </CardContent>
            </Card>
          </Grid>
        ))}
      </Grid>
    </Container>
  );
}

/** The mobile-app store links (spec §2 landing), each shown when set. */
export function AppLinks() {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <Box sx={{ bgcolor: '#e6f0ee', py: { xs: 6, md: 8 } }}>
      <Container maxWidth="md" sx={{ textAlign: 'center' }}>
        <Typography variant="h4" component="h2" gutterBottom>
          {t('landing.apps_title')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {settings.AppleStoreLink || settings.PlayStoreLink ? t('landing.apps_body') : t('landing.apps_soon')}
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} justifyContent="center">
          {settings.AppleStoreLink && (
            <Button variant="contained" size="large" startIcon={<AppleIcon />} href={settings.AppleStoreLink} target="_blank" rel="noopener noreferrer">
              {t('landing.app_store')}
            </Button>
          )}
          {settings.PlayStoreLink && (
            <Button variant="contained" size="large" startIcon={<ShopIcon />} href={settings.PlayStoreLink} target="_blank" rel="noopener noreferrer">
              {t('landing.play_store')}
            </Button>
          )}
        </Stack>
      </Container>
    </Box>
  );
}
