//! Checkout and confirmation routes of the payment gateways (see
//! `crate::payments`). The provider links the app posts its checkout form to
//! are `/api/v1/payments/test/checkout` and `/api/v1/payments/stripe/checkout`.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::PathParam;
use crate::openapi::refusals::{Refusals, public, session};
use crate::payments::stripe::{self, SessionRequest};
use crate::payments::{self, CheckoutForm, STRIPE_GATEWAY, Settled, TEST_GATEWAY};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::HeaderMap;
use axum::response::{Html, Redirect};
use serde::Deserialize;
use utoipa_axum::routes;
use uuid::Uuid;
use wayfare_engine::ErrorKey;
use wayfare_engine::money;
use wayfare_storage::{PaymentOrder, PaymentRecord, PaymentStatus};

/// A checkout form (`crate::payments::start_checkout`): the gateway off, a
/// malformed field, a wrong amount, someone else's booking, a booking that
/// does not await payment.
const CHECKOUT: Refusals =
    session![NoProviderFound, InvalidInput, InvalidAmount, NotAllowed, NotFound, StatusNotAllowed];

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(test_checkout))
        .routes(routes!(test_page, test_settle))
        .routes(routes!(stripe_checkout))
        .routes(routes!(stripe_webhook))
}

fn form_of(form: Result<Form<CheckoutForm>, FormRejection>) -> ApiResult<CheckoutForm> {
    form.map(|Form(form)| form).map_err(|rejection| {
        tracing::debug!(%rejection, "bad checkout form");
        ApiError::field(ErrorKey::InvalidInput, "body")
    })
}

fn no_provider() -> ApiError {
    ApiError::key(ErrorKey::NoProviderFound)
}

// ---- the test gateway ---------------------------------------------------------------

#[utoipa::path(
    post,
    path = payments::TEST_CHECKOUT_LINK,
    tag = "payments",
    summary = "Check out with the test gateway",
    description = "The built-in `test` provider's link (on with `payments.test_gateway`, which `--demo` sets; otherwise 404 `no_provider_found`). Takes the spec §7 checkout form, form-urlencoded, from the signed-in payer (`cust_id` must be them): `order_id` a booking of theirs awaiting payment (PAYMENT_PENDING, REACHED or PENDING) with `amount` exactly its `payableAmount`, or `wallet-…` for a wallet top-up of any positive amount up to 1,000,000 with no more decimals than `settings.decimal`; `currency` the settings' `code`. Answers 303 to the gateway's page.",
    request_body(content = CheckoutForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "To the test gateway's page", headers(("Location" = String, description = "`/api/v1/payments/test/pay/{id}`")))),
    extensions(("x-refusals" = json!(CHECKOUT))),
)]
async fn test_checkout(
    State(state): State<AppState>,
    current: CurrentUser,
    form: Result<Form<CheckoutForm>, FormRejection>,
) -> ApiResult<Redirect> {
    if !state.config.payments.test_gateway {
        return Err(no_provider());
    }
    let form = form_of(form)?;
    let payment = payments::start_checkout(&state, current.principal.id, TEST_GATEWAY, &form).await?;
    Ok(Redirect::to(&format!("/api/v1/payments/test/pay/{}", payment.id)))
}

/// A test payment of the signed-in payer; anyone else's is not known to exist.
async fn test_payment(state: &AppState, current: &CurrentUser, id: Uuid) -> ApiResult<PaymentRecord> {
    if !state.config.payments.test_gateway {
        return Err(no_provider());
    }
    let payment = state.storage.payment(id).await?;
    if payment.gateway != TEST_GATEWAY || payment.customer != current.principal.id {
        return Err(ErrorKey::NotFound.into());
    }
    Ok(payment)
}

