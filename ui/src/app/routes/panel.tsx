import { Alert, Box, Drawer, List, ListItemButton, ListItemText, ListSubheader, Toolbar, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import { useUser } from '@/lib/auth';
import { canAccess } from '@/lib/authorization';

/** Spec §2 "Admin shell": side menu 240 wide. */
const MENU_WIDTH = 240;

const GROUPS: { title?: string; items: string[] }[] = [
  { items: ['/dashboard', '/bookings', '/addbookings', '/cartypes', '/cancelreasons', '/promos', '/notifications', '/profile'] },
  { title: 'panel.group_users', items: ['/riders', '/drivers', '/fleetadmins', '/alladmin'] },
  { title: 'panel.group_wallet', items: ['/earningreports', '/driverearning', '/addtowallet', '/withdraws'] },
  { title: 'panel.group_settings', items: ['/appinfo', '/settings', '/languagesetting'] },
];

/** The administration panel's frame; its tables arrive with the admin issue. */
export default function PanelRoute() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const location = useLocation();
  return (
    <Box sx={{ display: 'flex', minHeight: '70vh' }}>
      <Drawer
        variant="permanent"
        sx={{
          width: MENU_WIDTH,
          flexShrink: 0,
          display: { xs: 'none', md: 'block' },
          '& .MuiDrawer-paper': { width: MENU_WIDTH, boxSizing: 'border-box', position: 'relative' },
        }}
      >
        {GROUPS.map((group) => (
          <List key={group.title ?? 'main'} dense subheader={group.title ? <ListSubheader>{t(group.title)}</ListSubheader> : undefined}>
            {group.items
              .filter((path) => canAccess(path, user?.usertype))
              .map((path) => (
                <ListItemButton key={path} component={RouterLink} to={path} selected={location.pathname === path}>
                  <ListItemText primary={t(`panel.menu.${path.slice(1)}`)} />
                </ListItemButton>
              ))}
          </List>
        ))}
      </Drawer>
      <Box sx={{ flexGrow: 1, p: { xs: 2, md: 4 } }}>
        <Typography variant="h4" component="h1" gutterBottom>
          {t(`panel.menu.${location.pathname.slice(1)}`)}
        </Typography>
        <Alert severity="info" data-testid="panel-pending">
          {t('panel.coming_soon')}
        </Alert>
        <Toolbar />
      </Box>
    </Box>
  );
}
