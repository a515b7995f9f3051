// The columns of the money screens (spec §2, §3 "Earnings rows"): pure, so
// each table's columns are tested without a grid.
import type { ReportKind } from '../api/money';

export interface MoneyColumn {
  field: string;
  /** Translation key of the header. */
  label: string;
  kind: 'text' | 'count' | 'money' | 'date' | 'month' | 'processed';
}

const EARNINGS: MoneyColumn[] = [
  { field: 'period', label: 'panel.money.period', kind: 'month' },
  { field: 'driverName', label: 'panel.money.driver_name', kind: 'text' },
  { field: 'driverVehicleNo', label: 'table.vehicle_number', kind: 'text' },
  { field: 'total_rides', label: 'panel.money.total_rides', kind: 'count' },
  { field: 'driverShare', label: 'table.driver_share', kind: 'money' },
];

const REPORT: MoneyColumn[] = [
  { field: 'tripCost', label: 'table.trip_cost', kind: 'money' },
  { field: 'rideCost', label: 'panel.money.ride_cost', kind: 'money' },
  { field: 'convenienceFee', label: 'table.convenience_fee', kind: 'money' },
  { field: 'discountAmount', label: 'table.discount', kind: 'money' },
  { field: 'customerPaid', label: 'table.customer_paid', kind: 'money' },
  { field: 'cancellationFee', label: 'table.cancellation_fee', kind: 'money' },
  { field: 'myEarning', label: 'panel.money.my_earning', kind: 'money' },
];

/** The driver earning table's columns; the earnings report adds the platform's sums. */
export function earningsColumns(kind: ReportKind): MoneyColumn[] {
  return kind === 'earnings' ? [...EARNINGS, ...REPORT] : EARNINGS;
}

/** A withdraw request's columns (spec §3 "Withdraw request"). */
export const WITHDRAW_COLUMNS: MoneyColumn[] = [
  { field: 'name', label: 'panel.money.requested_by', kind: 'text' },
  { field: 'amount', label: 'wallet.amount', kind: 'money' },
  { field: 'date', label: 'panel.money.requested_at', kind: 'date' },
  { field: 'bankName', label: 'panel.money.bank_name', kind: 'text' },
  { field: 'bankCode', label: 'panel.money.bank_code', kind: 'text' },
  { field: 'bankAccount', label: 'panel.money.bank_account', kind: 'text' },
  { field: 'processed', label: 'panel.money.processed', kind: 'processed' },
  { field: 'procesDate', label: 'panel.money.processed_at', kind: 'date' },
];

/** The credit an admin may send: a number above 0 (spec §5), at most the server's cap. */
export const MAX_CREDIT = 1_000_000;

/** `null` when the form may be sent, else the translation key of what is wrong. */
export function creditProblem(user: string | null, amountText: string): string | null {
  const amount = Number(amountText.trim().replace(',', '.'));
  if (!user || amountText.trim() === '' || !Number.isFinite(amount) || amount <= 0) return 'no_details_error';
  if (amount > MAX_CREDIT) return 'invalid_amount';
  return null;
}

export type WalletMoveKind = 'credit' | 'debit' | 'adjust';

/** The same for each of an admin's wallet tools (issue #37): a credit or a
 * debit of an amount above 0, or an adjustment to a balance (any number, 0
 * and below too: the server says whether negative balances are allowed);
 * a debit and an adjustment say why. */
export function walletMoveProblem(kind: WalletMoveKind, user: string | null, amountText: string, reason: string): string | null {
  if (kind === 'adjust') {
    const balance = Number(amountText.trim().replace(',', '.'));
    if (!user) return 'no_details_error';
    if (amountText.trim() === '' || !Number.isFinite(balance)) return 'invalid_amount';
  } else {
    const found = creditProblem(user, amountText);
    if (found) return found;
  }
  if (kind !== 'credit' && !reason.trim()) return 'panel.money.reason_missing';
  return null;
}

/** The years the report filter offers: this one and the four before it. */
export function reportYears(now: Date): number[] {
  const year = now.getFullYear();
  return [0, 1, 2, 3, 4].map((back) => year - back);
}
