import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { isSystemReason, reasonText } from '@/lib/booking-reason';

describe("a booking's cancellation reason in words", () => {
  const english = i18n.getFixedT('en');
  const arabic = i18n.getFixedT('ar');

  it("translates the system's reasons, in the reader's language", () => {
    expect(reasonText('no_driver_available', english)).toBe('No driver was available');
    expect(reasonText('payment_not_received', english)).toBe('The payment was not received');
    expect(reasonText('no_driver_available', arabic)).toBe('لم يتوفر أي سائق');
  });

  it("shows a person's reason as they wrote it, and nothing for none", () => {
    expect(reasonText('Changed my plans', english)).toBe('Changed my plans');
    // Text that only looks like a translation key stays text.
    expect(reasonText('trip.title', english)).toBe('trip.title');
    expect(reasonText('', english)).toBe('');
    expect(reasonText(null, english)).toBe('');
  });

  it('knows only the keys the server writes', () => {
    expect(isSystemReason('no_driver_available')).toBe(true);
    expect(isSystemReason('No driver')).toBe(false);
  });
});
