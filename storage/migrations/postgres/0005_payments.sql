-- Gateway payments (issue 6 "Payments"): one row per checkout, settled once.
-- `order_kind` is 'booking' (order_id names a booking) or 'wallet' (a wallet
-- top-up of `customer`). `gateway_ref` is the gateway's own id (a Stripe
-- Checkout Session); `event_id` the confirmation that settled it.
CREATE TABLE payments (
    id UUID PRIMARY KEY,
    gateway TEXT NOT NULL,
    order_kind TEXT NOT NULL,
    booking_id UUID REFERENCES bookings (id) ON DELETE SET NULL,
    customer UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    amount_micros BIGINT NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    gateway_ref TEXT,
    event_id TEXT,
    success_url TEXT NOT NULL,
    cancel_url TEXT NOT NULL,
    settled_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX payments_gateway_ref ON payments (gateway, gateway_ref);
CREATE INDEX payments_booking ON payments (booking_id);
