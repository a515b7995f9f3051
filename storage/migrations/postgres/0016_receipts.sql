-- Receipts by e-mail (issue #37): a row per booking whose receipt was sent,
-- so a replayed payment confirmation or a restart never sends it twice. The
-- row is written before sending and removed again if sending fails.
CREATE TABLE receipt_mails (
    booking_id UUID PRIMARY KEY REFERENCES bookings (id) ON DELETE CASCADE,
    sent_to TEXT NOT NULL,
    sent_at BIGINT NOT NULL
);
