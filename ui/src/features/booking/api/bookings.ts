import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { newestBooking } from '@/lib/booking-version';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, Estimate, PaymentMode, Place } from '@/types/api';

export interface TripInput {
  pickup: Place;
  drop: Place;
  carType: string;
  parcelTypeIndex?: number;
  optionIndex?: number;
  /** The rider an admin books for (spec §4 "Add booking flow"). */
  customer?: string;
  /** A promo code: the estimate shows its discount, the booking keeps it. */
  promo?: string;
}

export interface DeliveryInput {
  deliveryPerson: string;
  deliveryPersonPhone: string;
  pickUpInstructions: string;
  deliveryInstructions: string;
}

export interface CreateBookingInput extends TripInput, Partial<DeliveryInput> {
  bookLater: boolean;
  tripdate?: number;
  payment_mode?: PaymentMode;
}

export function getEstimate(input: TripInput) {
  return api.post<Estimate>('/bookings/estimate', input);
}

export function createBooking(input: CreateBookingInput) {
  return api.post<Booking>('/bookings', input);
}

export function useEstimate() {
  return useMutation({ mutationFn: getEstimate, meta: { handlesErrors: true } });
}

export function useCreateBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createBooking,
    meta: { handlesErrors: true },
    onSuccess: (booking) => {
      client.setQueryData<Booking>(queryKeys.bookings.detail(booking.id), (current) => newestBooking(current, booking));
      void client.invalidateQueries({ queryKey: queryKeys.bookings.list() });
    },
  });
}
