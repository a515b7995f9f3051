import { describe, expect, it } from 'vitest';
import { creditProblem, earningsColumns, reportYears, walletMoveProblem, WITHDRAW_COLUMNS } from '../lib/money-columns';
import { periodQuery } from '../api/money';

describe('the money screens’ rules', () => {
  it('gives the driver earning table the spec’s row fields and the report the platform’s sums too', () => {
    const driver = earningsColumns('driver').map((column) => column.field);
    expect(driver).toEqual(['period', 'driverName', 'driverVehicleNo', 'total_rides', 'driverShare']);
    const report = earningsColumns('earnings').map((column) => column.field);
    expect(report.slice(0, driver.length)).toEqual(driver);
    expect(report.slice(driver.length)).toEqual(['tripCost', 'rideCost', 'convenienceFee', 'discountAmount', 'customerPaid', 'cancellationFee', 'myEarning']);
    expect(earningsColumns('earnings').filter((column) => column.kind === 'money')).toHaveLength(8);
  });

  it('shows a withdraw request’s bank details and whether it was paid out', () => {
    expect(WITHDRAW_COLUMNS.map((column) => column.field)).toEqual(['name', 'amount', 'date', 'bankName', 'bankCode', 'bankAccount', 'processed', 'procesDate']);
  });

  it('refuses a credit without a user or with an amount not above zero (no_details_error), or past the cap', () => {
    expect(creditProblem(null, '10')).toBe('no_details_error');
    expect(creditProblem('u1', '')).toBe('no_details_error');
    expect(creditProblem('u1', '0')).toBe('no_details_error');
    expect(creditProblem('u1', '-5')).toBe('no_details_error');
    expect(creditProblem('u1', 'ten')).toBe('no_details_error');
    expect(creditProblem('u1', '1000000.01')).toBe('invalid_amount');
    expect(creditProblem('u1', '12,5')).toBeNull();
    expect(creditProblem('u1', ' 50 ')).toBeNull();
  });

  it('asks a debit for an amount above zero and a reason, and an adjustment for any balance and a reason (issue #37)', () => {
    expect(walletMoveProblem('credit', 'u1', '5', '')).toBeNull();
    expect(walletMoveProblem('debit', 'u1', '0', 'Damage')).toBe('no_details_error');
    expect(walletMoveProblem('debit', null, '5', 'Damage')).toBe('no_details_error');
    expect(walletMoveProblem('debit', 'u1', '5', '  ')).toBe('panel.money.reason_missing');
    expect(walletMoveProblem('debit', 'u1', '5', 'Damage')).toBeNull();
    expect(walletMoveProblem('adjust', 'u1', '0', 'Reset')).toBeNull();
    expect(walletMoveProblem('adjust', 'u1', '-2,5', 'Owed fee')).toBeNull();
    expect(walletMoveProblem('adjust', 'u1', '', 'Reset')).toBe('invalid_amount');
    expect(walletMoveProblem('adjust', 'u1', 'ten', 'Reset')).toBe('invalid_amount');
    expect(walletMoveProblem('adjust', null, '3', 'Reset')).toBe('no_details_error');
    expect(walletMoveProblem('adjust', 'u1', '3', '')).toBe('panel.money.reason_missing');
  });

  it('asks the server for a year, a month of it, or all time', () => {
    expect(periodQuery({ year: '', month: 3 })).toEqual({});
    expect(periodQuery({ year: 2026, month: '' })).toEqual({ year: 2026 });
    expect(periodQuery({ year: 2026, month: 11 })).toEqual({ year: 2026, month: 11 });
    expect(reportYears(new Date(2026, 10, 24))).toEqual([2026, 2025, 2024, 2023, 2022]);
    // A range of days: both ends included, so `until` (exclusive) is the next midnight; it replaces the year.
    expect(periodQuery({ year: 2026, month: '', from: '2026-11-01', until: '2026-11-24' })).toEqual({
      from: new Date(2026, 10, 1).getTime(),
      until: new Date(2026, 10, 25).getTime(),
    });
    expect(periodQuery({ year: '', month: '', until: '2026-12-31' })).toEqual({ until: new Date(2027, 0, 1).getTime() });
  });
});
