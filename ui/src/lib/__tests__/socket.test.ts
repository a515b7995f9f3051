import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectSocket, disconnectSocket, socketStatusAtom } from '@/lib/socket';
import { appStore } from '@/lib/store';

const fake = vi.hoisted(() => ({ socket: null as null | (import('node:events').EventEmitter & { active: boolean; connected: boolean; disconnect: () => void }) }));

vi.mock('socket.io-client', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  return {
    io: () => {
      fake.socket = Object.assign(new Emitter(), { active: true, connected: false, disconnect: () => undefined });
      return fake.socket;
    },
  };
});

describe('the socket status', () => {
  afterEach(() => disconnectSocket());

  it('stays connecting while the client retries, and says offline once the server refused the handshake', () => {
    connectSocket();
    const socket = fake.socket as EventEmitter & { active: boolean };
    expect(appStore.get(socketStatusAtom)).toBe('connecting');
    socket.emit('connect');
    expect(appStore.get(socketStatusAtom)).toBe('connected');
    socket.emit('disconnect');
    socket.emit('connect_error', new Error('xhr poll error'));
    expect(appStore.get(socketStatusAtom)).toBe('connecting');
    socket.active = false;
    socket.emit('connect_error', new Error('require_approval'));
    expect(appStore.get(socketStatusAtom)).toBe('offline');
  });
});