#[utoipa::path(
    get,
    path = "/api/v1/payments/test/pay/{id}",
    tag = "payments",
    summary = "The test gateway's page",
    description = "A small HTML page showing what is paid, with a \"Pay\" and a \"Fail\" button (forms posting back here). For the payer only.",
    params(("id" = Uuid, Path, description = "The payment's id")),
    responses((status = 200, description = "The page", content_type = "text/html", body = String)),
    extensions(("x-refusals" = json!(session![NoProviderFound, NotFound]))),
)]
async fn test_page(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<Uuid>,
) -> ApiResult<Html<String>> {
    let payment = test_payment(&state, &current, id).await?;
    let settings = state.runtime.catalog().settings.clone();
    let what = match payment.order {
        PaymentOrder::Booking(booking) => format!("Booking {booking}"),
        PaymentOrder::WalletTopUp => "Wallet top-up".to_string(),
    };
    let amount = money::format_currency(payment.amount, &settings);
    let action = format!("/api/v1/payments/test/pay/{}", payment.id);
    let body = match payment.status {
        PaymentStatus::Pending => format!(
            "<form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"action\" value=\"pay\"><button type=\"submit\" id=\"pay\">Pay</button></form>\n\
             <form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"action\" value=\"fail\"><button type=\"submit\" id=\"fail\">Fail</button></form>"
        ),
        PaymentStatus::Paid => {
            format!("<p id=\"status\">Paid.</p><p><a href=\"{}\">Continue</a></p>", escape(&payment.success_url))
        }
        PaymentStatus::Failed => {
            format!("<p id=\"status\">Failed.</p><p><a href=\"{}\">Continue</a></p>", escape(&payment.cancel_url))
        }
    };
    Ok(Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>Test payment</title></head>\n<body style=\"font-family: sans-serif; max-width: 28rem; margin: 3rem auto\">\n\
         <h1>Test payment</h1>\n<p>This gateway moves no money: it is for development and demos.</p>\n\
         <p>{}</p>\n<p id=\"amount\">{}</p>\n{body}\n</body></html>\n",
        escape(&what),
        escape(&amount),
    )))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct TestSettleForm {
    /// `pay` or `fail`.
    action: String,
}

#[utoipa::path(
    post,
    path = "/api/v1/payments/test/pay/{id}",
    tag = "payments",
    summary = "Pay or fail a test payment",
    description = "The test page's buttons, by the payer. `pay` confirms the payment on the server as a gateway confirmation would (once: a booking PAYMENT_PENDING becomes NEW and is dispatched, REACHED or PENDING becomes PAID; a top-up credits the wallet) and answers 303 to the checkout's `success_url`; `fail` closes it and answers 303 to `cancel_url`. A settled payment is 409 `already_processed`.",
    params(("id" = Uuid, Path, description = "The payment's id")),
    request_body(content = TestSettleForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "Back to the app", headers(("Location" = String, description = "The checkout's `success_url` or `cancel_url` (a path on this site)")))),
    extensions(("x-refusals" = json!(session![
        NoProviderFound, NotFound, InvalidInput, AlreadyProcessed, StatusNotAllowed, UpdateFailed
    ]))),
)]
async fn test_settle(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<Uuid>,
    form: Result<Form<TestSettleForm>, FormRejection>,
) -> ApiResult<Redirect> {
    let payment = test_payment(&state, &current, id).await?;
    let Ok(Form(form)) = form else { return Err(ApiError::field(ErrorKey::InvalidInput, "action")) };
    match form.action.as_str() {
        "pay" => {
            if payment.status != PaymentStatus::Pending {
                return Err(ErrorKey::AlreadyProcessed.into());
            }
            payments::confirm(&state, &payment, payment.amount, None).await?;
            Ok(Redirect::to(&payment.success_url))
        }
        "fail" => {
            payments::fail(&state, &payment).await?;
            Ok(Redirect::to(&payment.cancel_url))
        }
        _ => Err(ApiError::field(ErrorKey::InvalidInput, "action")),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

// ---- Stripe Checkout ----------------------------------------------------------------------

#[utoipa::path(
    post,
    path = payments::STRIPE_CHECKOUT_LINK,
    tag = "payments",
    summary = "Check out with Stripe",
    description = "The `stripe` provider's link (on when `payments.stripe.secret_key` and `webhook_secret` are set; otherwise 404 `no_provider_found`). The same form and rules as the test gateway; makes a Stripe Checkout Session (the payment id is its `client_reference_id` and idempotency key) and answers 303 to Stripe's page. Stripe unreachable or refusing: 503 `unavailable`. The payment is confirmed by the webhook only.",
    request_body(content = CheckoutForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "To Stripe Checkout", headers(("Location" = String, description = "The session's `url`")))),
    extensions(("x-refusals" = json!(CHECKOUT))),
)]
async fn stripe_checkout(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    form: Result<Form<CheckoutForm>, FormRejection>,
) -> ApiResult<Redirect> {
    let config = &state.config.payments.stripe;
    if !config.enabled() {
        return Err(no_provider());
    }
    let form = form_of(form)?;
    let payment = payments::start_checkout(&state, current.principal.id, STRIPE_GATEWAY, &form).await?;
    let amount_minor = stripe::minor_units(payment.amount, &payment.currency)
        .ok_or_else(|| ApiError::field(ErrorKey::InvalidAmount, "amount"))?;
    let base = crate::site::public_base(&state.config, &headers);
    let request = SessionRequest {
        payment_id: payment.id.to_string(),
        order_id: form.order_id.trim(),
        amount_minor,
        currency: &payment.currency,
        product_name: &form.product_name,
        customer_email: &form.email,
        success_url: format!("{base}{}", payment.success_url),
        cancel_url: format!("{base}{}", payment.cancel_url),
    };
    let session = match stripe::create_session(&state.http_client, config, &request).await {
        Ok(session) => session,
        Err(error) => {
            let _ = payments::fail(&state, &payment).await;
            return Err(ApiError::Unavailable(format!("stripe checkout session: {error}")));
        }
    };
    state.storage.set_payment_reference(payment.id, &session.id, state.now()).await?;
    Ok(Redirect::to(&session.url))
}

