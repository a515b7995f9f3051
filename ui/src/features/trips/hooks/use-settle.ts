import { useTranslation } from 'react-i18next';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import type { Booking } from '@/types/api';
import { useSettleBooking, type SettleMode } from '../api/booking-admin';

/** "Mark paid" (card, paid outside the app) and "Settle in cash" for a trip
 * that reached its drop: asked once in the shared confirm dialog, then
 * sent; the booking's page and the money owed screen both use it. */
export function useSettleWithConfirm() {
  const { t } = useTranslation();
  const settings = useSettings();
  const settle = useSettleBooking();
  const run = async (booking: Booking, mode: SettleMode) => {
    const yes = await confirm({
      title: `booking_page.settle_${mode}_title`,
      message: t(`booking_page.settle_${mode}_message`, {
        reference: booking.reference,
        amount: formatMoney(booking.payableAmount || booking.trip_cost, settings),
        driver: booking.driver_name || '—',
      }),
      confirmLabel: `booking_page.settle_${mode}`,
    });
    if (!yes) return;
    settle.mutate({ id: booking.id, mode }, { onSuccess: () => notify({ severity: 'success', message: `booking_page.settled_${mode}` }) });
  };
  return { run, isPending: settle.isPending };
}
