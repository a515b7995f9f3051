// The handshake: no token and a bad token are refused with `not_logged_in`
// as the connect_error's message; the session token works in `auth`, as a
// bearer header and as the web app's cookie; a signed-out token is refused.

import assert from 'node:assert/strict';
import { Client, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(60_000);

async function refusal(client) {
  const error = await client.expect('$connect_error');
  client.close();
  return error.message;
}

run('handshake', async () => {
  assert.equal(await refusal(new Client('anonymous', {})), 'not_logged_in');
  assert.equal(await refusal(Client.withToken('bad token', 'not-a-session-token')), 'not_logged_in');
  assert.equal(await refusal(Client.withToken('empty token', '')), 'not_logged_in');
  log('missing and bad tokens refused with not_logged_in');

  const rider = await signIn('rider3@demo.wayfare');
  const byAuth = Client.withToken('auth token', rider.token);
  await byAuth.connected();
  const byCookie = new Client('cookie', { extraHeaders: { cookie: `theme=dark; wayfare_session=${rider.token}` } });
  await byCookie.connected();
  const byBearer = new Client('bearer', { extraHeaders: { authorization: `Bearer ${rider.token}` } });
  await byBearer.connected();
  log('the session token is accepted in auth, as a cookie and as a bearer header');

  // A rider has no `location` to send.
  const refused = await byAuth.location({ lat: 39.29, lng: -76.6 });
  assert.equal(refused.error.code, 'not_allowed');

  await must(200, 'POST', '/auth/logout', { token: rider.token });
  assert.equal(await refusal(Client.withToken('signed out', rider.token)), 'not_logged_in');
  log('a signed-out token is refused');
  for (const client of [byAuth, byCookie, byBearer]) client.close();
});
