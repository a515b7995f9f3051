import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { assigned, testBooking } from '@/testing/fixtures';
import { testSettings, testUser } from '@/testing/test-utils';
import type { Booking, ChatMessage, Tracking, Wallet } from '@/types/api';
import type { Offer, Page } from '@/types/app';
import { serverEventHandlers } from '../lib/apply-server-event';

function setup(userId = 'user-driver-1') {
  const client = new QueryClient();
  const notify = vi.fn();
  const context = { userId, notify, dismissBooking: vi.fn() };
  const handlers = serverEventHandlers(client, context);
  return { client, notify, handlers, context };
}

const message = (overrides: Partial<ChatMessage> = {}): ChatMessage => ({
  message: 'On my way',
  from: 'user-driver-1',
  type: 'msg',
  msgDate: '11:21:2026',
  msgTime: '05:52',
  source: 'driver',
  smsId: null,
  createdAt: 1_795_240_000_000,
  ...overrides,
});

describe('socket events written into the query cache', () => {
  it('a booking event replaces the booking and its row in the list', () => {
    const { client, handlers } = setup('user-rider-1');
    client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), { items: [testBooking(), testBooking({ id: 'other' })], next: null });
    handlers.booking(assigned());
    expect(client.getQueryData<Booking>(queryKeys.bookings.detail('booking-1'))?.status).toBe('ACCEPTED');
    const list = client.getQueryData<Page<Booking>>(queryKeys.bookings.list());
    expect(list?.items.map((item) => item.status)).toEqual(['ACCEPTED', 'NEW']);
    expect(list?.items[0].driver_name).toBe('Driver 1');
  });

  it("a booking event keeps the dashboard's active bookings current once it has read them", () => {
    const { client, handlers } = setup('admin-1');
    client.setQueryData<Booking[]>(queryKeys.bookings.active, [testBooking({ status: 'NEW' })]);
    handlers.booking(assigned({ version: 2 }));
    handlers.booking(testBooking({ id: 'fresh', status: 'NEW' }));
    expect(client.getQueryData<Booking[]>(queryKeys.bookings.active)?.map((item) => [item.id, item.status])).toEqual([
      ['booking-1', 'ACCEPTED'],
      ['fresh', 'NEW'],
    ]);
    handlers.booking({ booking: testBooking({ id: 'fresh', status: 'CANCELLED', version: 2 }) });
    expect(client.getQueryData<Booking[]>(queryKeys.bookings.active)?.map((item) => item.id)).toEqual(['booking-1']);
  });

  it('a booking event older than the copy in the cache is ignored, in the booking and in the list', () => {
    const { client, handlers } = setup('user-rider-1');
    client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), { items: [assigned({ status: 'ARRIVED', version: 3 })], next: null });
    client.setQueryData<Booking>(queryKeys.bookings.detail('booking-1'), assigned({ status: 'ARRIVED', version: 3 }));
    handlers.booking(assigned({ version: 2 }));
    expect(client.getQueryData<Booking>(queryKeys.bookings.detail('booking-1'))?.status).toBe('ARRIVED');
    expect(client.getQueryData<Page<Booking>>(queryKeys.bookings.list())?.items[0].status).toBe('ARRIVED');
    handlers.booking(assigned({ status: 'STARTED', version: 4 }));
    expect(client.getQueryData<Booking>(queryKeys.bookings.detail('booking-1'))?.status).toBe('STARTED');
    expect(client.getQueryData<Page<Booking>>(queryKeys.bookings.list())?.items[0].status).toBe('STARTED');
  });

  it('a booking the list does not hold yet makes the lists read again, once a second however many arrive', () => {
    vi.useFakeTimers();
    const { client, handlers } = setup('user-rider-1');
    client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), { items: [], next: null });
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    for (let index = 0; index < 50; index++) handlers.booking(testBooking({ id: `new-${index}` }));
    expect(invalidate).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(client.getQueryState(queryKeys.bookings.list())?.isInvalidated).toBe(true);
    vi.useRealTimers();
  });

  it("a change updates the row on every cached page that holds it, the panel grid's included", () => {
    const { client, handlers } = setup('admin-1');
    const panelPage = [...queryKeys.bookings.list(), 'panel', { limit: 25 }];
    client.setQueryData<Page<Booking>>(panelPage, { items: [testBooking({ id: 'b1', status: 'NEW', version: 1 })], next: 'c1' });
    client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), { items: [testBooking({ id: 'b1', status: 'NEW', version: 1 })], next: null });
    handlers.booking(testBooking({ id: 'b1', status: 'ACCEPTED', version: 2 }));
    expect(client.getQueryData<Page<Booking>>(panelPage)?.items[0].status).toBe('ACCEPTED');
    expect(client.getQueryData<Page<Booking>>(queryKeys.bookings.list())?.items[0].status).toBe('ACCEPTED');
    // An older copy arriving late changes nothing.
    handlers.booking(testBooking({ id: 'b1', status: 'NEW', version: 1 }));
    expect(client.getQueryData<Page<Booking>>(panelPage)?.items[0].status).toBe('ACCEPTED');
  });

  it('an offer joins the driver\'s requests with its deadline, in either shape', () => {
    const { client, handlers } = setup();
    handlers.offer({ booking: testBooking(), deadline: 1234 });
    handlers.offer({ ...testBooking({ id: 'flat' }), deadline: 5678 });
    const offers = client.getQueryData<Offer[]>(queryKeys.tasks);
    expect(offers?.map((offer) => [offer.booking.id, offer.deadline])).toEqual([
      ['booking-1', 1234],
      ['flat', 5678],
    ]);
  });

  it('an offer keeps the driver\'s distance to the pickup when the server knows it', () => {
    const { client, handlers } = setup();
    handlers.offer({ booking: testBooking(), deadline: 1234, distance_km: 1.234 });
    handlers.offer({ booking: testBooking({ id: 'unknown' }), deadline: 1234, distance_km: null });
    expect(client.getQueryData<Offer[]>(queryKeys.tasks)?.map((offer) => offer.distanceKm)).toEqual([1.234, null]);
  });

  it('a withdrawn offer leaves the requests and says when another driver took it', () => {
    const { client, notify, handlers } = setup();
    handlers.offer({ booking: testBooking(), deadline: 1234 });
    handlers.offer_withdrawn({ booking: 'booking-1', reason: 'taken' });
    expect(client.getQueryData<Offer[]>(queryKeys.tasks)).toEqual([]);
    expect(notify).toHaveBeenCalledWith({ key: 'driver.offer_taken', severity: 'warning' });
  });

  it('a booking accepted by someone else drops the offer', () => {
    const { client, handlers } = setup();
    handlers.offer({ booking: testBooking(), deadline: 1234 });
    handlers.booking(assigned({ driver: 'user-driver-2' }));
    expect(client.getQueryData<Offer[]>(queryKeys.tasks)).toEqual([]);
  });

  it('a tracking point becomes the latest position of the car', () => {
    const { client, handlers } = setup('user-rider-1');
    const point = { at: 1, status: 'ACCEPTED' as const, lat: 39.28, lng: -76.59 };
    handlers.tracking({ booking: 'booking-1', point });
    handlers.tracking({ booking: 'booking-1', point: { ...point, at: 2, lat: 39.281 } });
    const tracking = client.getQueryData<Tracking>(queryKeys.tracking('booking-1'));
    expect(tracking?.latest?.lat).toBe(39.281);
    expect(tracking?.points).toHaveLength(2);
  });

  it('a chat message is added once, even when the sender also stored it', () => {
    const { client, notify, handlers } = setup('user-rider-1');
    client.setQueryData<ChatMessage[]>(queryKeys.chat('booking-1'), [message({ createdAt: 1, message: 'Hi' })]);
    handlers.chat({ booking: 'booking-1', message: message() });
    handlers.chat({ booking: 'booking-1', message: message() });
    expect(client.getQueryData<ChatMessage[]>(queryKeys.chat('booking-1'))?.map((entry) => entry.message)).toEqual(['Hi', 'On my way']);
    expect(notify).toHaveBeenCalledWith({ key: 'chat_requested' });
  });

  it("a wallet event updates the balance of the wallet and of the signed-in user, and marks the driver's statements stale", () => {
    const { client, handlers } = setup();
    client.setQueryData<Wallet>(queryKeys.wallet('user-driver-1'), { walletBalance: 0, walletHistory: [], next: null });
    client.setQueryData(queryKeys.me, testUser({ id: 'user-driver-1', usertype: 'driver' }));
    client.setQueryData(queryKeys.statementWeeks, { weeks: [] });
    handlers.wallet({ walletBalance: 7 });
    expect(client.getQueryData<Wallet>(queryKeys.wallet('user-driver-1'))?.walletBalance).toBe(7);
    expect(client.getQueryData<{ walletBalance: number }>(queryKeys.me)?.walletBalance).toBe(7);
    expect(client.getQueryState(queryKeys.statementWeeks)?.isInvalidated).toBe(true);
  });

  it('a notification is shown by its translation key, with the server text as a fallback', () => {
    const { notify, handlers } = setup('user-rider-1');
    handlers.notification({ key: 'driver_arrived', title: 'Wayfare', body: 'Your driver has arrived.', booking: 'booking-1' });
    // Tagged with its booking, so answering that booking's offer takes the toast away.
    expect(notify).toHaveBeenCalledWith({ key: 'driver_arrived', text: 'Your driver has arrived.', title: undefined, severity: 'info', booking: 'booking-1' });
  });

  it("a withdrawn offer takes that booking's toasts away", () => {
    const { handlers, context } = setup('user-driver-1');
    handlers.offer_withdrawn({ booking: 'booking-1', reason: 'expired' });
    expect(context.dismissBooking).toHaveBeenCalledWith('booking-1');
  });

  it('an admin broadcast is shown with its own title', () => {
    const { notify, handlers } = setup('user-driver-1');
    handlers.notification({ key: 'broadcast', title: 'Road closure', body: 'Pratt St is closed tonight.' });
    expect(notify).toHaveBeenCalledWith({ key: 'broadcast', text: 'Pratt St is closed tonight.', title: 'Road closure', severity: 'info' });
  });

  it("a parcel's request is told in delivery words: from the booking this browser holds, else the platform's service", () => {
    const { client, notify, handlers } = setup('user-driver-1');
    client.setQueryData(queryKeys.settings, { ...testSettings, appcat: 'taxi' });
    client.setQueryData<Offer[]>(queryKeys.tasks, [{ booking: testBooking({ id: 'parcel-1', appcat: 'delivery' }), deadline: null }]);
    handlers.notification({ key: 'accept_booking_request', body: 'You have a new booking request.', booking: 'parcel-1' });
    expect(notify).toHaveBeenLastCalledWith(expect.objectContaining({ key: 'accept_booking_request', booking: 'parcel-1', context: 'delivery' }));
    // The request may come before its offer: the platform's service says.
    handlers.notification({ key: 'accept_booking_request', booking: 'ride-1' });
    expect(notify.mock.lastCall?.[0]).not.toHaveProperty('context');
    client.setQueryData(queryKeys.settings, { ...testSettings, appcat: 'delivery' });
    handlers.notification({ key: 'accept_booking_request', booking: 'parcel-2' });
    expect(notify).toHaveBeenLastCalledWith(expect.objectContaining({ booking: 'parcel-2', context: 'delivery' }));
    // A taxi booking kept from before the switch keeps its words.
    client.setQueryData(queryKeys.bookings.detail('ride-2'), testBooking({ id: 'ride-2', appcat: 'taxi' }));
    handlers.notification({ key: 'accept_booking_request', booking: 'ride-2' });
    expect(notify.mock.lastCall?.[0]).not.toHaveProperty('context');
  });

  it("a sender's cancelled request says the sender", () => {
    const { client, notify, handlers } = setup('user-driver-1');
    client.setQueryData<Offer[]>(queryKeys.tasks, [{ booking: testBooking({ id: 'parcel-1', appcat: 'delivery' }), deadline: null }]);
    handlers.offer_withdrawn({ booking: 'parcel-1', reason: 'cancelled' });
    expect(notify).toHaveBeenCalledWith({ key: 'driver.offer_cancelled', severity: 'info', context: 'delivery' });
  });
});
