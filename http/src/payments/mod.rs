//! Payment gateways (spec §3 payment providers; §7 "External maps and
//! payment": the web app posts a form with order_id, amount, currency,
//! product_name, first_name, last_name, quantity, cust_id, mobile_no and email
//! to the chosen provider's link).
//!
//! A checkout is validated by the engine's rules (`wayfare_engine::payment`)
//! and recorded as a pending payment; the gateway then takes the payer:
//! the built-in `test` gateway to a page of ours with "Pay" and "Fail", Stripe
//! to its hosted Checkout. A confirmation (the test page's Pay, Stripe's
//! signed webhook) settles the payment once: a booking gets
//! `ConfirmPayment` through its actor (PAYMENT_PENDING → NEW and dispatched,
//! REACHED/PENDING → PAID with the driver's share in the ledger), a wallet
//! top-up is one ledger credit keyed by the payment. Replays change nothing.

pub mod gateway;
pub mod gateways;
pub mod refund;
pub mod registry;
pub mod secrets;
pub mod settings;

pub use gateway::CheckoutForm;
pub use registry::Gateways;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use gateway::{Call, Gateway};
use rust_decimal::Decimal;
use settings::GatewaySettings;
use wayfare_actors::{ActorError, Event};
use wayfare_engine::booking::{By, Command, WalletChange};
use wayfare_engine::payment::{self, CheckoutOrder};
use wayfare_engine::{ErrorKey, PaymentProvider, UserId, WalletEntryType};
use wayfare_storage::{PaymentOrder, PaymentRecord, PaymentStatus};

/// The built-in gateway that moves no money (`gateways::test`).
pub const TEST_GATEWAY: &str = gateways::test::NAME;

/// The gateway's checkout link the app posts its form to (spec §3 payment
/// provider `link`).
pub fn checkout_link(gateway: &str) -> String {
    format!("/api/v1/payments/{gateway}/checkout")
}

/// What a gateway is called with, for `settings`.
pub fn call<'a>(state: &'a AppState, gateway: &dyn Gateway, settings: &'a GatewaySettings) -> Call<'a> {
    let api_base = settings.api_base.clone().unwrap_or_else(|| gateway.api_base(settings.testing).to_string());
    let public_url = state.config.payments.public_url.as_deref().map(|url| url.trim_end_matches('/').to_string());
    Call {
        http: &state.http_client,
        settings,
        api_base,
        now_ms: state.now(),
        public_url: public_url.filter(|url| !url.is_empty()),
    }
}

/// The provider list the app shows: the stored one, plus every gateway that
/// is on and not listed.
pub async fn with_configured_gateways(
    state: &AppState,
    mut providers: Vec<PaymentProvider>,
) -> ApiResult<Vec<PaymentProvider>> {
    for gateway in state.gateways.active(state.storage.as_ref()).await? {
        if !providers.iter().any(|provider| provider.name == gateway.name()) {
            providers.push(PaymentProvider { name: gateway.name().into(), link: checkout_link(gateway.name()) });
        }
    }
    Ok(providers)
}

/// Where a payer goes back to when the form names nowhere (or somewhere not ours).
pub const DEFAULT_RETURN: &str = "/bookings";

/// A checkout's return link, kept to a path on this site (`crate::site::local_path`).
pub fn local_return(url: Option<&str>) -> String {
    crate::site::local_path(url, DEFAULT_RETURN)
}

/// Validates a checkout form for `payer` (the signed-in caller) and records
/// it as a pending payment through `gateway`.
pub async fn start_checkout(
    state: &AppState,
    payer: UserId,
    gateway: &str,
    form: &CheckoutForm,
) -> ApiResult<PaymentRecord> {
    let catalog = state.runtime.catalog();
    let settings = &catalog.settings;
    let order = payment::parse_order(&form.order_id)?;
    let amount = payment::parse_amount(&form.amount)?;
    payment::check_currency(&form.currency, settings)?;
    // The form names its payer; it must be the one signed in.
    let customer: UserId =
        form.cust_id.trim().parse().map_err(|_| ApiError::field(ErrorKey::InvalidInput, "cust_id"))?;
    if customer != payer {
        return Err(ErrorKey::NotAllowed.into());
    }
    let order = match order {
        CheckoutOrder::Booking(id) => {
            let booking = state.runtime.booking(id).await?;
            payment::check_booking_checkout(&booking, payer, amount)?;
            PaymentOrder::Booking(id)
        }
        CheckoutOrder::WalletTopUp => {
            payment::check_top_up(amount, settings)?;
            PaymentOrder::WalletTopUp
        }
    };
    let record = PaymentRecord {
        id: uuid::Uuid::now_v7(),
        gateway: gateway.to_string(),
        order,
        customer,
        amount,
        currency: settings.code.trim().to_ascii_uppercase(),
        status: PaymentStatus::Pending,
        gateway_ref: None,
        event_id: None,
        success_url: local_return(form.success_url.as_deref()),
        cancel_url: local_return(form.cancel_url.as_deref()),
        settled_at: None,
        created_at: state.now(),
    };
    state.storage.insert_payment(&record).await?;
    tracing::info!(payment = %record.id, gateway, amount = %record.amount, "checkout started");
    Ok(record)
}

