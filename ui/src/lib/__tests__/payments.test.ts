import { describe, expect, it } from 'vitest';
import { testBooking } from '@/testing/fixtures';
import { testSettings, testUser } from '@/testing/test-utils';
import { checkoutFields, checkoutOutcome, checkoutReturnUrls, topUpFields, topUpOrderId } from '../payments';

describe('the checkout form', () => {
  it('sends the payer back to the page they came from, saying how the checkout ended', () => {
    const urls = checkoutReturnUrls('/bookings', 'payment', { trip: 'booking-1' }, 'https://ride.example');
    expect(urls).toEqual({
      success_url: 'https://ride.example/bookings?trip=booking-1&payment=paid',
      cancel_url: 'https://ride.example/bookings?trip=booking-1&payment=cancelled',
    });
    expect(checkoutReturnUrls('/bookings', 'topup', {}, 'https://ride.example').cancel_url).toBe('https://ride.example/bookings?topup=cancelled');
  });

  it('reads only the two outcomes a return link can carry', () => {
    expect(checkoutOutcome('paid')).toBe('paid');
    expect(checkoutOutcome('cancelled')).toBe('cancelled');
    expect(checkoutOutcome('refunded')).toBeNull();
    expect(checkoutOutcome(null)).toBeNull();
  });

  it("pays a trip's payable amount with the spec's fields", () => {
    const urls = { success_url: '/ok', cancel_url: '/no' };
    const fields = checkoutFields(testBooking({ payableAmount: 12.5 }), testUser(), testSettings, urls);
    expect(fields).toMatchObject({ order_id: 'booking-1', amount: '12.5', currency: 'USD', quantity: '1', cust_id: 'user-rider-1', ...urls });
  });

  it('tops a wallet up with a fresh wallet order each time', () => {
    const first = topUpOrderId(1_700_000_000_000, 0.25);
    expect(first).toMatch(/^wallet-[0-9a-z]+$/);
    expect(topUpOrderId(1_700_000_000_000, 0.5)).not.toBe(first);
    const fields = topUpFields('50', 'Wayfare wallet top-up', testUser(), testSettings, { success_url: '/ok', cancel_url: '/no' }, first);
    expect(fields).toEqual({
      order_id: first,
      amount: '50',
      currency: 'USD',
      product_name: 'Wayfare wallet top-up',
      first_name: 'Rider',
      last_name: 'One',
      quantity: '1',
      cust_id: 'user-rider-1',
      mobile_no: '+14105550201',
      email: 'rider1@demo.wayfare',
      success_url: '/ok',
      cancel_url: '/no',
    });
  });
});
