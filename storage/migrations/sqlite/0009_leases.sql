-- Ownership in cluster mode (issue #17): a node serves a booking (kind
-- 'booking', key its id) while it holds an unexpired lease on it. Taken and
-- renewed by compare-and-set on (kind, key); a lapsed lease is anyone's.
CREATE TABLE leases (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    node TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX leases_node ON leases (node);
CREATE INDEX leases_expiry ON leases (kind, expires_at);
