-- The monthly earnings roll-up (storage/src/rollup.rs): per local month,
-- driver and fleet, the sums of the bookings that count for earnings, kept
-- by commit_booking in the booking's transaction. fleet is the nil UUID for
-- drivers of no fleet (a key column cannot be NULL). ride_* name the latest
-- ride, the others the latest counted booking (rides and charged
-- cancellations): the two reports name a driver by different bookings.
CREATE TABLE earnings_months (
    ym BIGINT NOT NULL,
    driver UUID NOT NULL,
    fleet UUID NOT NULL,
    rides BIGINT NOT NULL,
    driver_share BIGINT NOT NULL,
    trip_cost BIGINT NOT NULL,
    convenience_fee BIGINT NOT NULL,
    discount_amount BIGINT NOT NULL,
    customer_paid BIGINT NOT NULL,
    charged_cancellations BIGINT NOT NULL,
    cancellation_fee BIGINT NOT NULL,
    ride_latest_tripdate BIGINT,
    ride_latest_id UUID,
    ride_driver_name TEXT,
    ride_vehicle_number TEXT,
    latest_tripdate BIGINT,
    latest_id UUID,
    driver_name TEXT,
    vehicle_number TEXT,
    PRIMARY KEY (ym, driver, fleet)
);
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
