-- Wayfare storage schema, PostgreSQL flavour. Keep in step with
-- migrations/sqlite/0001_schema.sql: same tables, columns and index names.
--
-- Each entity keeps its full JSON document in `doc` (JSONB) and copies every
-- field that is queried, sorted, summed or constrained into a typed column.
-- Times are milliseconds since the epoch, money is a BIGINT number of
-- micro-units (amount x 10^6) so that sums are exact. Text search uses a
-- generated `tsvector` over `search_text` with a GIN index.

CREATE TABLE settings (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);

CREATE TABLE car_types (
    id UUID PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE UNIQUE INDEX car_types_name ON car_types (name);

CREATE TABLE cancel_reasons (
    position BIGINT PRIMARY KEY,
    reason TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE payment_providers (
    position BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    link TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE users (
    id UUID PRIMARY KEY,
    role TEXT NOT NULL,
    email TEXT NOT NULL,
    mobile TEXT NOT NULL,
    referral TEXT NOT NULL,
    fleetadmin UUID,
    approved BOOLEAN NOT NULL,
    driver_active BOOLEAN NOT NULL,
    queue BOOLEAN NOT NULL,
    car_type TEXT,
    lat DOUBLE PRECISION,
    lng DOUBLE PRECISION,
    wallet_balance_micros BIGINT NOT NULL DEFAULT 0,
    platform TEXT NOT NULL,
    push_token TEXT,
    language TEXT,
    search_text TEXT NOT NULL,
    search_vector TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text)) STORED,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email <> '';
CREATE UNIQUE INDEX users_mobile ON users (mobile) WHERE mobile <> '';
CREATE UNIQUE INDEX users_referral ON users (referral) WHERE referral <> '';
CREATE INDEX users_created ON users (created_at, id);
CREATE INDEX users_role ON users (role, created_at, id);
CREATE INDEX users_fleetadmin ON users (fleetadmin, created_at, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX users_online ON users (role) WHERE driver_active;
CREATE INDEX users_search ON users USING GIN (search_vector);

CREATE TABLE bookings (
    id UUID PRIMARY KEY,
    version BIGINT NOT NULL,
    reference TEXT NOT NULL,
    status TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    customer UUID NOT NULL,
    driver UUID,
    fleetadmin UUID,
    tripdate BIGINT NOT NULL,
    booking_date BIGINT NOT NULL,
    trip_cost_micros BIGINT NOT NULL,
    driver_share_micros BIGINT NOT NULL,
    convenience_fees_micros BIGINT NOT NULL,
    discount_amount_micros BIGINT NOT NULL,
    customer_paid_micros BIGINT NOT NULL,
    cancellation_fee_micros BIGINT NOT NULL,
    driver_name TEXT NOT NULL,
    vehicle_number TEXT NOT NULL,
    search_text TEXT NOT NULL,
    search_vector TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text)) STORED,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
-- One index per list the product shows, each ending in the sort key and id so
-- a keyset page is one index seek: all bookings, a rider's, a driver's, a
-- fleet's and a status', by trip date or by booking date.
CREATE INDEX bookings_tripdate ON bookings (tripdate, id);
CREATE INDEX bookings_booking_date ON bookings (booking_date, id);
CREATE INDEX bookings_customer_tripdate ON bookings (customer, tripdate, id);
CREATE INDEX bookings_customer_booking_date ON bookings (customer, booking_date, id);
CREATE INDEX bookings_driver_tripdate ON bookings (driver, tripdate, id) WHERE driver IS NOT NULL;
CREATE INDEX bookings_driver_booking_date ON bookings (driver, booking_date, id) WHERE driver IS NOT NULL;
CREATE INDEX bookings_fleetadmin_tripdate ON bookings (fleetadmin, tripdate, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX bookings_fleetadmin_booking_date ON bookings (fleetadmin, booking_date, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX bookings_status_tripdate ON bookings (status, tripdate, id);
CREATE INDEX bookings_status_booking_date ON bookings (status, booking_date, id);
CREATE INDEX bookings_active ON bookings (tripdate, id) WHERE active;
-- Cover the earnings sums of a date range with index-only scans: by status
-- (rides, charged cancellations) and trip date, for everyone and for one
-- fleet, with every summed column.
CREATE INDEX bookings_earnings ON bookings (status, tripdate) INCLUDE (
    driver, fleetadmin, id,
    driver_share_micros, trip_cost_micros, convenience_fees_micros,
    discount_amount_micros, customer_paid_micros, cancellation_fee_micros,
    driver_name, vehicle_number
) WHERE driver IS NOT NULL;
CREATE INDEX bookings_fleet_earnings ON bookings (fleetadmin, status, tripdate) INCLUDE (
    driver, id,
    driver_share_micros, trip_cost_micros, convenience_fees_micros,
    discount_amount_micros, customer_paid_micros, cancellation_fee_micros,
    driver_name, vehicle_number
) WHERE fleetadmin IS NOT NULL AND driver IS NOT NULL;
CREATE INDEX bookings_search ON bookings USING GIN (search_vector);

-- The drivers a booking is offered to, rewritten from requestedDrivers at
-- every commit: "the bookings offered to this driver" is an index seek.
CREATE TABLE booking_offers (
    booking_id UUID NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    driver_id UUID NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (booking_id, driver_id)
);
CREATE INDEX booking_offers_driver ON booking_offers (driver_id, booking_id);

CREATE TABLE wallet_entries (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_type TEXT NOT NULL,
    amount_micros BIGINT NOT NULL,
    date BIGINT NOT NULL,
    tx_ref TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (user_id, idempotency_key)
);
CREATE INDEX wallet_entries_user_date ON wallet_entries (user_id, date, id);

CREATE TABLE tracking_points (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    booking_id UUID NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    at BIGINT NOT NULL,
    status TEXT NOT NULL,
    lat DOUBLE PRECISION NOT NULL,
    lng DOUBLE PRECISION NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX tracking_points_booking ON tracking_points (booking_id, at, seq);

CREATE TABLE chat_messages (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id UUID NOT NULL UNIQUE,
    booking_id UUID NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    sender UUID NOT NULL,
    read_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE INDEX chat_messages_booking ON chat_messages (booking_id, created_at, seq);

CREATE TABLE promos (
    id UUID PRIMARY KEY,
    name TEXT NOT NULL,
    user_avail BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE UNIQUE INDEX promos_name ON promos (name);

CREATE TABLE promo_uses (
    promo_name TEXT NOT NULL,
    user_id UUID NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (promo_name, user_id)
);

CREATE TABLE notifications (
    id UUID PRIMARY KEY,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE INDEX notifications_created ON notifications (created_at, id);

CREATE TABLE withdraws (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL,
    date BIGINT NOT NULL,
    amount_micros BIGINT NOT NULL,
    processed BOOLEAN NOT NULL,
    proces_date BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
CREATE INDEX withdraws_date ON withdraws (date, id);
CREATE INDEX withdraws_user_date ON withdraws (user_id, date, id);

CREATE TABLE languages (
    id UUID PRIMARY KEY,
    locale TEXT NOT NULL,
    is_default BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    doc JSONB NOT NULL
);
-- At most one default, enforced here; "at least one" is kept by refusing to
-- delete or unset the default.
CREATE UNIQUE INDEX languages_one_default ON languages (is_default) WHERE is_default;

CREATE TABLE files (
    id UUID PRIMARY KEY,
    owner UUID,
    key TEXT NOT NULL,
    mime TEXT NOT NULL,
    size BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE otp_challenges (
    id UUID PRIMARY KEY,
    contact TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    consumed_at BIGINT,
    client TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX otp_challenges_contact ON otp_challenges (contact, created_at, id);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
