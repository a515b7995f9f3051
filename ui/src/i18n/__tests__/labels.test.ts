// Texts a person reads in lists and filters: each status its own label, and
// no empty list that shouts an entity's name in capitals (issue #34).
import { describe, expect, it } from 'vitest';
import { BOOKING_STATUSES } from '@/features/trips/lib/booking-status';
import ar from '../../../../http/assets/lang/ar.json';
import en from '../../../../http/assets/lang/en.json';
import fr from '../../../../http/assets/lang/fr.json';

const LANGUAGES = { en, ar, fr } as Record<string, Record<string, string>>;

describe('the status labels', () => {
  it('read differently for every status, in every language, so no filter lists two alike', () => {
    for (const [language, texts] of Object.entries(LANGUAGES)) {
      const labels = BOOKING_STATUSES.map((status) => texts[`status.${status}`]);
      expect(labels.every(Boolean), language).toBe(true);
      expect(new Set(labels.map((label) => label.trim().toLowerCase())).size, `${language}: ${labels.join(' | ')}`).toBe(BOOKING_STATUSES.length);
    }
  });

  it('tell the prepayment before a trip from the payment due after it', () => {
    expect([en['status.PAYMENT_PENDING'], en['status.PENDING']]).toEqual(['Awaiting prepayment', 'Payment due']);
    expect(fr['status.PAYMENT_PENDING']).not.toBe(fr['status.PENDING']);
    expect(ar['status.PAYMENT_PENDING']).not.toBe(ar['status.PENDING']);
  });
});

describe('the empty lists', () => {
  const emptyKeys = Object.keys(en).filter((key) => key === 'table.empty' || key.startsWith('panel.empty.') || /(^|\.)no_[a-z_]+$/.test(key) || key.endsWith('.empty'));

  it('are sentences, not a raw key or an entity name in capitals', () => {
    expect(emptyKeys).toContain('wallet.no_withdraws');
    for (const [language, texts] of Object.entries(LANGUAGES)) {
      for (const key of emptyKeys) {
        const text = texts[key];
        expect(text, `${language} ${key}`).toBeTruthy();
        expect(text, `${language} ${key}`).not.toBe(key);
        expect(text, `${language} ${key}: ${text}`).not.toMatch(/\b(?!SOS\b|GPS\b)[A-Z]{3,}\b/);
      }
    }
    expect(en['wallet.no_withdraws']).toBe('No withdrawal requests yet.');
  });
});
