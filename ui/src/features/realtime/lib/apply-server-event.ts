// Server events (DESIGN.md "Socket.IO") written into the query cache, so the
// screens that read those queries update without a second copy of the data.
import type { QueryClient } from '@tanstack/react-query';
import { applyActiveBooking } from '@/lib/active-bookings';
import { textContext } from '@/lib/app-texts';
import { newestBooking } from '@/lib/booking-version';
import { queryKeys } from '@/lib/query-keys';
import type {
  Booking,
  ChatMessage,
  Settings,
  SosAlertShown,
  Tracking,
  TrackingPoint,
  User,
  Wallet,
} from '@/types/api';
import type { Offer, Page } from '@/types/app';

export interface EventContext {
  /** The signed-in user's id. */
  userId: string;
  /** Shows a toast: a translation key, or server text when `translated`. */
  notify: (notice: {
    key: string;
    text?: string;
    title?: string;
    severity?: 'info' | 'success' | 'warning';
    booking?: string;
    /** The booking's wording: `delivery` reads the key's `_delivery` variant (issue #34). */
    context?: 'delivery';
  }) => void;
  /** Takes away the toasts about a booking (its offer was answered or went away). */
  dismissBooking?: (booking: string) => void;
}

export type WithdrawReason = 'taken' | 'declined' | 'expired' | 'cancelled';

/** A change may arrive twice, or after a newer copy (docs/api.md): the
 * highest `version` stays. */
export function applyBooking(client: QueryClient, incoming: Booking, context: EventContext) {
  const booking = newestBooking(client.getQueryData<Booking>(queryKeys.bookings.detail(incoming.id)), incoming);
  client.setQueryData<Booking>(queryKeys.bookings.detail(booking.id), booking);
  // The dashboard's active bookings (its unassigned count), when it read them.
  applyActiveBooking(client, booking);
  // Every cached page of a bookings list: the rider's or driver's list and
  // each page of the panel's grid.
  let listed = false;
  client.setQueriesData<Page<Booking>>({ queryKey: queryKeys.bookings.list() }, (page) => {
    if (!page?.items) return page;
    if (!page.items.some((item) => item.id === booking.id)) return page;
    listed = true;
    return { ...page, items: page.items.map((item) => (item.id === booking.id ? newestBooking(item, booking) : item)) };
  });
  if (!listed) refreshListsSoon(client);
  // An offer stops being one once this driver is no longer asked.
  const stillOffered = booking.status === 'NEW' && booking.requestedDrivers?.[context.userId];
  if (!stillOffered) removeOffer(client, booking.id);
}

const LIST_REFRESH_MS = 1000;
const refreshTimers = new WeakMap<QueryClient, ReturnType<typeof setTimeout>>();

/** A booking no cached page holds (a new one, or one that now belongs on a
 * page): the lists on screen read again, at most once a second however busy
 * the platform is. */
function refreshListsSoon(client: QueryClient) {
  if (refreshTimers.has(client)) return;
  refreshTimers.set(
    client,
    setTimeout(() => {
      refreshTimers.delete(client);
      void client.invalidateQueries({ queryKey: queryKeys.bookings.list() });
    }, LIST_REFRESH_MS),
  );
}

/** `offer` carries the booking, its deadline and the driver's distance to the
 * pickup: `{booking, deadline, distance_km}`, or the booking with a `deadline` field. */
export function applyOffer(client: QueryClient, payload: unknown) {
  const offer = normaliseOffer(payload);
  if (!offer) return null;
  client.setQueryData<Offer[]>(queryKeys.tasks, (offers = []) => [
    ...offers.filter((existing) => existing.booking.id !== offer.booking.id),
    offer,
  ]);
  client.setQueryData<Booking>(queryKeys.bookings.detail(offer.booking.id), (current) => newestBooking(current, offer.booking));
  return offer;
}

export function normaliseOffer(payload: unknown): Offer | null {
  if (!payload || typeof payload !== 'object') return null;
  const record = payload as Record<string, unknown>;
  const booking = (typeof record.booking === 'object' && record.booking !== null ? record.booking : record) as Booking;
  if (!booking.id) return null;
  const deadline =
    typeof record.deadline === 'number' ? record.deadline : (booking.dispatch?.deadline ?? null);
  const distanceKm = typeof record.distance_km === 'number' ? record.distance_km : null;
  return { booking, deadline, distanceKm };
}

export function removeOffer(client: QueryClient, bookingId: string) {
  client.setQueryData<Offer[]>(queryKeys.tasks, (offers) =>
    offers ? offers.filter((offer) => offer.booking.id !== bookingId) : offers,
  );
}

export function applyOfferWithdrawn(
  client: QueryClient,
  payload: { booking: string; reason: WithdrawReason },
  context: EventContext,
) {
  const offers = client.getQueryData<Offer[]>(queryKeys.tasks);
  const hadIt = offers?.some((offer) => offer.booking.id === payload.booking) ?? false;
  const wording = wordingOf(client, payload.booking);
  removeOffer(client, payload.booking);
  context.dismissBooking?.(payload.booking);
  if (hadIt && payload.reason === 'taken') context.notify({ key: 'driver.offer_taken', severity: 'warning' });
  if (hadIt && payload.reason === 'cancelled') context.notify({ key: 'driver.offer_cancelled', severity: 'info', ...(wording ? { context: wording } : {}) });
  if (hadIt && payload.reason === 'expired') context.notify({ key: 'driver.offer_expired', severity: 'info' });
}

