import { Box, Toolbar } from '@mui/material';
import { Outlet, ScrollRestoration } from 'react-router';
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
      <ScrollRestoration />
    </Box>
  );
}