/// What the webhook answers Stripe.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct WebhookAnswer {
    received: bool,
    /// Whether this event settled a payment (false for replays and other events).
    settled: bool,
}

#[utoipa::path(
    post,
    path = "/api/v1/payments/stripe/webhook",
    tag = "payments",
    summary = "Stripe's webhook",
    description = "Called by Stripe, not by people. The raw body must carry a valid `Stripe-Signature` (HMAC-SHA256 of `t.body` with `payments.stripe.webhook_secret`, `t` within `payments.stripe.tolerance_secs`), else 400 `invalid_signature`. A paid `checkout.session.completed` (or `checkout.session.async_payment_succeeded`) confirms its payment once, if its amount and currency are the checkout's (else 400 `invalid_amount`); replays and other events answer 200 and change nothing.",
    request_body(content = String, content_type = "application/json", description = "A Stripe event, as Stripe signed it (the raw bytes are verified)"),
    responses((status = 200, description = "Received", body = WebhookAnswer)),
    extensions(("x-refusals" = json!(public![
        NoProviderFound, InvalidSignature, InvalidInput, InvalidAmount, NotFound, AlreadyProcessed, StatusNotAllowed,
        UpdateFailed
    ]))),
)]
async fn stripe_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<WebhookAnswer>> {
    let config = &state.config.payments.stripe;
    if !config.enabled() {
        return Err(no_provider());
    }
    let signature = headers.get("stripe-signature").and_then(|value| value.to_str().ok()).unwrap_or_default();
    let secret = config.webhook_secret.as_deref().unwrap_or_default();
    let now_secs = state.now().div_euclid(1000);
    if let Err(error) = stripe::verify_signature(&body, signature, secret, now_secs, config.tolerance_secs) {
        tracing::warn!(%error, "stripe webhook refused");
        return Err(ErrorKey::InvalidSignature.into());
    }
    let event: stripe::Event =
        serde_json::from_slice(&body).map_err(|_| ApiError::field(ErrorKey::InvalidInput, "body"))?;
    let Some(paid) = event.paid_session() else {
        return Ok(Json(WebhookAnswer { received: true, settled: false }));
    };
    let payment_id = paid.payment_id.as_deref().and_then(|id| id.parse::<Uuid>().ok()).ok_or(ErrorKey::NotFound)?;
    let payment = state.storage.payment(payment_id).await?;
    let same_session = payment.gateway_ref.as_deref().is_none_or(|session| session == paid.session_id);
    if payment.gateway != STRIPE_GATEWAY || !same_session {
        return Err(ErrorKey::NotFound.into());
    }
    let expected_minor = stripe::minor_units(payment.amount, &payment.currency);
    let same_currency =
        paid.currency.as_deref().is_some_and(|currency| currency.eq_ignore_ascii_case(&payment.currency));
    if paid.amount_total.is_none() || paid.amount_total != expected_minor || !same_currency {
        tracing::warn!(payment = %payment.id, event = %event.id, "stripe amount or currency differs; not confirmed");
        return Err(ApiError::field(ErrorKey::InvalidAmount, "amount"));
    }
    let settled = payments::confirm(&state, &payment, payment.amount, Some(&event.id)).await?;
    Ok(Json(WebhookAnswer { received: true, settled: settled == Settled::Now }))
}
