import LocalTaxiIcon from '@mui/icons-material/LocalTaxi';
import MenuIcon from '@mui/icons-material/Menu';
import {
  AppBar,
  Avatar,
  Box,
  Button,
  Divider,
  Drawer,
  IconButton,
  List,
  ListItemButton,
  ListItemText,
  Menu,
  MenuItem,
  Stack,
  Toolbar,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useScrolledPast } from '@/hooks/use-scrolled-past';
import { useSettings } from '@/lib/app-data';
import { useSignOut, useUser } from '@/lib/auth';
import { LanguageSelect } from './language-select';
import { SocialLinks } from './social-links';

/** Spec §9: the header changes colour after 400 px of scroll. */
export const HEADER_SCROLL_THRESHOLD = 400;

export function Header() {
  const { t } = useTranslation();
  const settings = useSettings();
  const { data: user } = useUser();
  const scrolled = useScrolledPast(HEADER_SCROLL_THRESHOLD);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const navigate = useNavigate();
  const signOut = useSignOut();

  const links = [
    { to: '/', label: t('nav.home') },
    { to: '/bookings', label: user ? t('nav.my_account') : t('nav.login_signup'), testId: 'nav-account' },
    { to: '/about-us', label: t('nav.about') },
    { to: '/contact-us', label: t('nav.contact') },
    // Issue #33: a visitor signs up to drive.
    ...(user ? [] : [{ to: '/drive', label: t('nav.drive_with_us'), testId: 'nav-drive' }]),
  ];

  const doSignOut = () => {
    setMenuAnchor(null);
    signOut.mutate(undefined, { onSuccess: () => navigate('/', { replace: true }) });
  };

  return (
    <AppBar
      position="fixed"
      elevation={scrolled ? 4 : 0}
      data-testid="app-header"
      data-scrolled={scrolled ? 'true' : 'false'}
      sx={{
        bgcolor: scrolled ? 'primary.dark' : 'rgba(255,255,255,0.94)',
        color: scrolled ? 'primary.contrastText' : 'text.primary',
        backdropFilter: 'blur(6px)',
        borderBottom: scrolled ? 'none' : '1px solid rgba(0,0,0,0.06)',
        transition: 'background-color 250ms ease, color 250ms ease',
      }}
    >
      <Toolbar sx={{ gap: 2 }}>
        <IconButton
          color="inherit"
          edge="start"
          sx={{ display: { md: 'none' } }}
          onClick={() => setDrawerOpen(true)}
          aria-label={t('nav.menu')}
        >
          <MenuIcon />
        </IconButton>
        <Box
          component={RouterLink}
          to="/"
          sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'inherit', textDecoration: 'none', flexShrink: 0 }}
        >
          <LocalTaxiIcon sx={{ color: scrolled ? 'secondary.main' : 'primary.main' }} />
          <Typography variant="h6" fontWeight={800} noWrap>
            {settings.appName}
          </Typography>
        </Box>
        <Stack component="nav" direction="row" spacing={0.5} sx={{ display: { xs: 'none', md: 'flex' }, flexGrow: 1 }}>
          {links.map((link) => (
            <Button key={link.to} component={RouterLink} to={link.to} color="inherit" data-testid={link.testId}>
              {link.label}
            </Button>
          ))}
        </Stack>
        <Box sx={{ flexGrow: { xs: 1, md: 0 } }} />
        <Box sx={{ display: { xs: 'none', sm: 'block' } }}>
          <SocialLinks settings={settings} />
        </Box>
        <LanguageSelect sx={{ display: { xs: 'none', sm: 'inline-flex' } }} />
        {user ? (
          <>
            <IconButton
              onClick={(event) => setMenuAnchor(event.currentTarget)}
              aria-label={t('nav.account_menu')}
              data-testid="account-menu"
              sx={{ p: 0.5 }}
            >
              <Avatar src={user.profile_image ?? undefined} sx={{ width: 34, height: 34, bgcolor: 'secondary.main', color: '#222' }}>
                {(user.firstName || user.email || '?').charAt(0).toUpperCase()}
              </Avatar>
            </IconButton>
            <Menu anchorEl={menuAnchor} open={Boolean(menuAnchor)} onClose={() => setMenuAnchor(null)}>
              <MenuItem disabled>
                <ListItemText
                  primary={[user.firstName, user.lastName].filter(Boolean).join(' ') || user.email || user.mobile}
                  secondary={t(`usertype.${user.usertype}`)}
                />
              </MenuItem>
              <Divider />
              <MenuItem component={RouterLink} to="/bookings" onClick={() => setMenuAnchor(null)}>
                {t('nav.my_account')}
              </MenuItem>
              <MenuItem component={RouterLink} to="/profile" onClick={() => setMenuAnchor(null)}>
                {t('nav.profile')}
              </MenuItem>
              <MenuItem onClick={doSignOut} disabled={signOut.isPending} data-testid="sign-out">
                {signOut.isPending ? t('nav.signing_out') : t('nav.sign_out')}
              </MenuItem>
            </Menu>
          </>
        ) : (
          <Button
            component={RouterLink}
            to="/login"
            variant={scrolled ? 'outlined' : 'contained'}
            color={scrolled ? 'inherit' : 'primary'}
            sx={{ display: { xs: 'none', sm: 'inline-flex' } }}
          >
            {t('nav.sign_in')}
          </Button>
        )}
      </Toolbar>
      <Drawer open={drawerOpen} onClose={() => setDrawerOpen(false)} anchor="left">
        <Box sx={{ width: 260, p: 2 }} role="presentation">
          <Typography variant="h6" fontWeight={800} sx={{ mb: 1 }}>
            {settings.appName}
          </Typography>
          <List>
            {links.map((link) => (
              <ListItemButton key={link.to} component={RouterLink} to={link.to} onClick={() => setDrawerOpen(false)}>
                <ListItemText primary={link.label} />
              </ListItemButton>
            ))}
            {!user && (
              <ListItemButton component={RouterLink} to="/login" onClick={() => setDrawerOpen(false)}>
                <ListItemText primary={t('nav.sign_in')} />
              </ListItemButton>
            )}
          </List>
          <Divider sx={{ my: 1 }} />
          <LanguageSelect onChange={() => setDrawerOpen(false)} sx={{ width: '100%' }} />
          <Box sx={{ mt: 2 }}>
            <SocialLinks settings={settings} size="medium" />
          </Box>
        </Box>
      </Drawer>
    </AppBar>
  );
}
