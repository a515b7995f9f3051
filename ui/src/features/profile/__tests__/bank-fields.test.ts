import { describe, expect, it } from 'vitest';
import { profileSchema, showsBankFields } from '../lib/profile-rules';

const values = { firstName: 'Dev', lastName: 'Driver', email: '', mobile: '', langLocale: 'en', bankName: '', bankCode: '', bankAccount: '' };

describe('bank details on the profile', () => {
  it('show when bank_fields is on, to drivers, and to riders only when riders may withdraw', () => {
    expect(showsBankFields({ usertype: 'driver' }, { bank_fields: true, RiderWithDraw: false })).toBe(true);
    expect(showsBankFields({ usertype: 'driver' }, { bank_fields: false, RiderWithDraw: true })).toBe(false);
    expect(showsBankFields({ usertype: 'rider' }, { bank_fields: true, RiderWithDraw: false })).toBe(false);
    expect(showsBankFields({ usertype: 'rider' }, { bank_fields: true, RiderWithDraw: true })).toBe(true);
    expect(showsBankFields({ usertype: 'admin' }, { bank_fields: true, RiderWithDraw: true })).toBe(false);
  });

  it('accept what the server accepts: trimmed, at most 64 characters', () => {
    const ok = profileSchema.safeParse({ ...values, bankName: '  First Bank ', bankAccount: '4400123456' });
    expect(ok.success && ok.data.bankName).toBe('First Bank');
    const long = profileSchema.safeParse({ ...values, bankAccount: '9'.repeat(65) });
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]).toMatchObject({ path: ['bankAccount'], message: 'invalid_input' });
  });
});
