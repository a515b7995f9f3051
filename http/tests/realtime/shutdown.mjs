// A graceful stop with a console and a driver connected: the Rust side sends
// SIGTERM when this prints `@@TERM`; the server must close both connections
// while its fan-out keeps ticking, and exit on its own (the Rust side checks
// its status and log). The clients see "transport close", which
// socket.io-client answers by reconnecting (to the server's next start, or
// another node), unlike "io server disconnect".

import assert from 'node:assert/strict';
import { Client, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(60_000);

const SPOT = { lat: 39.286, lng: -76.58 };

run('shutdown', async () => {
  const [admin, driver] = await Promise.all([signIn('admin@demo.wayfare'), signIn('driver1@demo.wayfare')]);
  const console_ = new Client('admin', { auth: { token: admin.token }, reconnection: false });
  const car = new Client('driver1', { auth: { token: driver.token }, reconnection: false });
  await Promise.all([console_.connected(), car.connected()]);
  await must(200, 'POST', '/drivers/me/status', { token: driver.token, body: { driverActiveStatus: true } });
  await car.location(SPOT);
  // The console is being fed: figures, hexes and the driver on the map.
  await console_.expect('console');
  await console_.expect('hexes');
  await console_.expect('drivers', (items) => Array.isArray(items) && items.some((item) => item.id === driver.user.id));
  console.log('@@TERM');
  const reasons = await Promise.all([console_.expect('$disconnect'), car.expect('$disconnect')]);
  assert.deepEqual(
    reasons.map((reason) => reason.reason ?? reason),
    ['transport close', 'transport close'],
    'the server closed both connections, and the clients will reconnect',
  );
  log('both sockets closed by the server');
});
