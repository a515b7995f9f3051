import { Alert, Box, Button, Container, Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { LoginForm } from '@/features/auth/components/login-form';
import { homePathFor, useSignOut, useUser } from '@/lib/auth';

export default function LoginRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const { data: user } = useUser();
  const signOut = useSignOut();
  const denied = Boolean((location.state as { denied?: boolean } | null)?.denied);

  return (
    <Box sx={{ py: { xs: 4, md: 8 }, background: 'linear-gradient(180deg, #e6f0ee 0%, #f6f7f5 100%)', minHeight: '70vh' }}>
      <Container maxWidth="sm">
        {user ? (
          <Paper elevation={3} sx={{ p: 4 }} data-testid="signed-in-card">
            <Stack spacing={2}>
              {denied && (
                <Alert severity="warning" data-testid="access-denied">
                  {t('login.not_allowed_here')}
                </Alert>
              )}
              <Typography variant="h5" component="h1">
                {t('login.signed_in_as', { name: [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email || user.mobile })}
              </Typography>
              <Stack direction="row" spacing={1}>
                <Button variant="contained" component={RouterLink} to={homePathFor(user.usertype)}>
                  {t('login.continue')}
                </Button>
                <Button
                  variant="outlined"
                  disabled={signOut.isPending}
                  onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate('/login', { replace: true }) })}
                >
                  {signOut.isPending ? t('nav.signing_out') : t('nav.sign_out')}
                </Button>
              </Stack>
            </Stack>
          </Paper>
        ) : (
          <LoginForm onSignedIn={(signedIn) => navigate(homePathFor(signedIn.usertype), { replace: true })} />
        )}
      </Container>
    </Box>
  );
}
