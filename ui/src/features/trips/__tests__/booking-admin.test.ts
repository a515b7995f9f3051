import { describe, expect, it } from 'vitest';
import { assigned, testBooking } from '@/testing/fixtures';
import type { Booking, BookingStatus } from '@/types/api';
import { fareLines, ledgerKind, operatorActions, refundable, refundLimit, refundProblem, stageTimes } from '../lib/booking-admin';

const NOW = Date.UTC(2026, 10, 21, 12, 0);
const MINUTE = 60_000;
const at = (status: BookingStatus, overrides: Partial<Booking> = {}) => testBooking({ status, ...overrides });

describe("the operator's actions on a booking", () => {
  const allowed = (booking: Booking, role: 'admin' | 'fleetadmin' = 'admin', critical = true) =>
    Object.entries(operatorActions(booking, role, critical))
      .filter(([, on]) => on)
      .map(([name]) => name);

  it('cancel before the trip starts, assign a NEW booking, settle a trip at its drop, complete a paid one', () => {
    expect(allowed(at('NEW'))).toEqual(['cancel', 'assign']);
    expect(allowed(at('PAYMENT_PENDING'))).toEqual(['cancel']);
    expect(allowed(assigned())).toEqual(['cancel']);
    expect(allowed(assigned({ status: 'ARRIVED' }))).toEqual(['cancel']);
    expect(allowed(assigned({ status: 'STARTED' }))).toEqual([]);
    expect(allowed(assigned({ status: 'REACHED' }))).toEqual(['settle', 'replay']);
    expect(allowed(assigned({ status: 'PENDING' }))).toEqual(['settle', 'replay']);
    expect(allowed(assigned({ status: 'PAID', customer_paid: 12 }))).toEqual(['refund', 'complete', 'replay']);
    expect(allowed(assigned({ status: 'COMPLETE', customer_paid: 12 }))).toEqual(['refund', 'replay']);
  });

  it('refunds what the rider paid, fare or cancellation fee, less what was refunded or is still owed', () => {
    expect(allowed(assigned({ status: 'COMPLETE', customer_paid: 12, refunded: 12 }))).toEqual(['replay']);
    expect(refundable(assigned({ status: 'COMPLETE', customer_paid: 12.3, refunded: 2.1 }))).toBe(10.2);
    // A cancelled booking: the fee the wallet covered; a prepaid one had its prepayment back on cancelling.
    expect(refundable(at('CANCELLED', { cancellationFee: 3, cancellationFeeOwed: 1 }))).toBe(2);
    expect(allowed(at('CANCELLED', { cancellationFee: 3, cancellationFeeOwed: 1 }))).toEqual(['refund']);
    expect(refundable(at('CANCELLED', { prepaid: true, customer_paid: 9 }))).toBe(0);
    expect(allowed(at('CANCELLED', { prepaid: true, customer_paid: 9 }))).toEqual([]);
    expect(allowed(at('CANCELLED'))).toEqual([]);
  });

  it('lets fleet admins settle and complete but not cancel, assign or refund; demo mode stops cancelling', () => {
    expect(allowed(at('NEW'), 'fleetadmin')).toEqual([]);
    expect(allowed(assigned({ status: 'PENDING' }), 'fleetadmin')).toEqual(['settle', 'replay']);
    expect(allowed(assigned({ status: 'PAID', customer_paid: 12 }), 'fleetadmin')).toEqual(['complete', 'replay']);
    expect(allowed(at('NEW'), 'admin', false)).toEqual(['assign']);
  });

  it('checks a refund before sending it: an amount above 0, at most what is left, and a reason', () => {
    const paid = assigned({ status: 'PAID', customer_paid: 10, refunded: 4 });
    const left = refundLimit('wallet', paid, undefined);
    expect(left).toBe(6);
    expect(refundProblem('', 'late', left)).toBe('booking_page.refund_amount_invalid');
    expect(refundProblem('0', 'late', left)).toBe('booking_page.refund_amount_invalid');
    expect(refundProblem('abc', 'late', left)).toBe('booking_page.refund_amount_invalid');
    expect(refundProblem('6.01', 'late', left)).toBe('booking_page.refund_amount_over');
    expect(refundProblem('6', ' ', left)).toBe('booking_page.refund_reason_missing');
    expect(refundProblem('5,5', 'Driver took a detour', left)).toBeNull();
  });

  it("limits a refund by the server's totals, and through the gateway by what its payment has left", () => {
    const paid = assigned({ status: 'PAID', customer_paid: 20, refunded: 0, payment_mode: 'card' });
    const refunds = (refundable: number, available: boolean, gateway: number) => ({
      items: [],
      totals: { paid: 20, refunded: 20 - refundable, refundable },
      gateway: { available, refundable: gateway },
    });
    // The server knows of a refund the booking in hand does not show yet.
    expect(refundLimit('wallet', paid, refunds(15, true, 15))).toBe(15);
    expect(refundLimit('gateway', paid, refunds(15, true, 12))).toBe(12);
    expect(refundLimit('gateway', paid, refunds(15, false, 0))).toBe(0);
    // Not read yet: nothing goes to the gateway on a guess.
    expect(refundLimit('gateway', paid, undefined)).toBe(0);
  });
});

