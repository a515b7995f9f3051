// Issue #34: the operator's rules for one booking, pure: what may be done
// to it now, its stages in time and its money line by line. (Whether it is
// unassigned is `isUnassigned`, where a trip really ended `movedDrop`, and a
// system's reason in words `reasonText`: other screens use them too.)
import type { Booking, BookingRefunds, BookingStatus, LedgerEntry, RefundDestination, Role } from '@/types/api';
import { canAssign } from './booking-status';

const CANCELLABLE: BookingStatus[] = ['NEW', 'ACCEPTED', 'ARRIVED', 'PAYMENT_PENDING'];
const SETTLEABLE: BookingStatus[] = ['REACHED', 'PENDING'];
/** Trips whose path is over, and so can be replayed on the live console. */
export const REPLAYABLE: BookingStatus[] = ['REACHED', 'PENDING', 'PAID', 'COMPLETE'];

export interface OperatorActions {
  cancel: boolean;
  assign: boolean;
  /** `POST /settle` with mode card (paid outside the app) or cash (to the driver). */
  settle: boolean;
  refund: boolean;
  complete: boolean;
  replay: boolean;
}

type RefundFields = Pick<Booking, 'status' | 'prepaid' | 'customer_paid' | 'cancellationFee' | 'cancellationFeeOwed' | 'refunded'>;

/** What a refund may still give back (the server's rule): what the rider
 * paid, fare and cancellation fee, less what was refunded; a cancelled
 * prepaid booking has had its prepayment back already. */
export function refundable(booking: RefundFields): number {
  const prepaidReturned = booking.status === 'CANCELLED' && booking.prepaid ? (booking.customer_paid ?? 0) : 0;
  const left =
    (booking.customer_paid ?? 0) + (booking.cancellationFee ?? 0) - (booking.cancellationFeeOwed ?? 0) - (booking.refunded ?? 0) - prepaidReturned;
  return Math.max(0, Math.round(left * 100) / 100);
}

/** The statuses whose money may be refunded (`engine::refund::is_refundable_status`). */
export const REFUNDABLE: BookingStatus[] = ['PAID', 'COMPLETE', 'CANCELLED'];

/**
 * The actions the booking's page offers this viewer now (contract #34):
 * cancel (admins, outside demo mode) before the trip starts; assign a NEW
 * booking (automatic dispatch on or off); settle a trip that reached its
 * drop; refund (admins) what a paid or charged booking has left; complete a
 * paid one.
 */
export function operatorActions(booking: Booking, role: Role, criticalEditsAllowed: boolean): OperatorActions {
  const panel = role === 'admin' || role === 'fleetadmin';
  return {
    cancel: role === 'admin' && criticalEditsAllowed && CANCELLABLE.includes(booking.status),
    assign: canAssign(booking, role),
    settle: panel && SETTLEABLE.includes(booking.status),
    refund: role === 'admin' && REFUNDABLE.includes(booking.status) && refundable(booking) > 0,
    complete: panel && booking.status === 'PAID',
    replay: panel && REPLAYABLE.includes(booking.status),
  };
}

/** What may go back to `destination` now: what is left of the booking
 * (the server's totals once read, else the booking's own figures), and
 * through the gateway no more than its payment has left. */
export function refundLimit(destination: RefundDestination, booking: RefundFields, refunds: BookingRefunds | undefined): number {
  const left = refunds ? refunds.totals.refundable : refundable(booking);
  if (destination === 'wallet') return left;
  if (!refunds?.gateway.available) return 0;
  return Math.min(left, refunds.gateway.refundable);
}

/** Why a refund cannot be sent as typed (a translation key), or null: an
 * amount above 0, at most `limit`, and a reason. */
export function refundProblem(amountText: string, reason: string, limit: number): string | null {
  const amount = Number(amountText.trim().replace(',', '.'));
  if (!amountText.trim() || !Number.isFinite(amount) || amount <= 0) return 'booking_page.refund_amount_invalid';
  if (amount > limit + 1e-9) return 'booking_page.refund_amount_over';
  if (!reason.trim()) return 'booking_page.refund_reason_missing';
  return null;
}

