import { atom } from 'jotai';
import { appStore } from '@/lib/store';

export type NotificationSeverity = 'success' | 'info' | 'warning' | 'error';

export interface AppNotification {
  id: number;
  severity: NotificationSeverity;
  /** A translation key, or already translated text when `translated`. */
  message: string;
  values?: Record<string, string | number>;
  translated?: boolean;
  /** A heading above the message, as given (an admin's broadcast title). */
  title?: string;
  /** The booking it is about: gone once that booking's offer is answered. */
  booking?: string;
}

export const notificationsAtom = atom<AppNotification[]>([]);

let nextId = 1;

export function notify(notification: Omit<AppNotification, 'id'>) {
  const entry = { ...notification, id: nextId++ };
  appStore.set(notificationsAtom, (current) => [...current.slice(-3), entry]);
  return entry.id;
}

export function dismissNotification(id: number) {
  appStore.set(notificationsAtom, (current) => current.filter((entry) => entry.id !== id));
}

/** Takes away the toasts about a booking (an offer the driver answered, or that went away). */
export function dismissBookingNotifications(booking: string) {
  appStore.set(notificationsAtom, (current) => (current.some((entry) => entry.booking === booking) ? current.filter((entry) => entry.booking !== booking) : current));
}
