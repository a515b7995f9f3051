import { Box, Toolbar } from '@mui/material';
import { Outlet, ScrollRestoration } from 'react-router';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { Footer } from './footer';
import { Header } from './header';

export function MainLayout() {
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Header />
      <Toolbar />
      <Box component="main" sx={{ flexGrow: 1 }}>
        <Outlet />
      </Box>
      <Footer />
      {/* The site's screens ask too (a trip's SOS). */}
      <ConfirmHost />
      <ScrollRestoration />
    </Box>
  );
}
