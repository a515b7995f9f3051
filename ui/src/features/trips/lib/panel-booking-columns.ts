// The panel grid's columns (spec §2 "Bookings"): every column of the spec,
// the fare split for admins and fleet admins (never riders, who have their
// own view), the delivery columns only on a delivery platform. The common
// columns come from the bookings table's definitions, so both views agree.
import type { Booking, Role, Settings } from '@/types/api';
import { visibleColumns } from './booking-columns';

/** Columns a dispatcher rarely needs at a glance: in the column menu, hidden at first. */
export const INITIALLY_HIDDEN = ['id', 'otp', 'trip_start_time', 'trip_end_time', 'total_trip_time', 'gateway', 'cashPaymentAmount', 'cardPaymentAmount', 'usedWalletMoney', 'reason', 'cancellationFee'];

export interface PanelColumn {
  field: string;
  /** Translation key of the header. */
  label: string;
  /** How the cell draws: a chip, a thumbnail, wrapped text, right-aligned figures, or text. */
  kind: 'text' | 'numeric' | 'status' | 'image' | 'address';
  /** The text shown (and exported); images give their URL. */
  text: (booking: Booking, t: (key: string, values?: Record<string, unknown>) => string) => string;
}

export function panelBookingColumns(settings: Settings, role: Role): PanelColumn[] {
  const shared: PanelColumn[] = visibleColumns(settings, role).map((column) => ({
    field: column.id,
    label: column.label,
    kind: column.id === 'status' ? 'status' : column.id.endsWith('Address') ? 'address' : column.numeric ? 'numeric' : 'text',
    text: (booking, t) => (column.text ? column.text(booking, t) : String(column.value(booking) ?? '')),
  }));
  const id: PanelColumn = { field: 'id', label: 'table.id', kind: 'text', text: (booking) => booking.id };
  // A dispatcher reads the status first: it follows the reference, always in view.
  const status = shared.filter((column) => column.field === 'status');
  const rest = shared.filter((column) => column.field !== 'status');
  const columns = [id, ...rest.slice(0, 1), ...status, ...rest.slice(1)];
  if (settings.appcat === 'delivery') {
    columns.push(
      { field: 'pickup_image', label: 'table.pickup_image', kind: 'image', text: (booking) => booking.pickup_image ?? '' },
      { field: 'deliver_image', label: 'table.deliver_image', kind: 'image', text: (booking) => booking.deliver_image ?? '' },
    );
  }
  return columns;
}
