import DashboardIcon from '@mui/icons-material/Dashboard';
import HomeIcon from '@mui/icons-material/Home';
import LogoutIcon from '@mui/icons-material/Logout';
import MenuIcon from '@mui/icons-material/Menu';
import {
  AppBar,
  Avatar,
  Box,
  Chip,
  Divider,
  Drawer,
  IconButton,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Toolbar,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, Outlet, ScrollRestoration, useLocation, useNavigate } from 'react-router';
import { LanguageSelect } from '@/components/layout/language-select';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { useSettings } from '@/lib/app-data';
import { useSignOut, useUser } from '@/lib/auth';
import { menuEntryOf, menuLabel, PANEL_MENU_WIDTH, panelMenuFor } from './panel-menu';

/** Loads a screen's code, and its first data where that is known, ahead of
 * its click (the router knows where both are). */
export type PreloadScreen = (path: string, client: QueryClient) => void;

function PanelMenu({ onNavigate, preload }: { onNavigate: () => void; preload?: PreloadScreen }) {
  const client = useQueryClient();
  const { t } = useTranslation();
  const { data: user } = useUser();
  const location = useLocation();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const groups = panelMenuFor(user?.usertype);
  const current = menuEntryOf(location.pathname);
  return (
    <Box component="nav" aria-label={t('panel.menu_label')} data-testid="panel-menu" sx={{ overflowY: 'auto', pb: 2 }}>
      <List dense>
        <ListItemButton component={RouterLink} to="/" onClick={onNavigate} data-testid="panel-menu-home">
          <ListItemIcon sx={{ minWidth: 36 }}>
            <HomeIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('nav.home')} />
        </ListItemButton>
      </List>
      {groups.map((group, index) => (
        <List
          key={group.title ?? `group-${index}`}
          dense
          subheader={group.title ? <ListSubheader sx={{ lineHeight: '32px' }}>{t(group.title)}</ListSubheader> : undefined}
        >
          {group.items.map((path) => (
            <ListItemButton
              key={path}
              component={RouterLink}
              to={path}
              onClick={onNavigate}
              onPointerEnter={() => preload?.(path, client)}
              onFocus={() => preload?.(path, client)}
              selected={current === path}
              data-testid={`panel-menu-${path.slice(1)}`}
              sx={{ pl: group.title ? 3 : 2 }}
            >
              <ListItemText primary={t(menuLabel(path))} />
            </ListItemButton>
          ))}
        </List>
      ))}
      <Divider />
      <List dense>
        <ListItemButton
          disabled={signOut.isPending}
          data-testid="panel-menu-logout"
          onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate('/', { replace: true }) })}
        >
          <ListItemIcon sx={{ minWidth: 36 }}>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={signOut.isPending ? t('nav.signing_out') : t('panel.menu.logout')} />
        </ListItemButton>
      </List>
    </Box>
  );
}

/** The admin shell (spec §2): a bar, the side menu (a drawer on a phone) and
 * the screen. Every panel screen renders inside it, under `banner` (the SOS
 * alerts, wired in by the app). */
export function PanelLayout({ preload, banner }: { preload?: PreloadScreen; banner?: ReactNode }) {
  const client = useQueryClient();
  const { t } = useTranslation();
  const settings = useSettings();
  const { data: user } = useUser();
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'));
  const [open, setOpen] = useState(false);
  const usertype = user?.usertype;
  // Once the shell is drawn and the browser is idle, fetch every screen of the
  // menu: the first click on Bookings then waits for its data, not its code
  // (the data grid alone is a large download).
  useEffect(() => {
    if (!preload || !usertype) return;
    const paths = panelMenuFor(usertype).flatMap((group) => group.items);
    const idle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 200));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    const handle = idle(() => paths.forEach((path) => preload(path, client)));
    return () => cancel(handle);
  }, [preload, usertype, client]);
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }} data-testid="panel-shell">
      <AppBar position="fixed" elevation={1} sx={{ zIndex: (current) => current.zIndex.drawer + 1 }}>
        <Toolbar sx={{ gap: 1.5 }}>
          {!wide && (
            <IconButton color="inherit" edge="start" onClick={() => setOpen(true)} aria-label={t('nav.menu')} data-testid="panel-menu-open">
              <MenuIcon />
            </IconButton>
          )}
          <Box
            component={RouterLink}
            to="/dashboard"
            sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'inherit', textDecoration: 'none', minWidth: 0 }}
          >
            <DashboardIcon />
            <Typography variant="h6" fontWeight={800} noWrap>
              {settings.appName}
            </Typography>
          </Box>
          {user && (
            <Chip
              size="small"
              label={t(`usertype.${user.usertype}`)}
              sx={{ bgcolor: 'rgba(255,255,255,0.18)', color: 'inherit', display: { xs: 'none', sm: 'inline-flex' } }}
            />
          )}
          <Box sx={{ flexGrow: 1 }} />
          <LanguageSelect sx={{ display: { xs: 'none', sm: 'inline-flex' } }} />
          {user && (
            <IconButton component={RouterLink} to="/profile" aria-label={t('nav.profile')} sx={{ p: 0.5 }}>
              <Avatar src={user.profile_image ?? undefined} sx={{ width: 34, height: 34, bgcolor: 'secondary.main', color: '#222' }}>
                {(user.firstName || user.email || '?').charAt(0).toUpperCase()}
              </Avatar>
            </IconButton>
          )}
        </Toolbar>
      </AppBar>
      {wide ? (
        <Drawer
          variant="permanent"
          sx={{ width: PANEL_MENU_WIDTH, flexShrink: 0, '& .MuiDrawer-paper': { width: PANEL_MENU_WIDTH, boxSizing: 'border-box' } }}
        >
          <Toolbar />
          <PanelMenu onNavigate={() => undefined} preload={preload} />
        </Drawer>
      ) : (
        <Drawer
          variant="temporary"
          open={open}
          onClose={() => setOpen(false)}
          ModalProps={{ keepMounted: true }}
          sx={{ '& .MuiDrawer-paper': { width: PANEL_MENU_WIDTH, boxSizing: 'border-box' } }}
        >
          <Toolbar>
            <Typography variant="h6" fontWeight={800} noWrap>
              {settings.appName}
            </Typography>
          </Toolbar>
          <Box sx={{ px: 2, pb: 1 }}>
            <LanguageSelect onChange={() => setOpen(false)} sx={{ width: '100%' }} />
          </Box>
          <PanelMenu onNavigate={() => setOpen(false)} preload={preload} />
        </Drawer>
      )}
      <Box component="main" sx={{ flexGrow: 1, minWidth: 0, p: { xs: 1.5, sm: 2, md: 3 } }}>
        <Toolbar />
        {banner}
        <Outlet />
      </Box>
      <ConfirmHost />
      <ScrollRestoration />
    </Box>
  );
}
