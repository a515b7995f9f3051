// The route table of spec §2: which user types may open which route.
import type { Role } from '@/types/api';

export const PUBLIC_ROUTES = ['/', '/contact-us', '/about-us', '/privacy-policy', '/login'] as const;

const EVERYONE_SIGNED_IN: Role[] = ['rider', 'admin', 'driver', 'fleetadmin'];
const PANEL: Role[] = ['admin', 'fleetadmin'];
const ADMIN: Role[] = ['admin'];

export const PROTECTED_ROUTES: Record<string, Role[]> = {
  '/bookings': EVERYONE_SIGNED_IN,
  '/profile': EVERYONE_SIGNED_IN,
  '/dashboard': PANEL,
  // Issue #15: the live dispatch console (a fleet admin sees their fleet only).
  '/dispatch': PANEL,
  // Issue #33: SOS alerts (a fleet admin sees their drivers' bookings' only).
  '/sos': PANEL,
  '/drivers': PANEL,
  '/driverearning': PANEL,
  '/cartypes': ADMIN,
  '/cancelreasons': ADMIN,
  '/addbookings': ADMIN,
  '/promos': ADMIN,
  '/riders': ADMIN,
  '/alladmin': ADMIN,
  '/fleetadmins': ADMIN,
  '/notifications': ADMIN,
  // Spec §6 gives fleet admins earning reports of their fleet (the §2 table lists it for admins only).
  '/earningreports': PANEL,
  // Issue #34: unpaid trips and cancellation fees owed (a fleet admin: their fleet's).
  '/moneyowed': PANEL,
  // Issue #34: a booking's own page, opened from the bookings grid.
  '/bookings/:id/manage': PANEL,
  '/addtowallet': ADMIN,
  '/withdraws': ADMIN,
  '/settings': ADMIN,
  // Issue #37: the payment gateways' settings (secrets write-only).
  '/paymentsettings': ADMIN,
  '/appinfo': ADMIN,
  '/languagesetting': ADMIN,
};

/** Issue #34: the panel's page of one booking. Under /bookings, which riders
 * and drivers also open (their own list), with a path of its own so the two
 * never meet. */
export const BOOKING_PAGE_ROUTE = '/bookings/:id/manage';

export function bookingPagePath(id: string) {
  return `/bookings/${encodeURIComponent(id)}/manage`;
}

/** The bookings grid keeps its status filter in the address, under this
 * name, so a link can open it filtered (the dashboard's unassigned card). */
export const BOOKINGS_FILTER_PARAM = 'status';

/** The bookings grid, filtered by one of its filter values ('unassigned',
 * 'active', a status) or unfiltered. */
export function bookingsListPath(filter?: string) {
  return filter ? `/bookings?${new URLSearchParams({ [BOOKINGS_FILTER_PARAM]: filter })}` : '/bookings';
}

/** Who may read a booking's chat (the server's `Action::BookingChat`): its
 * rider and its driver, and, read only, admins and the fleet admin of its
 * driver. The panel's booking page asks for it only when the answer can be yes. */
export const CHAT_READERS: Role[] = ['rider', 'driver', 'admin', 'fleetadmin'];

/** True when a user of this type (undefined: not signed in) may open the path. */
export function canAccess(path: string, role: Role | undefined): boolean {
  if ((PUBLIC_ROUTES as readonly string[]).includes(path)) return true;
  const allowed = PROTECTED_ROUTES[path];
  if (!allowed || !role) return false;
  return allowed.includes(role);
}
