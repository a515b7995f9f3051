import { Box, Container } from '@mui/material';
import { Navigate } from 'react-router';
import { SignupWizard } from '@/features/driver-signup/components/signup-wizard';
import { useUser } from '@/lib/auth';

/** "Drive with us" (issue #33): the public sign-up; an approved driver goes to the console. */
export default function DriveRoute() {
  const { data: user, isPending } = useUser();
  if (isPending) return null;
  if (user && (user.usertype !== 'driver' || user.approved)) return <Navigate to="/bookings" replace />;
  return (
    <Box sx={{ py: { xs: 2, md: 6 }, px: { xs: 1, sm: 2 }, background: 'linear-gradient(180deg, #e6f0ee 0%, #f6f7f5 100%)', minHeight: '70vh' }}>
      <Container maxWidth="md" disableGutters>
        <SignupWizard />
      </Container>
    </Box>
  );
}
