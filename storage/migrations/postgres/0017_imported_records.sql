-- Imports from the original product (issue #38). Each imported record's
-- original key and the fields Wayfare has no column or document field for,
-- by source (`exicube`), node (`users`, `bookings`, …) and key; `entity_id`
-- is the Wayfare record it became (NULL for records Wayfare has no entity
-- for, such as complaints, kept here as they were). A second import of the
-- same export updates these rows.
CREATE TABLE imported_records (
    source TEXT NOT NULL,
    node TEXT NOT NULL,
    original_key TEXT NOT NULL,
    entity_id UUID,
    extra JSONB NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (source, node, original_key)
);
CREATE INDEX imported_records_entity ON imported_records (entity_id) WHERE entity_id IS NOT NULL;

-- Tracking points an import wrote: a second import replaces a booking's
-- imported points and leaves the ones Wayfare recorded.
ALTER TABLE tracking_points ADD COLUMN imported BOOLEAN NOT NULL DEFAULT FALSE;
