#!/usr/bin/env node
// A TCP proxy whose link can be cut, for benches/chaos/cluster.sh: node3
// reaches Redis through it, so its network to Redis can be dropped while
// the other nodes keep theirs.
//
//   node tcp-proxy.mjs LISTEN_PORT TARGET_HOST:TARGET_PORT
//
// Listens on 127.0.0.1:LISTEN_PORT and forwards each connection to the
// target. SIGUSR1 drops the link: every connection is reset and the port is
// closed, so new connections are refused. SIGUSR2 restores it (listens
// again). SIGTERM or SIGINT stops it. Prints one line per event, with the time.

import net from 'node:net';

const [port, target] = process.argv.slice(2);
const [targetHost, targetPort] = (target ?? '').split(':');
if (!/^\d+$/.test(port ?? '') || !targetHost || !/^\d+$/.test(targetPort ?? '')) {
  console.error('usage: node tcp-proxy.mjs LISTEN_PORT TARGET_HOST:TARGET_PORT');
  process.exit(2);
}

const say = (text) => console.log(`${new Date().toISOString()} tcp-proxy: ${text}`);
const pairs = new Set();
let server = null;
let accepted = 0;

function reset(socket) {
  if (typeof socket.resetAndDestroy === 'function' && !socket.destroyed && socket._handle) socket.resetAndDestroy();
  else socket.destroy();
}

function listen() {
  return new Promise((resolve, reject) => {
    server = net.createServer((client) => {
      accepted += 1;
      const upstream = net.connect(Number(targetPort), targetHost);
      const pair = [client, upstream];
      pairs.add(pair);
      for (const socket of pair) {
        socket.setNoDelay(true);
        socket.on('error', () => {});
        socket.on('close', () => {
          pairs.delete(pair);
          for (const other of pair) if (other !== socket) other.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.once('error', reject);
    server.listen(Number(port), '127.0.0.1', () => resolve());
  });
}

async function drop() {
  if (!server) return say('already dropped');
  const closing = server;
  server = null;
  closing.close();
  const count = pairs.size;
  for (const pair of [...pairs]) for (const socket of pair) reset(socket);
  say(`link dropped: ${count} connections reset, new ones refused`);
}

async function restore() {
  if (server) return say('already up');
  await listen();
  say(`link restored: listening on 127.0.0.1:${port} again`);
}

process.on('SIGUSR1', () => drop().catch((error) => say(`drop failed: ${error.message}`)));
process.on('SIGUSR2', () => restore().catch((error) => say(`restore failed: ${error.message}`)));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    say(`stopping (${accepted} connections accepted in all)`);
    process.exit(0);
  });
}

// While the port is closed nothing else keeps the process alive.
setInterval(() => {}, 1 << 30);
await listen();
say(`listening on 127.0.0.1:${port}, forwarding to ${targetHost}:${targetPort}`);