export interface Stage {
  /** `booking_page.stage.<key>` names it. */
  key: string;
  at: number;
  /** Not happened yet: when the server will do it by itself. */
  planned?: boolean;
}

/** The booking's stages with their times, oldest first, then what the
 * server will do by itself (give up, complete) and when. */
export function stageTimes(booking: Booking): Stage[] {
  const stages: Stage[] = [{ key: 'booked', at: booking.bookingDate }];
  if (booking.bookLater) stages.push({ key: 'scheduled', at: booking.tripdate });
  if (booking.searchingSince && booking.searchingSince !== booking.bookingDate) stages.push({ key: 'searching', at: booking.searchingSince });
  const happened: [string, number | null | undefined][] = [
    ['accepted', booking.acceptedAt],
    ['arrived', booking.driver_arrive_time],
    ['started', booking.trip_start_time],
    ['reached', booking.trip_end_time],
  ];
  for (const [key, at] of happened) if (at) stages.push({ key, at });
  if (booking.status === 'CANCELLED') stages.push({ key: 'cancelled', at: booking.updatedAt ?? 0 });
  if (booking.status === 'COMPLETE') stages.push({ key: 'completed', at: booking.updatedAt ?? 0 });
  // The scheduled trip date is a plan too, but it belongs among the stages by its time.
  const ordered = stages.filter((stage) => stage.at > 0).sort((a, b) => a.at - b.at);
  const giveUp = booking.timers?.auto_cancel?.at;
  if (giveUp && (booking.status === 'NEW' || booking.status === 'PAYMENT_PENDING')) ordered.push({ key: 'gives_up', at: giveUp, planned: true });
  const autoComplete = booking.timers?.auto_complete?.at;
  if (autoComplete && booking.status === 'PAID') ordered.push({ key: 'auto_completes', at: autoComplete, planned: true });
  return ordered;
}

export interface FareLine {
  /** `booking_page.fare.<key>` names it. */
  key: string;
  amount: number;
  /** Drawn bold: what the rider owes and paid. */
  strong?: boolean;
}

/** The fare split and the payments, line by line: the parts every booking
 * has, then payments, cancellation and refunds only when there are any. */
export function fareLines(booking: Booking): FareLine[] {
  const lines: FareLine[] = [
    { key: 'estimate', amount: booking.estimate },
    { key: 'trip_cost', amount: booking.trip_cost },
    { key: 'convenience_fees', amount: booking.convenience_fees ?? 0 },
    { key: 'driver_share', amount: booking.driver_share ?? 0 },
    { key: 'discount', amount: booking.discount_amount ?? 0 },
    { key: 'payable', amount: booking.payableAmount, strong: true },
  ];
  const optional: FareLine[] = [
    { key: 'paid_cash', amount: booking.cashPaymentAmount ?? 0 },
    { key: 'paid_card', amount: booking.cardPaymentAmount ?? 0 },
    { key: 'paid_wallet', amount: booking.usedWalletMoney ?? 0 },
    { key: 'customer_paid', amount: booking.customer_paid ?? 0, strong: true },
    { key: 'cancellation_fee', amount: booking.cancellationFee ?? 0 },
    { key: 'cancellation_fee_owed', amount: booking.cancellationFeeOwed ?? 0, strong: true },
    { key: 'refunded', amount: booking.refunded ?? 0 },
  ];
  return [...lines, ...optional.filter((line) => line.amount > 0)];
}

/** The wallet references of booking money (engine/src/booking/machine.rs), by their prefix. */
const LEDGER_KINDS = ['DriverShare', 'CashCollected', 'WalletPayment', 'CancellationFee', 'Refund'] as const;

/** What a ledger entry is, from its reference (`DriverShare:ABC123`): a known kind, or null. */
export function ledgerKind(entry: Pick<LedgerEntry, 'txRef'>): (typeof LEDGER_KINDS)[number] | null {
  const prefix = entry.txRef.split(':')[0];
  return (LEDGER_KINDS as readonly string[]).includes(prefix) ? (prefix as (typeof LEDGER_KINDS)[number]) : null;
}
