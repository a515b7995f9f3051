-- Issue 34: a booking's ledger and the money owed.
-- Each wallet entry a booking made names its booking, so the booking's page
-- reads its ledger through an index (the idempotency key already held it:
-- `booking:<uuid>:<purpose>`).
ALTER TABLE wallet_entries ADD COLUMN booking_id BLOB;
UPDATE wallet_entries SET booking_id = unhex(replace(substr(idempotency_key, 9, 36), '-', ''))
    WHERE idempotency_key LIKE 'booking:%';
CREATE INDEX wallet_entries_booking ON wallet_entries (booking_id, date, id) WHERE booking_id IS NOT NULL;
-- The part of a cancellation fee a rider's wallet could not cover: the
-- report of money owed lists those bookings through a partial index.
ALTER TABLE bookings ADD COLUMN fee_owed_micros INTEGER NOT NULL DEFAULT 0;
CREATE INDEX bookings_fee_owed ON bookings (tripdate, id) WHERE fee_owed_micros > 0;
-- The dashboard now counts every ride, as the earnings reports do (the
-- original panel also required a convenience fee above 0): rebuild the
-- roll-ups from the bookings at the next start.
UPDATE earnings_rollup SET built = FALSE WHERE EXISTS (SELECT 1 FROM bookings);
