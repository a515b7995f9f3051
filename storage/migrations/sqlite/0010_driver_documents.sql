-- Drivers' documents (issue #33): one row per driver and kind, the current
-- one; a new upload replaces the row (the replaced file stays in the file
-- store, unreferenced). The columns are what queries filter on; the row is
-- the document.
CREATE TABLE driver_documents (
    driver_id BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    expires_at INTEGER,
    reminded_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (driver_id, kind)
);
-- The approval queue: drivers with a document waiting, by driver.
CREATE INDEX driver_documents_pending ON driver_documents (driver_id) WHERE status = 'pending';
-- The expiry sweep: documents not yet reminded, by expiry.
CREATE INDEX driver_documents_unreminded ON driver_documents (expires_at) WHERE reminded_at IS NULL AND expires_at IS NOT NULL;