/// What a confirmation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// This confirmation settled the payment.
    Now,
    /// It had been settled before: nothing changed.
    Before,
}

/// Confirms a payment the gateway says was received, once: `paid` must be the
/// payment's amount. A booking that can no longer take it (cancelled in the
/// meantime) gets the money in its rider's wallet instead, so none is lost.
pub async fn confirm(
    state: &AppState,
    payment: &PaymentRecord,
    paid: Decimal,
    event_id: Option<&str>,
) -> ApiResult<Settled> {
    if payment.status == PaymentStatus::Paid {
        return Ok(Settled::Before);
    }
    if payment.status != PaymentStatus::Pending {
        return Err(ErrorKey::AlreadyProcessed.into());
    }
    if paid != payment.amount {
        tracing::warn!(payment = %payment.id, %paid, expected = %payment.amount, "gateway amount differs; not confirmed");
        return Err(ApiError::field(ErrorKey::InvalidAmount, "amount"));
    }
    match payment.order {
        PaymentOrder::Booking(booking) => {
            let command = Command::ConfirmPayment { gateway: payment.gateway.clone(), amount: payment.amount };
            match state.runtime.command(booking, By::System, command).await {
                Ok(_) => {}
                Err(ActorError::Domain(error)) if error.key == ErrorKey::StatusNotAllowed => {
                    let current = state.runtime.booking(booking).await?;
                    let applied_before = current.gateway.as_deref() == Some(payment.gateway.as_str())
                        && current.cardPaymentAmount == payment.amount
                        && !payment::awaits_payment(current.status);
                    if !applied_before {
                        tracing::warn!(payment = %payment.id, booking = %booking, status = %current.status.as_str(), "paid booking no longer takes payment; crediting the wallet");
                        credit_wallet(state, payment, payment::TX_REF_PAYMENT_REFUND).await?;
                    }
                }
                Err(other) => return Err(other.into()),
            }
        }
        PaymentOrder::WalletTopUp => credit_wallet(state, payment, payment::TX_REF_TOP_UP).await?,
    }
    let settled = state.storage.settle_payment(payment.id, PaymentStatus::Paid, event_id, state.now()).await?;
    tracing::info!(payment = %payment.id, gateway = %payment.gateway, settled, "payment confirmed");
    Ok(if settled { Settled::Now } else { Settled::Before })
}

/// One ledger credit per payment (its idempotency key), announced to the owner.
async fn credit_wallet(state: &AppState, payment: &PaymentRecord, tx_ref: &str) -> ApiResult<()> {
    let change = WalletChange {
        user: payment.customer,
        entry_type: WalletEntryType::Credit,
        amount: payment.amount,
        tx_ref: tx_ref.to_string(),
        idempotency_key: payment::payment_idempotency_key(payment.id),
        overdraw: false,
    };
    let outcome = state.storage.apply_wallet(&change, state.now()).await?;
    if outcome.applied {
        state.runtime.bus().publish(Event::WalletChanged { user: payment.customer, balance: outcome.balance });
    }
    Ok(())
}

/// The payer gave up (the test page's Fail): the payment is closed, the
/// booking keeps waiting (and is cancelled by its timer if never paid).
pub async fn fail(state: &AppState, payment: &PaymentRecord) -> ApiResult<()> {
    if payment.status != PaymentStatus::Pending {
        return Err(ErrorKey::AlreadyProcessed.into());
    }
    state.storage.settle_payment(payment.id, PaymentStatus::Failed, None, state.now()).await?;
    Ok(())
}
