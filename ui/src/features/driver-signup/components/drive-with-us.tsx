// The landing page's invitation to drive (issue #33), for visitors.
import DirectionsCarIcon from '@mui/icons-material/DirectionsCar';
import { Box, Button, Container, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';

export function DriveWithUs() {
  const { t } = useTranslation();
  return (
    <Box sx={{ bgcolor: 'secondary.main', color: 'secondary.contrastText', py: { xs: 4, md: 5 } }} data-testid="drive-with-us">
      <Container maxWidth="lg">
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={3} alignItems={{ xs: 'flex-start', md: 'center' }} justifyContent="space-between">
          <Stack direction="row" spacing={2} alignItems="center">
            <DirectionsCarIcon sx={{ fontSize: 48 }} />
            <Box>
              <Typography variant="h5" component="h2" fontWeight={700}>
                {t('signup.invite_title')}
              </Typography>
              <Typography sx={{ opacity: 0.9 }}>{t('signup.invite_body')}</Typography>
            </Box>
          </Stack>
          <Button component={RouterLink} to="/drive" variant="contained" color="primary" size="large" data-testid="drive-with-us-start">
            {t('nav.drive_with_us')}
          </Button>
        </Stack>
      </Container>
    </Box>
  );
}
