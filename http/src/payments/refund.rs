//! Money back to a card through the gateway that took it (issue #37). The
//! one call the refund route makes to a gateway; the gateways' own refund
//! calls live behind the `Gateway` trait, which replaces this body.

use crate::error::{ApiError, ApiResult};
use crate::payments::TEST_GATEWAY;
use crate::state::AppState;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

/// What the gateway answered to a refund it made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayRefund {
    /// The gateway's id of the refund.
    pub reference: String,
}

/// Refunds `amount` of `payment` through its gateway, once per
/// `idempotency_key`. The built-in `test` gateway moves no money: it answers
/// a reference of its own.
pub async fn refund_at_gateway(
    _state: &AppState,
    payment: &PaymentRecord,
    amount: Decimal,
    idempotency_key: &str,
) -> ApiResult<GatewayRefund> {
    if payment.gateway == TEST_GATEWAY {
        tracing::info!(payment = %payment.id, %amount, key = idempotency_key, "test gateway refund");
        return Ok(GatewayRefund { reference: format!("test-refund-{}", uuid::Uuid::now_v7()) });
    }
    Err(ApiError::Unavailable(format!("refunds through {} are not wired yet", payment.gateway)))
}
