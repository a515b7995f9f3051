// Wayfare's service worker: shows the server's Web Push messages (RFC 8291,
// sent by http/src/notify/webpush.rs as {title, body, data, channel}) while
// the app's tab is in the background or closed, and brings the app forward
// when one is clicked. The app itself never caches through it.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let message = {};
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