describe("a booking's stages", () => {
  it('lists what happened in time order, then what the server will do by itself', () => {
    const booking = assigned({
      status: 'PAID',
      bookingDate: NOW,
      searchingSince: NOW,
      acceptedAt: NOW + 2 * MINUTE,
      driver_arrive_time: NOW + 6 * MINUTE,
      trip_start_time: NOW + 7 * MINUTE,
      trip_end_time: NOW + 20 * MINUTE,
      timers: { generation: 4, auto_complete: { at: NOW + 80 * MINUTE, generation: 4 } },
    });
    expect(stageTimes(booking).map((stage) => [stage.key, (stage.at - NOW) / MINUTE, stage.planned ?? false])).toEqual([
      ['booked', 0, false],
      ['accepted', 2, false],
      ['arrived', 6, false],
      ['started', 7, false],
      ['reached', 20, false],
      ['auto_completes', 80, true],
    ]);
  });

  it('shows a Book Later trip date and its search among them, and when a waiting booking gives up', () => {
    const booking = at('NEW', {
      bookLater: true,
      bookingDate: NOW,
      tripdate: NOW + 60 * MINUTE,
      searchingSince: NOW + 45 * MINUTE,
      timers: { generation: 1, auto_cancel: { at: NOW + 90 * MINUTE, generation: 1 } },
    });
    expect(stageTimes(booking).map((stage) => stage.key)).toEqual(['booked', 'searching', 'scheduled', 'gives_up']);
    expect(stageTimes(at('CANCELLED', { bookingDate: NOW, updatedAt: NOW + MINUTE })).map((stage) => stage.key)).toEqual(['booked', 'cancelled']);
  });
});

describe("a booking's money", () => {
  it('always shows the fare split, and payments, fees and refunds only when there are any', () => {
    const keys = (booking: Booking) => fareLines(booking).map((line) => line.key);
    const base = ['estimate', 'trip_cost', 'convenience_fees', 'driver_share', 'discount', 'payable'];
    expect(keys(at('NEW'))).toEqual(base);
    expect(keys(assigned({ status: 'PAID', cashPaymentAmount: 7.7, customer_paid: 7.7 }))).toEqual([...base, 'paid_cash', 'customer_paid']);
    expect(keys(at('CANCELLED', { cancellationFee: 3, cancellationFeeOwed: 1.5, refunded: 0 }))).toEqual([...base, 'cancellation_fee', 'cancellation_fee_owed']);
  });

  it('names ledger entries by their reference, and leaves others as they are', () => {
    expect(ledgerKind({ txRef: 'DriverShare:PWNXZR' })).toBe('DriverShare');
    expect(ledgerKind({ txRef: 'CashCollected:PWNXZR' })).toBe('CashCollected');
    expect(ledgerKind({ txRef: 'Mystery:PWNXZR' })).toBeNull();
  });
});
