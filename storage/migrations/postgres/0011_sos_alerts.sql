-- SOS alerts (issue 33): raised by a trip's rider or driver, taken and
-- resolved with a note by an admin or the driver's fleet admin.
-- `list_rank` orders the panel's list open first, newest first, in one
-- keyset column: `created_at` plus 2^45 while unresolved, `created_at`
-- once resolved (storage keeps it in step with `resolved_at`).
CREATE TABLE sos_alerts (
    id UUID PRIMARY KEY,
    booking_id UUID NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    reference TEXT NOT NULL,
    raised_by UUID NOT NULL,
    raised_by_role TEXT NOT NULL,
    raised_by_name TEXT NOT NULL,
    lat DOUBLE PRECISION NOT NULL,
    lng DOUBLE PRECISION NOT NULL,
    fleetadmin UUID,
    taken_by UUID,
    taken_by_name TEXT NOT NULL DEFAULT '',
    taken_at BIGINT,
    resolved_by UUID,
    resolved_by_name TEXT NOT NULL DEFAULT '',
    resolved_at BIGINT,
    note TEXT NOT NULL DEFAULT '',
    list_rank BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
-- One open alert per person and booking: a second press finds the first.
CREATE UNIQUE INDEX sos_alerts_open_per_raiser ON sos_alerts (booking_id, raised_by) WHERE resolved_at IS NULL;
CREATE INDEX sos_alerts_rank ON sos_alerts (list_rank, id);
CREATE INDEX sos_alerts_fleet_rank ON sos_alerts (fleetadmin, list_rank, id);
