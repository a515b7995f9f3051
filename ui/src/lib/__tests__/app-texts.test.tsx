import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '@/app/provider';
import { i18n } from '@/i18n';
import { seededClient } from '@/testing/test-utils';
import type { AppCategory } from '@/types/api';
import { textContext, textsFor, useAppTexts, type Texts } from '../app-texts';

function wrapperFor(setting: AppCategory) {
  const client = seededClient(null, { appcat: setting });
  return ({ children }: { children: ReactNode }) => <AppProvider queryClient={client}>{children}</AppProvider>;
}

describe('the app category’s words', () => {
  const t = i18n.t.bind(i18n) as Texts;

  it('reads a key’s delivery variant for a parcel, and the plain key where there is none', () => {
    expect(textContext('delivery')).toBe('delivery');
    expect(textContext('taxi')).toBeUndefined();
    expect(textsFor('delivery', t)('trip.rate_title', { name: 'Dan' })).toBe('How was your delivery?');
    expect(textsFor('taxi', t)('trip.rate_title', { name: 'Dan' })).toBe('How was your ride with Dan?');
    // No `_delivery` variant: the same words for both.
    expect(textsFor('delivery', t)('trip.cancel')).toBe('Cancel booking');
  });

  it('follows the platform’s setting unless a booking’s own category is given', () => {
    const onDelivery = renderHook(() => useAppTexts(), { wrapper: wrapperFor('delivery') });
    expect(onDelivery.result.current.delivery).toBe(true);
    expect(onDelivery.result.current.t('booking.drop')).toBe('Delivery address');
    // A taxi booking kept from before the switch still reads as a trip.
    const taxiBooking = renderHook(() => useAppTexts('taxi'), { wrapper: wrapperFor('delivery') });
    expect(taxiBooking.result.current.t('trip.title', { reference: 'ABCDEF' })).toBe('Trip ABCDEF');
    const parcelOnTaxi = renderHook(() => useAppTexts('delivery'), { wrapper: wrapperFor('taxi') });
    expect(parcelOnTaxi.result.current.t('trip.title', { reference: 'ABCDEF' })).toBe('Delivery ABCDEF');
  });
});
