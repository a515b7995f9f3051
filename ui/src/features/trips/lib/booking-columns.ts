// The bookings table's columns (spec §2 "Bookings"), with the fare split
// hidden from riders and the delivery columns only for delivery.
import { reasonText } from '@/lib/booking-reason';
import { distanceIn, durationKey, formatDateTime, formatMoney } from '@/lib/format';
import type { Booking, Role, Settings } from '@/types/api';

export interface BookingColumn {
  id: string;
  /** Translation key of the header. */
  label: string;
  value: (booking: Booking) => string | number;
  /** Text shown, when it differs from the sortable value. */
  text?: (booking: Booking, t: (key: string, values?: Record<string, unknown>) => string) => string;
  riderHidden?: boolean;
  deliveryOnly?: boolean;
  numeric?: boolean;
}

export function bookingColumns(settings: Settings): BookingColumn[] {
  const money = (amount: number | undefined) => formatMoney(amount ?? 0, settings);
  return [
    { id: 'reference', label: 'table.reference', value: (b) => b.reference },
    { id: 'tripdate', label: 'table.trip_date', value: (b) => b.tripdate, text: (b) => formatDateTime(b.tripdate) },
    { id: 'carType', label: 'table.car_type', value: (b) => b.carType },
    { id: 'customer_name', label: 'table.customer', value: (b) => b.customer_name ?? '' },
    { id: 'pickupAddress', label: 'table.pickup', value: (b) => b.pickupAddress },
    { id: 'dropAddress', label: 'table.drop', value: (b) => b.dropAddress },
    { id: 'driver_name', label: 'table.driver', value: (b) => b.driver_name ?? '' },
    { id: 'status', label: 'table.status', value: (b) => b.status, text: (b, t) => t(`status.${b.status}`) },
    { id: 'reason', label: 'table.cancel_reason', value: (b) => b.reason ?? '', text: (b, t) => reasonText(b.reason, t) },
    { id: 'cancellationFee', label: 'table.cancellation_fee', value: (b) => b.cancellationFee ?? 0, text: (b) => money(b.cancellationFee), numeric: true },
    { id: 'otp', label: 'table.otp', value: (b) => (b.otp === false ? '' : String(b.otp)) },
    { id: 'trip_cost', label: 'table.trip_cost', value: (b) => b.trip_cost, text: (b) => money(b.trip_cost), numeric: true },
    { id: 'trip_start_time', label: 'table.start_time', value: (b) => b.trip_start_time ?? 0, text: (b) => formatDateTime(b.trip_start_time) },
    { id: 'trip_end_time', label: 'table.end_time', value: (b) => b.trip_end_time ?? 0, text: (b) => formatDateTime(b.trip_end_time) },
    {
      id: 'total_trip_time',
      label: 'table.total_time',
      value: (b) => b.total_trip_time ?? 0,
      text: (b, t) => {
        if (!b.total_trip_time) return '';
        const time = durationKey(b.total_trip_time);
        return t(time.key, time.values);
      },
      numeric: true,
    },
    {
      id: 'distance',
      label: 'table.distance',
      value: (b) => b.distance || b.estimateDistance,
      text: (b, t) => {
        const distance = distanceIn(b.distance || b.estimateDistance, settings);
        return t(distance.unit, { value: distance.value });
      },
      numeric: true,
    },
    { id: 'vehicle_number', label: 'table.vehicle_number', value: (b) => b.vehicle_number ?? '' },
    { id: 'driver_share', label: 'table.driver_share', value: (b) => b.driver_share ?? 0, text: (b) => money(b.driver_share), riderHidden: true, numeric: true },
    {
      id: 'convenience_fees',
      label: 'table.convenience_fee',
      value: (b) => b.convenience_fees ?? 0,
      text: (b) => money(b.convenience_fees),
      riderHidden: true,
      numeric: true,
    },
    { id: 'discount_amount', label: 'table.discount', value: (b) => b.discount_amount ?? 0, text: (b) => money(b.discount_amount), numeric: true },
    { id: 'customer_paid', label: 'table.customer_paid', value: (b) => b.customer_paid ?? 0, text: (b) => money(b.customer_paid), numeric: true },
    { id: 'payment_mode', label: 'table.payment_mode', value: (b) => b.payment_mode ?? '', text: (b, t) => (b.payment_mode ? t(`payment.mode.${b.payment_mode}`) : '') },
    { id: 'gateway', label: 'table.gateway', value: (b) => b.gateway ?? '' },
    { id: 'cashPaymentAmount', label: 'table.cash', value: (b) => b.cashPaymentAmount ?? 0, text: (b) => money(b.cashPaymentAmount), numeric: true },
    { id: 'cardPaymentAmount', label: 'table.card', value: (b) => b.cardPaymentAmount ?? 0, text: (b) => money(b.cardPaymentAmount), numeric: true },
    { id: 'usedWalletMoney', label: 'table.wallet', value: (b) => b.usedWalletMoney ?? 0, text: (b) => money(b.usedWalletMoney), numeric: true },
    { id: 'deliveryPerson', label: 'table.delivery_person', value: (b) => b.deliveryPerson ?? '', deliveryOnly: true },
    { id: 'deliveryPersonPhone', label: 'table.delivery_phone', value: (b) => b.deliveryPersonPhone ?? '', deliveryOnly: true },
    { id: 'pickUpInstructions', label: 'table.pickup_instructions', value: (b) => b.pickUpInstructions ?? '', deliveryOnly: true },
    { id: 'deliveryInstructions', label: 'table.delivery_instructions', value: (b) => b.deliveryInstructions ?? '', deliveryOnly: true },
    { id: 'parcelTypeSelected', label: 'table.parcel_type', value: (b) => b.parcelTypeSelected?.description ?? '', deliveryOnly: true },
    { id: 'optionSelected', label: 'table.parcel_option', value: (b) => b.optionSelected?.description ?? '', deliveryOnly: true },
  ];
}

export function visibleColumns(settings: Settings, role: Role) {
  return bookingColumns(settings).filter(
    (column) => !(column.riderHidden && role === 'rider') && !(column.deliveryOnly && settings.appcat !== 'delivery'),
  );
}

export function matchesSearch(booking: Booking, search: string) {
  const text = search.trim().toLowerCase();
  if (!text) return true;
  return [booking.reference, booking.pickupAddress, booking.dropAddress, booking.customer_name, booking.driver_name, booking.status, booking.carType, booking.vehicle_number]
    .some((value) => value?.toLowerCase().includes(text));
}
