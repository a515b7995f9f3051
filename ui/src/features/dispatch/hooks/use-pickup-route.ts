import { useEffect } from 'react';
import { usePickupRoute } from '../api/dispatch';
import { goingToPickup } from '../lib/bookings';
import type { ConsoleStore } from '../stores/console-store';
import { useConsoleTopic } from './use-console-topic';

/**
 * The focused booking's assigned driver follows the road to the pickup on
 * the map: its route is read from the server's router (and again every
 * 30 s) while the driver is on the way, and dropped when focus moves on.
 */
export function useFocusedPickupRoute(store: ConsoleStore, focused: string | null) {
  useConsoleTopic(store, 'bookings');
  const booking = focused ? store.bookings.get(focused)?.booking : null;
  const going = booking && booking.driver && goingToPickup(booking) ? { booking: booking.id, driver: booking.driver } : null;
  const route = usePickupRoute(going, () => (going ? store.locate(going.driver) : null), booking?.pickup ?? null);
  const id = going?.booking ?? null;
  const points = going ? route.data : null;
  useEffect(() => {
    if (!id || !points) return;
    store.setRoute(id, points);
    return () => store.setRoute(id, null);
  }, [store, id, points]);
}
