-- A driver's bookings that hold them now (the busy flag's check on every
-- accept and trip end, storage/src/sql/commit.rs set_queue): a driver's few
-- active bookings, not their whole history.
CREATE INDEX bookings_driver_active ON bookings (driver) WHERE active AND driver IS NOT NULL;
