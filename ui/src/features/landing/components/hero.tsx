import { Box, Container, Grid, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import { textContext } from '@/lib/app-texts';

/** The landing hero; the booking form (or a driver's slogan) sits beside the headline. */
export function Hero({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <Box
      sx={{
        position: 'relative',
        overflow: 'hidden',
        color: '#fff',
        background:
          'radial-gradient(circle at 85% 15%, rgba(242,169,59,0.35), transparent 40%), linear-gradient(135deg, #073f3b 0%, #0b5c56 55%, #12776f 100%)',
        py: { xs: 5, md: 10 },
      }}
    >
      <Box
        aria-hidden
        sx={{
          position: 'absolute',
          inset: 0,
          opacity: 0.12,
          backgroundImage:
            'linear-gradient(rgba(255,255,255,.6) 1px, transparent 1px), linear-gradient(90deg, rgba(255,255,255,.6) 1px, transparent 1px)',
          backgroundSize: '48px 48px',
        }}
      />
      <Container maxWidth="lg" sx={{ position: 'relative' }}>
        <Grid container spacing={{ xs: 4, md: 6 }} alignItems="center">
          <Grid size={{ xs: 12, md: 6 }}>
            <Stack spacing={2}>
              <Typography variant="overline" sx={{ color: 'secondary.main', fontWeight: 700, letterSpacing: 2 }}>
                {settings.appName}
              </Typography>
              <Typography variant="h2" component="h1" sx={{ fontSize: { xs: '2.2rem', md: '3.4rem' }, lineHeight: 1.1 }}>
                {t('landing.headline', { context: textContext(settings.appcat) })}
              </Typography>
              <Typography variant="h6" sx={{ opacity: 0.9, fontWeight: 400 }}>
                {t('landing.subheadline', { context: textContext(settings.appcat) })}
              </Typography>
            </Stack>
          </Grid>
          <Grid size={{ xs: 12, md: 6 }} sx={{ color: 'text.primary' }}>
            {children}
          </Grid>
        </Grid>
      </Container>
    </Box>
  );
}

/** What drivers and fleet admins see instead of the booking form. */
export function Slogan({ role }: { role: 'driver' | 'fleetadmin' }) {
  const { t } = useTranslation();
  const context = role === 'fleetadmin' ? 'fleetadmin' : undefined;
  return (
    <Box sx={{ color: '#fff', p: 3, border: '1px solid rgba(255,255,255,0.3)', borderRadius: 4 }} data-testid="driver-slogan" data-role={role}>
      <Typography variant="h4" fontWeight={700}>
        {t('landing.driver_slogan', { context })}
      </Typography>
      <Typography sx={{ mt: 1, opacity: 0.85 }}>{t('landing.driver_slogan_sub', { context })}</Typography>
    </Box>
  );
}
