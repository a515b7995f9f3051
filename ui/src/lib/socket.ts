// The one Socket.IO connection of a signed-in user (DESIGN.md "Socket.IO"):
// the handshake carries `auth: {token}` when this page signed in, and the
// `wayfare_session` cookie otherwise.
import { atom } from 'jotai';
import { io, type Socket } from 'socket.io-client';
import { getBearerToken } from '@/lib/api-client';
import { appStore } from '@/lib/store';
import type { LatLng } from '@/types/api';

export type SocketStatus = 'offline' | 'connecting' | 'connected';

export const socketStatusAtom = atom<SocketStatus>('offline');

let socket: Socket | null = null;

export function connectSocket(): Socket {
  if (socket) return socket;
  socket = io({
    path: '/socket.io',
    // Polling first, then the upgrade: a server without the socket yet
    // answers the polling request harmlessly instead of failing a handshake.
    transports: ['polling', 'websocket'],
    withCredentials: true,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 10_000,
    auth: (callback) => {
      const token = getBearerToken();
      callback(token ? { token } : {});
    },
  });
  appStore.set(socketStatusAtom, 'connecting');
  socket.on('connect', () => appStore.set(socketStatusAtom, 'connected'));
  socket.on('disconnect', () => appStore.set(socketStatusAtom, 'connecting'));
  // A refused handshake (`not_logged_in`, `require_approval`, …) is not
  // retried by the client (docs/api.md "Handshake"): say offline, not connecting.
  socket.on('connect_error', () => appStore.set(socketStatusAtom, socket?.active ? 'connecting' : 'offline'));
  return socket;
}

export function disconnectSocket() {
  socket?.removeAllListeners();
  socket?.disconnect();
  socket = null;
  appStore.set(socketStatusAtom, 'offline');
}

export function currentSocket() {
  return socket;
}

export interface LocationPayload extends LatLng {
  heading?: number;
  speed?: number;
  accuracy?: number;
  at?: number;
}

export type LocationAck = { ok: true } | { error: { code: string; message: string } };

/** Sends the driver's position over the socket; null when not connected. */
export function emitLocation(payload: LocationPayload, timeoutMs = 5000): Promise<LocationAck> | null {
  if (!socket?.connected) return null;
  const connected = socket;
  return new Promise((resolve) => {
    connected.timeout(timeoutMs).emit('location', payload, (error: Error | null, ack: LocationAck) => {
      if (error) resolve({ error: { code: 'unavailable', message: error.message } });
      else resolve(ack);
    });
  });
}
