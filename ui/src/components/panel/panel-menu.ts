// The admin shell's side menu (spec §2 "Admin shell"): groups and entries,
// filtered by the route table so each user type sees only what it may open.
import { matchPath } from 'react-router';
import { BOOKING_PAGE_ROUTE, canAccess } from '@/lib/authorization';
import type { Role } from '@/types/api';

/** Spec §9: the side menu is 240 wide. */
export const PANEL_MENU_WIDTH = 240;

export interface PanelMenuGroup {
  /** Translation key of the group's heading; the main group has none. */
  title?: string;
  /** Route paths; each entry's label is `panel.menu.<path without the slash>`. */
  items: string[];
}

/** In the spec's order: home first and logout last are drawn by the shell. */
export const PANEL_MENU: PanelMenuGroup[] = [
  { items: ['/dashboard', '/dispatch', '/sos', '/bookings', '/addbookings'] },
  { title: 'panel.group_users', items: ['/riders', '/drivers', '/fleetadmins', '/alladmin'] },
  { items: ['/cartypes', '/cancelreasons', '/promos', '/notifications'] },
  { title: 'panel.group_wallet', items: ['/earningreports', '/moneyowed', '/driverearning', '/addtowallet', '/withdraws'] },
  { title: 'panel.group_settings', items: ['/appinfo', '/settings', '/paymentsettings', '/languagesetting'] },
  { items: ['/profile'] },
];

/** The menu a user type sees; groups left empty are dropped. */
export function panelMenuFor(role: Role | undefined): PanelMenuGroup[] {
  return PANEL_MENU.map((group) => ({ ...group, items: group.items.filter((path) => canAccess(path, role)) })).filter(
    (group) => group.items.length > 0,
  );
}

export function isPanelRole(role: Role | undefined): boolean {
  return role === 'admin' || role === 'fleetadmin';
}

const PANEL_PATHS = new Set(PANEL_MENU.flatMap((group) => group.items));

/** Pages a menu screen opens that are not in the menu themselves (route
 * patterns), each with the entry it belongs to. */
const PANEL_PAGES: { pattern: string; entry: string }[] = [{ pattern: BOOKING_PAGE_ROUTE, entry: '/bookings' }];

/** The menu entry a location belongs to (itself, or the screen a page was
 * opened from), or null outside the panel. */
export function menuEntryOf(pathname: string): string | null {
  if (PANEL_PATHS.has(pathname)) return pathname;
  return PANEL_PAGES.find((page) => matchPath(page.pattern, pathname))?.entry ?? null;
}

/** Admins and fleet admins see these paths inside the panel's shell; riders
 * and drivers see /bookings and /profile inside the public site's. */
export function inPanelShell(path: string, role: Role | undefined): boolean {
  return isPanelRole(role) && menuEntryOf(path) !== null;
}

export function menuLabel(path: string) {
  return `panel.menu.${path.slice(1)}`;
}
