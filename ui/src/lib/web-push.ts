// Web Push in the browser (issue #12): the service worker, the permission
// prompt and the subscription, saved with PUT /push/token so the server can
// tell a driver of an offer while their tab is in the background.
import { api } from './api-client';

export type PushState = 'unsupported' | 'unavailable' | 'default' | 'denied' | 'granted';

interface PushConfig {
  senders: string[];
  vapidPublicKey: string | null;
}

export const SERVICE_WORKER_URL = '/sw.js';

export function pushSupported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** The VAPID key as the bytes `applicationServerKey` wants (base64url, unpadded). */
export function vapidKeyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4);
  const text = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/** Where push stands for this browser and server, without asking anything. */
export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return 'unsupported';
  const config = await api.get<PushConfig>('/push/config');
  if (!config.vapidPublicKey) return 'unavailable';
  return Notification.permission as PushState;
}

async function subscription(config: PushConfig) {
  const registration = await navigator.serviceWorker.register(SERVICE_WORKER_URL);
  await navigator.serviceWorker.ready;
  const existing = await registration.pushManager.getSubscription();
  return existing ?? registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: vapidKeyBytes(config.vapidPublicKey!) });
}

async function save(subscribed: PushSubscription) {
  await api.put('/push/token', { pushToken: JSON.stringify(subscribed.toJSON()), userPlatform: 'WEB' });
}

/** Asks for permission (call it from a click), subscribes and saves the subscription. */
export async function enablePush(): Promise<PushState> {
  if (!pushSupported()) return 'unsupported';
  const config = await api.get<PushConfig>('/push/config');
  if (!config.vapidPublicKey) return 'unavailable';
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return permission as PushState;
  await save(await subscription(config));
  return 'granted';
}

/** After a sign-in: a browser that already allowed push keeps the server's copy of its subscription current. */
export async function syncPush(): Promise<void> {
  if (!pushSupported() || Notification.permission !== 'granted') return;
  const config = await api.get<PushConfig>('/push/config');
  if (!config.vapidPublicKey) return;
  await save(await subscription(config));
}
