import { Box, Container, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ProfileForm } from '@/features/profile/components/profile-form';
import { useUser } from '@/lib/auth';

export default function ProfileRoute() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  if (!user) return null;
  return (
    <Box sx={{ py: { xs: 2, md: 5 } }}>
      <Container maxWidth="md">
        <Typography variant="h4" component="h1" sx={{ mb: 3 }}>
          {t('profile.title')}
        </Typography>
        <ProfileForm key={user.id} user={user} />
      </Container>
    </Box>
  );
}