export function applyTracking(client: QueryClient, payload: { booking: string; point: TrackingPoint }) {
  client.setQueryData<Tracking>(queryKeys.tracking(payload.booking), (tracking) => ({
    latest: payload.point,
    points: [...(tracking?.points ?? []), payload.point],
  }));
}

function sameMessage(a: ChatMessage, b: ChatMessage) {
  return a.from === b.from && a.createdAt === b.createdAt && a.message === b.message;
}

export function appendChatMessage(client: QueryClient, bookingId: string, message: ChatMessage) {
  client.setQueryData<ChatMessage[]>(queryKeys.chat(bookingId), (messages = []) =>
    messages.some((existing) => sameMessage(existing, message)) ? messages : [...messages, message],
  );
}

export function applyChat(
  client: QueryClient,
  payload: { booking: string; message: ChatMessage },
  context: EventContext,
) {
  appendChatMessage(client, payload.booking, payload.message);
  if (payload.message.from !== context.userId) context.notify({ key: 'chat_requested' });
}

export function applyWallet(client: QueryClient, payload: { walletBalance: number }, context: EventContext) {
  client.setQueryData<Wallet>(queryKeys.wallet(context.userId), (wallet) =>
    wallet ? { ...wallet, walletBalance: payload.walletBalance } : wallet,
  );
  client.setQueryData<User | null>(queryKeys.me, (user) =>
    user ? { ...user, walletBalance: payload.walletBalance } : user,
  );
  // The new history entry comes with the next read.
  void client.invalidateQueries({ queryKey: queryKeys.wallet(context.userId) });
  // A driver's share moves their week's statement too (read again only when shown).
  void client.invalidateQueries({ queryKey: queryKeys.statementWeeks });
}

/** The wording of a booking's notices: its own category when this browser
 * holds it (an offer, a trip), else the platform's; a new booking request
 * may come before its offer does. */
export function wordingOf(client: QueryClient, bookingId: string | null | undefined): 'delivery' | undefined {
  if (!bookingId) return undefined;
  const booking =
    client.getQueryData<Booking>(queryKeys.bookings.detail(bookingId)) ??
    client.getQueryData<Offer[]>(queryKeys.tasks)?.find((offer) => offer.booking.id === bookingId)?.booking;
  return textContext(booking?.appcat ?? client.getQueryData<Settings | null>(queryKeys.settings)?.appcat);
}

export function applyNotification(
  payload: { key?: string; title?: string; body?: string; booking?: string | null },
  context: EventContext,
  wording?: 'delivery',
) {
  // Chat has its own toast; the others say what happened to a booking.
  if (payload.key === 'chat_requested') return;
  // An admin's broadcast is its own title and text; a booking notice's title
  // is only the app's name.
  const title = payload.key === 'broadcast' ? payload.title : undefined;
  context.notify({ key: payload.key ?? '', text: payload.body, title, severity: 'info', booking: payload.booking ?? undefined, ...(wording ? { context: wording } : {}) });
}

/** Every event the app listens to, for one place to subscribe and unsubscribe. */
export function serverEventHandlers(client: QueryClient, context: EventContext) {
  return {
    booking: (payload: Booking | { booking: Booking }) =>
      applyBooking(client, 'booking' in payload && typeof payload.booking === 'object' ? payload.booking : (payload as Booking), context),
    offer: (payload: unknown) => applyOffer(client, payload),
    offer_withdrawn: (payload: { booking: string; reason: WithdrawReason }) => applyOfferWithdrawn(client, payload, context),
    tracking: (payload: { booking: string; point: TrackingPoint }) => applyTracking(client, payload),
    chat: (payload: { booking: string; message: ChatMessage }) => applyChat(client, payload, context),
    wallet: (payload: { walletBalance: number }) => applyWallet(client, payload, context),
    notification: (payload: { key?: string; title?: string; body?: string; booking?: string | null }) =>
      applyNotification(payload, context, wordingOf(client, payload.booking)),
    drivers: (payload: unknown) => client.setQueryData(queryKeys.liveDrivers, payload),
    sos: (payload: SosAlertShown) => applySos(client, payload),
  } as const;
}

/** Issue #33: an alert raised, taken or resolved. The banners' list keeps
 * the open ones, newest first; the panel's pages and the alert's own query
 * take the new copy (a new alert makes the pages read again). */
export function applySos(client: QueryClient, alert: SosAlertShown) {
  if (!alert?.id) return;
  client.setQueryData<SosAlertShown[]>(queryKeys.sos.open, (open) => {
    if (open === undefined) return open;
    const others = open.filter((item) => item.id !== alert.id);
    return alert.state === 'open' ? [alert, ...others].sort((a, b) => b.created_at - a.created_at) : others;
  });
  client.setQueryData<SosAlertShown>(queryKeys.sos.detail(alert.id), (current) => (current ? alert : current));
  let listed = false;
  client.setQueriesData<Page<SosAlertShown>>({ queryKey: queryKeys.sos.list }, (page) => {
    if (!page?.items?.some((item) => item.id === alert.id)) return page;
    listed = true;
    return { ...page, items: page.items.map((item) => (item.id === alert.id ? alert : item)) };
  });
  if (!listed) void client.invalidateQueries({ queryKey: queryKeys.sos.list });
}

/** After a (re)connection, anything live may have changed while we were away. */
export function refreshLiveQueries(client: QueryClient) {
  void client.invalidateQueries({ queryKey: queryKeys.sos.all });
  void client.invalidateQueries({ queryKey: queryKeys.tasks });
  void client.invalidateQueries({ queryKey: queryKeys.bookings.all });
  void client.invalidateQueries({ queryKey: ['chat'] });
  void client.invalidateQueries({ queryKey: ['tracking'] });
}
