-- A booking's dispatch timeline (issue #15): every dispatch log entry, in
-- the order the runtime made them, written in batches by one writer. Read
-- per booking only, by the index. No foreign key: a batch must never fail
-- on one booking's row.
CREATE TABLE dispatch_events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    booking_id UUID NOT NULL,
    at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    car_type TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE INDEX dispatch_events_booking ON dispatch_events (booking_id, at, seq);
