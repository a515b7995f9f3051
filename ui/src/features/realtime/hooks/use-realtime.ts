import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { dismissBookingNotifications, notify } from '@/components/ui/notifications/notifications-store';
import { connectSocket, disconnectSocket } from '@/lib/socket';
import { refreshLiveQueries, serverEventHandlers } from '../lib/apply-server-event';

/** Keeps the socket open while someone is signed in and writes its events into the cache. */
export function useRealtime(userId: string | undefined) {
  const client = useQueryClient();
  const { i18n } = useTranslation();
  useEffect(() => {
    if (!userId) return;
    const socket = connectSocket();
    const handlers = serverEventHandlers(client, {
      userId,
      notify: ({ key, text, title, severity, booking, context }) => {
        // A key we know is shown in this browser's language (in the booking's
        // words); otherwise the server's text (in the user's language as the
        // server knows it, or an admin's broadcast).
        if (key && i18n.exists(key)) notify({ severity: severity ?? 'info', message: key, booking, ...(context ? { values: { context } } : {}) });
        else if (text) notify({ severity: severity ?? 'info', message: text, title, translated: true, booking });
      },
      dismissBooking: dismissBookingNotifications,
    });
    const onConnect = () => refreshLiveQueries(client);
    socket.on('connect', onConnect);
    for (const [event, handler] of Object.entries(handlers)) socket.on(event, handler as (...args: unknown[]) => void);
    return () => {
      socket.off('connect', onConnect);
      for (const [event, handler] of Object.entries(handlers)) socket.off(event, handler as (...args: unknown[]) => void);
      disconnectSocket();
    };
  }, [client, userId, i18n]);
}
