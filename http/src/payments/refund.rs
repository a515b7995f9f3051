//! Money back to a card through the gateway that took it (issue #37): the
//! one call the refund route makes to a gateway, through its `Gateway::refund`,
//! and the per-booking lock that refunds run under.
//!
//! Why a lock: the refund route checks what is left to refund, calls the
//! gateway, then has the booking's actor record the refund. The actor checks
//! again, so the ledger never over-refunds, but by then the gateway has paid
//! out: two refunds of one booking that each fit alone would both reach the
//! card. So a booking's refunds take turns, the check and the gateway call
//! and the record all inside the turn. The lock is a storage lease (kind
//! `refund`, key the booking), so it holds across the nodes of a cluster.

use crate::error::{ApiError, ApiResult};
use crate::payments::gateway::GatewayError;
use crate::payments::{self, gateways};
use crate::state::AppState;
use rust_decimal::Decimal;
use std::time::Duration;
use wayfare_engine::{BookingId, ErrorKey, Millis};
use wayfare_storage::PaymentRecord;

/// The lease kind of a booking's refund lock.
pub const REFUND_LOCK_KIND: &str = "refund";
/// How long a lock outlives a holder that died: longer than a gateway call
/// (its client gives up after 30 s) and the record.
pub const REFUND_LOCK_TTL_MS: Millis = 2 * 60_000;
/// How long a refund waits for the one before it; past that it is 409
/// `update_failed` and may be sent again.
const REFUND_LOCK_WAIT: Duration = Duration::from_secs(45);
const REFUND_LOCK_POLL: Duration = Duration::from_millis(20);

/// Runs `work` holding the refund lock of `booking`: waits for the holder
/// before (up to 45 s, else 409 `update_failed`), and lets go after, however
/// `work` ended. Callers spawn this, so that a refund the gateway made is
/// recorded even when the admin's request goes away.
pub async fn one_refund_at_a_time<T>(
    state: &AppState,
    booking: BookingId,
    work: impl Future<Output = ApiResult<T>>,
) -> ApiResult<T> {
    let key = booking.to_string();
    let holder = format!("refund:{}", uuid::Uuid::now_v7());
    let give_up = tokio::time::Instant::now() + REFUND_LOCK_WAIT;
    loop {
        let now = state.now();
        if state.storage.acquire_lease(REFUND_LOCK_KIND, &key, &holder, now, now + REFUND_LOCK_TTL_MS).await? {
            break;
        }
        if tokio::time::Instant::now() >= give_up {
            tracing::warn!(booking_id = %booking, "a refund waited too long for the one before it");
            return Err(ErrorKey::UpdateFailed.into());
        }
        tokio::time::sleep(REFUND_LOCK_POLL).await;
    }
    let outcome = work.await;
    if let Err(error) = state.storage.release_lease(REFUND_LOCK_KIND, &key, &holder).await {
        // It lapses by itself; the next refund waits until then.
        tracing::warn!(booking_id = %booking, %error, "the refund lock was not released");
    }
    outcome
}

/// What the gateway answered to a refund it made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayRefund {
    /// The gateway's id of the refund.
    pub reference: String,
}

/// Refunds `amount` of `payment` through its gateway, once per
/// `idempotency_key` where the provider takes one. A gateway switched off
/// since still refunds what it took, as long as its settings are complete.
/// A provider without refunds is 400 `invalid_input` on `destination` (the
/// wallet remains); a provider refusing or unreachable is 503 `unavailable`.
pub async fn refund_at_gateway(
    state: &AppState,
    payment: &PaymentRecord,
    amount: Decimal,
    idempotency_key: &str,
) -> ApiResult<GatewayRefund> {
    let gateway = gateways::find(&payment.gateway).ok_or(ErrorKey::NoProviderFound)?;
    let settings = state.gateways.settings(state.storage.as_ref(), gateway).await?;
    if let Some(field) = settings.missing(gateway).first() {
        return Err(ApiError::Unavailable(format!("{}: the setting {field} is not set", gateway.name())));
    }
    let call = payments::call(state, gateway, &settings);
    match gateway.refund(&call, payment, amount, idempotency_key).await {
        Ok(refunded) => {
            tracing::info!(payment = %payment.id, gateway = gateway.name(), %amount, reference = %refunded.reference, "refunded through the gateway");
            Ok(GatewayRefund { reference: refunded.reference })
        }
        Err(GatewayError::Unsupported(why)) => {
            tracing::info!(gateway = gateway.name(), why, "the gateway cannot refund");
            Err(ApiError::field(ErrorKey::InvalidInput, "destination"))
        }
        Err(error) => Err(ApiError::Unavailable(format!("{}: {error}", gateway.name()))),
    }
}
