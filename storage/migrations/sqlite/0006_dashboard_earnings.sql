-- The dashboard's roll-up (storage/src/rollup.rs): per grain (0 all time,
-- 1 a local month yyyymm, 2 a local day yyyymmdd), period and fleet, the
-- rides the panel counts for earnings (PAID or COMPLETE with a convenience
-- fee above 0, spec §9) and the sum of their trip_cost in micro-units, kept
-- by commit_booking in the booking's transaction and cut in the monthly
-- roll-up's offset. fleet is the nil UUID for bookings of no fleet.
CREATE TABLE dashboard_earnings (
    grain INTEGER NOT NULL,
    period INTEGER NOT NULL,
    fleet BLOB NOT NULL,
    rides INTEGER NOT NULL,
    trip_cost INTEGER NOT NULL,
    PRIMARY KEY (grain, period, fleet)
) WITHOUT ROWID;

-- A database with bookings has an empty dashboard roll-up: mark both
-- roll-ups unbuilt, so the next start (prepare_earnings_rollup) rebuilds them
-- from the bookings in one pass, and reads sum the bookings until then.
UPDATE earnings_rollup SET built = FALSE WHERE EXISTS (SELECT 1 FROM bookings);
