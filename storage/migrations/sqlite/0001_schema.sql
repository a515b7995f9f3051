-- Wayfare storage schema, SQLite flavour. Keep in step with
-- migrations/postgres/0001_schema.sql: same tables, columns and index names.
--
-- Each entity keeps its full JSON document in `doc` (last column, so reading
-- the typed columns never touches the document's overflow pages) and copies
-- every field that is queried, sorted, summed or constrained into a typed
-- column. Ids are 16-byte BLOBs (UUID), times are milliseconds since the
-- epoch, money is an integer number of micro-units (amount x 10^6) so that
-- sums are exact. Tables searched with FTS5 have an explicit
-- `seq INTEGER PRIMARY KEY` so their rowids survive VACUUM.

CREATE TABLE settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);

CREATE TABLE car_types (
    id BLOB PRIMARY KEY,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE UNIQUE INDEX car_types_name ON car_types (name);

CREATE TABLE cancel_reasons (
    position INTEGER PRIMARY KEY,
    reason TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE payment_providers (
    position INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    link TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE users (
    seq INTEGER PRIMARY KEY,
    id BLOB NOT NULL UNIQUE,
    role TEXT NOT NULL,
    email TEXT NOT NULL,
    mobile TEXT NOT NULL,
    referral TEXT NOT NULL,
    fleetadmin BLOB,
    approved BOOLEAN NOT NULL,
    driver_active BOOLEAN NOT NULL,
    queue BOOLEAN NOT NULL,
    car_type TEXT,
    lat REAL,
    lng REAL,
    wallet_balance_micros INTEGER NOT NULL DEFAULT 0,
    platform TEXT NOT NULL,
    push_token TEXT,
    language TEXT,
    search_text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email <> '';
CREATE UNIQUE INDEX users_mobile ON users (mobile) WHERE mobile <> '';
CREATE UNIQUE INDEX users_referral ON users (referral) WHERE referral <> '';
CREATE INDEX users_created ON users (created_at, id);
CREATE INDEX users_role ON users (role, created_at, id);
CREATE INDEX users_fleetadmin ON users (fleetadmin, created_at, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX users_online ON users (role) WHERE driver_active;

CREATE VIRTUAL TABLE users_fts USING fts5 (
    search_text,
    content = 'users',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 0',
    prefix = '1 2 3'
);
CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER users_fts_update AFTER UPDATE OF search_text ON users
WHEN old.search_text IS NOT new.search_text BEGIN
    INSERT INTO users_fts (users_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
    INSERT INTO users_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;

CREATE TABLE bookings (
    seq INTEGER PRIMARY KEY,
    id BLOB NOT NULL UNIQUE,
    version INTEGER NOT NULL,
    reference TEXT NOT NULL,
    status TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    customer BLOB NOT NULL,
    driver BLOB,
    fleetadmin BLOB,
    tripdate INTEGER NOT NULL,
    booking_date INTEGER NOT NULL,
    trip_cost_micros INTEGER NOT NULL,
    driver_share_micros INTEGER NOT NULL,
    convenience_fees_micros INTEGER NOT NULL,
    discount_amount_micros INTEGER NOT NULL,
    customer_paid_micros INTEGER NOT NULL,
    cancellation_fee_micros INTEGER NOT NULL,
    driver_name TEXT NOT NULL,
    vehicle_number TEXT NOT NULL,
    search_text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
-- One index per list the product shows, each ending in the sort key and id so
-- a keyset page is one index seek: all bookings, a rider's, a driver's, a
-- fleet's and a status', by trip date or by booking date.
-- The two unscoped orders also carry the search text, so a search for a
-- common word walks them without reading the table.
CREATE INDEX bookings_tripdate ON bookings (tripdate, id, search_text);
CREATE INDEX bookings_booking_date ON bookings (booking_date, id, search_text);
CREATE INDEX bookings_customer_tripdate ON bookings (customer, tripdate, id);
CREATE INDEX bookings_customer_booking_date ON bookings (customer, booking_date, id);
CREATE INDEX bookings_driver_tripdate ON bookings (driver, tripdate, id) WHERE driver IS NOT NULL;
CREATE INDEX bookings_driver_booking_date ON bookings (driver, booking_date, id) WHERE driver IS NOT NULL;
CREATE INDEX bookings_fleetadmin_tripdate ON bookings (fleetadmin, tripdate, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX bookings_fleetadmin_booking_date ON bookings (fleetadmin, booking_date, id) WHERE fleetadmin IS NOT NULL;
CREATE INDEX bookings_status_tripdate ON bookings (status, tripdate, id);
CREATE INDEX bookings_status_booking_date ON bookings (status, booking_date, id);
CREATE INDEX bookings_active ON bookings (tripdate, id) WHERE active;
-- Cover the earnings sums of a date range without reading the table: by
-- status (rides, charged cancellations) and trip date, for everyone and for
-- one fleet, with every summed column.
CREATE INDEX bookings_earnings ON bookings (
    status, tripdate, driver, fleetadmin, id,
    driver_share_micros, trip_cost_micros, convenience_fees_micros,
    discount_amount_micros, customer_paid_micros, cancellation_fee_micros,
    driver_name, vehicle_number
) WHERE driver IS NOT NULL;
CREATE INDEX bookings_fleet_earnings ON bookings (
    fleetadmin, status, tripdate, driver, id,
    driver_share_micros, trip_cost_micros, convenience_fees_micros,
    discount_amount_micros, customer_paid_micros, cancellation_fee_micros,
    driver_name, vehicle_number
) WHERE fleetadmin IS NOT NULL AND driver IS NOT NULL;

CREATE VIRTUAL TABLE bookings_fts USING fts5 (
    search_text,
    content = 'bookings',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 0',
    prefix = '1 2 3'
);
CREATE TRIGGER bookings_fts_insert AFTER INSERT ON bookings BEGIN
    INSERT INTO bookings_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER bookings_fts_delete AFTER DELETE ON bookings BEGIN
    INSERT INTO bookings_fts (bookings_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER bookings_fts_update AFTER UPDATE OF search_text ON bookings
WHEN old.search_text IS NOT new.search_text BEGIN
    INSERT INTO bookings_fts (bookings_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
    INSERT INTO bookings_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;

-- The drivers a booking is offered to, rewritten from requestedDrivers at
-- every commit: "the bookings offered to this driver" is an index seek.
CREATE TABLE booking_offers (
    booking_id BLOB NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    driver_id BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (booking_id, driver_id)
) WITHOUT ROWID;
CREATE INDEX booking_offers_driver ON booking_offers (driver_id, booking_id);

CREATE TABLE wallet_entries (
    id BLOB PRIMARY KEY,
    user_id BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_type TEXT NOT NULL,
    amount_micros INTEGER NOT NULL,
    date INTEGER NOT NULL,
    tx_ref TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (user_id, idempotency_key)
);
CREATE INDEX wallet_entries_user_date ON wallet_entries (user_id, date, id);

CREATE TABLE tracking_points (
    seq INTEGER PRIMARY KEY,
    booking_id BLOB NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    status TEXT NOT NULL,
    lat REAL NOT NULL,
    lng REAL NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX tracking_points_booking ON tracking_points (booking_id, at, seq);

CREATE TABLE chat_messages (
    seq INTEGER PRIMARY KEY,
    id BLOB NOT NULL UNIQUE,
    booking_id BLOB NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    sender BLOB NOT NULL,
    read_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX chat_messages_booking ON chat_messages (booking_id, created_at, seq);

CREATE TABLE promos (
    id BLOB PRIMARY KEY,
    name TEXT NOT NULL,
    user_avail INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE UNIQUE INDEX promos_name ON promos (name);

CREATE TABLE promo_uses (
    promo_name TEXT NOT NULL,
    user_id BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (promo_name, user_id)
) WITHOUT ROWID;

CREATE TABLE notifications (
    id BLOB PRIMARY KEY,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX notifications_created ON notifications (created_at, id);

CREATE TABLE withdraws (
    id BLOB PRIMARY KEY,
    user_id BLOB NOT NULL,
    date INTEGER NOT NULL,
    amount_micros INTEGER NOT NULL,
    processed BOOLEAN NOT NULL,
    proces_date INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX withdraws_date ON withdraws (date, id);
CREATE INDEX withdraws_user_date ON withdraws (user_id, date, id);

CREATE TABLE languages (
    id BLOB PRIMARY KEY,
    locale TEXT NOT NULL,
    is_default BOOLEAN NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL
);
-- At most one default, enforced here; "at least one" is kept by refusing to
-- delete or unset the default.
CREATE UNIQUE INDEX languages_one_default ON languages (is_default) WHERE is_default;

CREATE TABLE files (
    id BLOB PRIMARY KEY,
    owner BLOB,
    key TEXT NOT NULL,
    mime TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE otp_challenges (
    id BLOB PRIMARY KEY,
    contact TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    consumed_at INTEGER,
    client TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX otp_challenges_contact ON otp_challenges (contact, created_at, id);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
