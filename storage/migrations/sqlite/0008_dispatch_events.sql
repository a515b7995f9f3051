-- A booking's dispatch timeline (issue #15): every dispatch log entry, in
-- the order the runtime made them, written in batches by one writer. Read
-- per booking only, by the index. No foreign key: a batch must never fail
-- on one booking's row.
CREATE TABLE dispatch_events (
    seq INTEGER PRIMARY KEY,
    booking_id BLOB NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    car_type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX dispatch_events_booking ON dispatch_events (booking_id, at, seq);
