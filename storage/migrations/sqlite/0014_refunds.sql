-- Issue 37: money both ways. One row per refund of a booking's money, to
-- the card through its gateway or to the rider's wallet; the idempotency key
-- makes a retried refund one refund (for a wallet refund it is the ledger
-- entry's key too). A gateway refund the gateway declined stays `failed`.
CREATE TABLE refunds (
    id BLOB PRIMARY KEY,
    payment_id BLOB REFERENCES payments (id) ON DELETE SET NULL,
    booking_id BLOB NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    user_id BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    amount_micros INTEGER NOT NULL,
    currency TEXT NOT NULL,
    destination TEXT NOT NULL CHECK (destination IN ('gateway', 'wallet')),
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    gateway_ref TEXT,
    idempotency_key TEXT NOT NULL UNIQUE,
    made_by BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX refunds_booking ON refunds (booking_id, created_at, id);
CREATE INDEX refunds_payment ON refunds (payment_id) WHERE payment_id IS NOT NULL;
-- Why an admin moved the money (a refund, a debit, an adjustment).
ALTER TABLE wallet_entries ADD COLUMN description TEXT;
