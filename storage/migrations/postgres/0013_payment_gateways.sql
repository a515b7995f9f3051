-- Payment gateways (issue #37). A payer's payments, newest first (receipts,
-- a booking's refunds, the panel).
CREATE INDEX payments_customer ON payments (customer, created_at);

-- A gateway's settings as saved from the panel: `fields` is a JSON object of
-- the gateway's fields by the original product's names; secrets in it are
-- sealed (AES-256-GCM with `payments.secrets_key`), never stored in clear.
CREATE TABLE payment_gateways (
    name TEXT PRIMARY KEY,
    active BOOLEAN NOT NULL,
    testing BOOLEAN NOT NULL,
    fields JSONB NOT NULL,
    updated_by UUID REFERENCES users (id) ON DELETE SET NULL,
    updated_at BIGINT NOT NULL
);

-- Who changed which gateway's settings, when, and which fields (names only).
CREATE TABLE payment_gateway_changes (
    id UUID PRIMARY KEY,
    name TEXT NOT NULL,
    changed_by UUID REFERENCES users (id) ON DELETE SET NULL,
    changed_at BIGINT NOT NULL,
    changed JSONB NOT NULL
);
CREATE INDEX payment_gateway_changes_name ON payment_gateway_changes (name, changed_at);
