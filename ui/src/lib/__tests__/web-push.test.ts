import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi } from '@/testing/mock-api';
import { enablePush, pushState, syncPush, vapidKeyBytes } from '../web-push';

const KEY = 'BAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8';

/** A browser with a service worker and push: `permission` is what the user answers. */
function fakeBrowser(permission: NotificationPermission, existing: object | null = null) {
  const subscribed = { toJSON: () => ({ endpoint: 'https://push.example/abc', keys: { p256dh: 'p', auth: 'a' } }) };
  const pushManager = {
    getSubscription: vi.fn(async () => existing),
    subscribe: vi.fn(async (_options: PushSubscriptionOptionsInit) => subscribed),
  };
  const register = vi.fn(async (_url: string) => ({ pushManager }));
  vi.stubGlobal('navigator', { ...navigator, serviceWorker: { register, ready: Promise.resolve({}) } });
  vi.stubGlobal('PushManager', function PushManager() {});
  const notification = { permission: 'default' as NotificationPermission, requestPermission: vi.fn(async () => permission) };
  vi.stubGlobal('Notification', notification);
  return { pushManager, register, notification };
}

afterEach(() => vi.unstubAllGlobals());

describe('Web Push in the browser', () => {
  it('decodes the server’s base64url VAPID key to the 65 bytes of a P-256 point', () => {
    const bytes = vapidKeyBytes(KEY);
    expect(bytes.length).toBe(65);
    expect(bytes[0]).toBe(0x04);
    expect(bytes[64]).toBe(0x3f);
  });

  it('asks on a click, subscribes with the server’s key, and saves the subscription as the push token', async () => {
    const api = mockApi({
      'GET /api/v1/push/config': () => ({ senders: ['webpush'], vapidPublicKey: KEY }),
      'PUT /api/v1/push/token': () => ({}),
    });
    const browser = fakeBrowser('granted');
    expect(await pushState()).toBe('default');
    expect(await enablePush()).toBe('granted');
    expect(browser.register).toHaveBeenCalledWith('/sw.js');
    const options = browser.pushManager.subscribe.mock.calls[0][0];
    expect(options.userVisibleOnly).toBe(true);
    expect(Array.from(options.applicationServerKey as Uint8Array)).toEqual(Array.from(vapidKeyBytes(KEY)));
    const saved = api.calls.find((call) => call.method === 'PUT' && call.path === '/api/v1/push/token');
    expect(saved?.body).toEqual({ pushToken: JSON.stringify({ endpoint: 'https://push.example/abc', keys: { p256dh: 'p', auth: 'a' } }), userPlatform: 'WEB' });
  });

  it('saves nothing when the user refuses, and offers nothing when the server has no Web Push', async () => {
    const api = mockApi({ 'GET /api/v1/push/config': () => ({ senders: ['webpush'], vapidPublicKey: KEY }) });
    const browser = fakeBrowser('denied');
    expect(await enablePush()).toBe('denied');
    expect(browser.pushManager.subscribe).not.toHaveBeenCalled();
    expect(api.calls.some((call) => call.method === 'PUT')).toBe(false);
    mockApi({ 'GET /api/v1/push/config': () => ({ senders: [], vapidPublicKey: null }) });
    expect(await pushState()).toBe('unavailable');
  });

  it('keeps a granted browser’s existing subscription current after a sign-in, without asking again', async () => {
    const existing = { toJSON: () => ({ endpoint: 'https://push.example/old', keys: { p256dh: 'p', auth: 'a' } }) };
    const api = mockApi({
      'GET /api/v1/push/config': () => ({ senders: ['webpush'], vapidPublicKey: KEY }),
      'PUT /api/v1/push/token': () => ({}),
    });
    const browser = fakeBrowser('granted', existing);
    browser.notification.permission = 'granted';
    await syncPush();
    expect(browser.notification.requestPermission).not.toHaveBeenCalled();
    expect(browser.pushManager.subscribe).not.toHaveBeenCalled();
    const saved = api.calls.find((call) => call.method === 'PUT');
    expect(JSON.parse((saved?.body as { pushToken: string }).pushToken).endpoint).toBe('https://push.example/old');
  });
});
