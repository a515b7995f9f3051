import { describe, expect, it } from 'vitest';
import { parseWalletAmount } from '../lib/amount';

describe('a wallet amount', () => {
  it('is a positive decimal number, sent as plain text', () => {
    expect(parseWalletAmount('50', 2)).toBe('50');
    expect(parseWalletAmount(' 20.50 ', 2)).toBe('20.5');
    expect(parseWalletAmount('0.01', 2)).toBe('0.01');
  });

  it('reads a comma as the decimal point', () => {
    expect(parseWalletAmount('12,75', 2)).toBe('12.75');
  });

  it('refuses nothing, zero, words, signs and exponents', () => {
    for (const typed of ['', '   ', '0', '0.00', 'ten', '-5', '+5', '1e3', '5.', '.5', '1.2.3', '$5']) {
      expect(parseWalletAmount(typed, 2), typed).toBeNull();
    }
  });

  it('has no more decimals than the platform keeps, trailing zeros aside', () => {
    expect(parseWalletAmount('20.505', 2)).toBeNull();
    expect(parseWalletAmount('20.500', 2)).toBe('20.5');
    expect(parseWalletAmount('7.5', 0)).toBeNull();
    expect(parseWalletAmount('7', 0)).toBe('7');
  });

  it('is at most the 1,000,000 any one wallet move may be', () => {
    expect(parseWalletAmount('1000000', 2)).toBe('1000000');
    expect(parseWalletAmount('1000000.01', 2)).toBeNull();
  });
});
