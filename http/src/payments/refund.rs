//! Money back to a card through the gateway that took it (issue #37): the
//! one call the refund route makes to a gateway, through its `Gateway::refund`.

use crate::error::{ApiError, ApiResult};
use crate::payments::gateway::GatewayError;
use crate::payments::{self, gateways};
use crate::state::AppState;
use rust_decimal::Decimal;
use wayfare_engine::ErrorKey;
use wayfare_storage::PaymentRecord;

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
