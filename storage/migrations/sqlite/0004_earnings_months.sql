-- The monthly earnings roll-up (storage/src/rollup.rs): per local month,
-- driver and fleet, the sums of the bookings that count for earnings, kept
-- by commit_booking in the booking's transaction. fleet is the nil UUID for
-- drivers of no fleet (a key column cannot be NULL). ride_* name the latest
-- ride, the others the latest counted booking (rides and charged
-- cancellations): the two reports name a driver by different bookings.
-- WITHOUT ROWID keeps a month's rows together in key order, so a month's
-- report is one sequential range however the rows were written.
CREATE TABLE earnings_months (
    ym INTEGER NOT NULL,
    driver BLOB NOT NULL,
    fleet BLOB NOT NULL,
    rides INTEGER NOT NULL,
    driver_share INTEGER NOT NULL,
    trip_cost INTEGER NOT NULL,
    convenience_fee INTEGER NOT NULL,
    discount_amount INTEGER NOT NULL,
    customer_paid INTEGER NOT NULL,
    charged_cancellations INTEGER NOT NULL,
    cancellation_fee INTEGER NOT NULL,
    ride_latest_tripdate INTEGER,
    ride_latest_id BLOB,
    ride_driver_name TEXT,
    ride_vehicle_number TEXT,
    latest_tripdate INTEGER,
    latest_id BLOB,
    driver_name TEXT,
    vehicle_number TEXT,
    PRIMARY KEY (ym, driver, fleet)
) WITHOUT ROWID;
CREATE INDEX earnings_months_fleet ON earnings_months (fleet, ym, driver);
CREATE INDEX earnings_months_driver ON earnings_months (driver, ym);

-- The offset months are cut in, and whether the roll-up holds every
-- booking: a database that had bookings before this migration answers from
-- the bookings until the roll-up is rebuilt (at server start).
CREATE TABLE earnings_rollup (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    utc_offset_minutes INTEGER NOT NULL,
    built BOOLEAN NOT NULL
);
INSERT INTO earnings_rollup (id, utc_offset_minutes, built)
SELECT 1, 0, NOT EXISTS (SELECT 1 FROM bookings);
