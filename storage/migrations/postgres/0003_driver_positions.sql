-- Drivers' latest positions, apart from the wide users row: the runtime
-- writes them every few seconds for every moving driver, and rewriting each
-- user's whole row (its JSON document included) is far more work than a
-- narrow table keyed by user.
CREATE TABLE driver_positions (
    user_id UUID PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    lat DOUBLE PRECISION NOT NULL,
    lng DOUBLE PRECISION NOT NULL,
    updated_at BIGINT NOT NULL
);
