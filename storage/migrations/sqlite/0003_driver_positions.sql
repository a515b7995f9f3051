-- Drivers' latest positions, apart from the wide users row: the runtime
-- writes them every few seconds for every moving driver, and rewriting each
-- user's whole row (its JSON document included) held the write lock long
-- enough to delay booking commits. A narrow table keyed by user keeps the
-- flush of thousands of positions to a few pages.
CREATE TABLE driver_positions (
    user_id BLOB PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    lat REAL NOT NULL,
    lng REAL NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
