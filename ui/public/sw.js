// Wayfare's service worker: keeps the app's shell so the installed app opens
// like an app (also with a weak network), and shows the server's Web Push
// messages (RFC 8291, sent by http/src/notify/webpush.rs as {title, body,
// data, channel}) while the app's tab is in the background or closed.
//
// Only the shell is cached: the page itself (network first, the cached copy
// when the network fails) and the built files under /assets/, whose names
// change with their content (cache first). The API, the socket, tiles and
// uploads always go to the server: live data is never served stale.
const SHELL_CACHE = 'wayfare-shell-v1';
const SHELL = ['/', '/manifest.webmanifest', '/favicon.svg', '/icon-192.png', '/icon-512.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL))
      .catch(() => {})
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== SHELL_CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      (async () => {
        try {
          const fresh = await fetch(request);
          if (fresh.ok) {
            const cache = await caches.open(SHELL_CACHE);
            await cache.put('/', fresh.clone());
          }
          return fresh;
        } catch (error) {
          const cached = await caches.match('/');
          if (cached) return cached;
          throw error;
        }
      })(),
    );
    return;
  }
  if (url.pathname.startsWith('/assets/') || SHELL.includes(url.pathname)) {
    event.respondWith(
      (async () => {
        const cached = await caches.match(request);
        if (cached) return cached;
        const fresh = await fetch(request);
        if (fresh.ok) {
          const cache = await caches.open(SHELL_CACHE);
          await cache.put(request, fresh.clone());
        }
        return fresh;
      })(),
    );
  }
});

self.addEventListener('push', (event) => {
  let message;
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : '' };
  }
  const data = message.data || {};
  const booking = data.params && data.params.bookingId;
  const options = { body: message.body || '', data, icon: '/icon-192.png', badge: '/icon-192.png' };
  // One notification per booking, replaced as the trip moves on.
  if (booking) Object.assign(options, { tag: `booking-${booking}`, renotify: true });
  event.waitUntil(self.registration.showNotification(message.title || 'Wayfare', options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        return;
      }
      await self.clients.openWindow('/bookings');
    })(),
  );
});
