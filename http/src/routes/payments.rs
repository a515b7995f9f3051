//! Checkout, notification and return routes of the payment gateways (see
//! `crate::payments`): `/api/v1/payments/{provider}/checkout` is the link the
//! app posts its checkout form to, `/webhook` where the provider notifies,
//! `/return/{id}` where it sends the payer back. The built-in `test`
//! gateway's page is here too.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::PathParam;
use crate::openapi::refusals::{Refusals, public, session};
use crate::payments::gateway::{GatewayError, Incoming, Order, PaymentKey, Received, Start, Verdict};
use crate::payments::{self, CheckoutForm, Settled, TEST_GATEWAY};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use utoipa_axum::routes;
use uuid::Uuid;
use wayfare_engine::ErrorKey;
use wayfare_engine::money;
use wayfare_storage::{PaymentOrder, PaymentRecord, PaymentStatus};

/// A checkout form (`crate::payments::start_checkout`): the gateway off, a
/// malformed field, a wrong amount, someone else's booking, a booking that
/// does not await payment, the provider unreachable.
const CHECKOUT: Refusals =
    session![NoProviderFound, InvalidInput, InvalidAmount, NotAllowed, NotFound, StatusNotAllowed];

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(checkout))
        .routes(routes!(test_page, test_settle))
        .routes(routes!(webhook))
        .routes(routes!(returned_get, returned_post))
}

fn form_of(form: Result<Form<CheckoutForm>, FormRejection>) -> ApiResult<CheckoutForm> {
    form.map(|Form(form)| form).map_err(|rejection| {
        tracing::debug!(%rejection, "bad checkout form");
        ApiError::field(ErrorKey::InvalidInput, "body")
    })
}

// ---- the test gateway's page --------------------------------------------------------

/// A test payment of the signed-in payer; anyone else's is not known to exist.
async fn test_payment(state: &AppState, current: &CurrentUser, id: Uuid) -> ApiResult<PaymentRecord> {
    state.gateways.usable(state.storage.as_ref(), TEST_GATEWAY).await?;
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

// ---- every gateway ----------------------------------------------------------------

/// A gateway's failure as the API answers it.
fn refused(gateway: &str, error: GatewayError) -> ApiError {
    match error {
        GatewayError::Signature(reason) => {
            tracing::warn!(gateway, %reason, "payment notification refused");
            ErrorKey::InvalidSignature.into()
        }
        GatewayError::Malformed(reason) => {
            tracing::warn!(gateway, %reason, "payment notification unreadable");
            ApiError::field(ErrorKey::InvalidInput, "body")
        }
        GatewayError::Unsupported(what) => {
            tracing::debug!(gateway, what, "not a route of this gateway");
            ErrorKey::NoProviderFound.into()
        }
        GatewayError::NotConfigured(_) | GatewayError::Provider(_) => {
            ApiError::Unavailable(format!("{gateway}: {error}"))
        }
    }
}

/// A page that posts `fields` to the provider at once (a button without scripts).
fn post_form_page(action: &str, fields: &[(String, String)]) -> Html<String> {
    let inputs: String = fields
        .iter()
        .map(|(name, value)| format!("<input type=\"hidden\" name=\"{}\" value=\"{}\">", escape(name), escape(value)))
        .collect();
    Html(format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>Payment</title></head>\n<body onload=\"document.forms[0].submit()\" style=\"font-family: sans-serif; max-width: 28rem; margin: 3rem auto\">\n\
         <form method=\"post\" action=\"{}\">{inputs}<button type=\"submit\">Continue to payment</button></form>\n</body></html>\n",
        escape(action)
    ))
}

#[utoipa::path(
    post,
    path = "/api/v1/payments/{provider}/checkout",
    tag = "payments",
    summary = "Check out with a gateway",
    description = "A provider's link (spec §3 payment provider `link`), for every gateway that is on (`GET /api/v1/payments/providers` lists them; otherwise 404 `no_provider_found`). Takes the spec §7 checkout form, form-urlencoded, from the signed-in payer (`cust_id` must be them): `order_id` a booking of theirs awaiting payment (PAYMENT_PENDING, REACHED or PENDING) with `amount` exactly its `payableAmount`, or `wallet-…` for a wallet top-up of any positive amount up to 1,000,000 with no more decimals than `settings.decimal`; `currency` the settings' `code`. Records a pending payment and answers 303 to the provider's page (or a page that posts a form to it, for providers that take one). The `test` gateway's page is `/api/v1/payments/test/pay/{id}`. The provider unreachable or refusing: 503 `unavailable`, and the payment is closed. The payment is confirmed only by the provider's signed notification or by asking the provider, never by the payer's return alone.",
    params(("provider" = String, Path, description = "The gateway's name (spec §3), e.g. `razorpay`")),
    request_body(content = CheckoutForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 303, description = "To the provider's page", headers(("Location" = String, description = "The provider's checkout page"))),
        (status = 200, description = "A page that posts the checkout to the provider", content_type = "text/html", body = String),
    ),
    extensions(("x-refusals" = json!(CHECKOUT))),
)]
async fn checkout(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    PathParam(provider): PathParam<String>,
    form: Result<Form<CheckoutForm>, FormRejection>,
) -> ApiResult<Response> {
    let (gateway, settings) = state.gateways.usable(state.storage.as_ref(), &provider).await?;
    let form = form_of(form)?;
    let payment = payments::start_checkout(&state, current.principal.id, gateway.name(), &form).await?;
    let base = crate::site::public_base(&state.config, &headers);
    let product = form.product_name.trim();
    let order = Order {
        payment: &payment,
        form: &form,
        description: if product.is_empty() {
            state.runtime.catalog().settings.appName.clone()
        } else {
            product.to_string()
        },
        return_url: format!("{base}/api/v1/payments/{}/return/{}", gateway.name(), payment.id),
        cancel_url: format!("{base}{}", payment.cancel_url),
        notify_url: format!("{base}/api/v1/payments/{}/webhook", gateway.name()),
    };
    let started = match gateway.checkout(&payments::call(&state, gateway, &settings), &order).await {
        Ok(started) => started,
        Err(error) => {
            let _ = payments::fail(&state, &payment).await;
            return Err(refused(gateway.name(), error));
        }
    };
    if let Some(reference) = &started.reference {
        state.storage.set_payment_reference(payment.id, reference, state.now()).await?;
    }
    tracing::info!(payment = %payment.id, gateway = gateway.name(), "checkout sent to the provider");
    Ok(match started.to {
        Start::Redirect(url) => Redirect::to(&url).into_response(),
        Start::PostForm { action, fields } => post_form_page(&action, &fields).into_response(),
        Start::Page(html) => Html(html).into_response(),
    })
}

/// The payment a gateway's confirmation names, if it is that gateway's.
async fn payment_of(state: &AppState, gateway: &str, key: &PaymentKey) -> ApiResult<PaymentRecord> {
    let payment = match key {
        PaymentKey::Ours(id) => state.storage.payment(*id).await?,
        PaymentKey::Reference(reference) => state.storage.payment_by_reference(gateway, reference).await?,
    };
    if payment.gateway != gateway {
        return Err(ErrorKey::NotFound.into());
    }
    Ok(payment)
}

/// Confirms what a provider says it received, if it is what was asked:
/// the same amount, in the same currency.
async fn settle(state: &AppState, gateway: &str, received: &Received) -> ApiResult<Settled> {
    let payment = payment_of(state, gateway, &received.payment).await?;
    let same_checkout = match (&received.reference, &payment.gateway_ref) {
        (Some(said), Some(known)) => said == known,
        _ => true,
    };
    if !same_checkout {
        return Err(ErrorKey::NotFound.into());
    }
    let same_currency =
        received.currency.as_deref().is_none_or(|currency| currency.eq_ignore_ascii_case(&payment.currency));
    if received.amount != payment.amount || !same_currency {
        tracing::warn!(payment = %payment.id, gateway, event = %received.event_id, amount = %received.amount, currency = ?received.currency, "the provider's amount or currency differs; not confirmed");
        return Err(ApiError::field(ErrorKey::InvalidAmount, "amount"));
    }
    payments::confirm(state, &payment, payment.amount, Some(&received.event_id)).await
}

/// What the webhook answers the provider.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct WebhookAnswer {
    received: bool,
    /// Whether this notification settled a payment (false for replays and other events).
    settled: bool,
}

#[utoipa::path(
    post,
    path = "/api/v1/payments/{provider}/webhook",
    tag = "payments",
    summary = "A gateway's notification",
    description = "Called by the provider, not by people. Each gateway checks it by its provider's rule: a signature over the raw body with the gateway's `webhook_secret` (Stripe's `Stripe-Signature`, Razorpay's `X-Razorpay-Signature`, Paystack's `x-paystack-signature`, …) compared in constant time, else 400 `invalid_signature`; or, for providers that do not sign, by asking the provider's API about the payment it names. A payment received confirms its payment once, if the amount and currency are the checkout's (else 400 `invalid_amount`); a payment we do not know is 404 `not_found`; replays and other events answer 200 and change nothing; a declined or expired payment is closed.",
    params(("provider" = String, Path, description = "The gateway's name")),
    request_body(content = String, content_type = "application/json", description = "The provider's notification, as it sent it (JSON or form-encoded; the raw bytes are verified)"),
    responses((status = 200, description = "Received", body = WebhookAnswer)),
    extensions(("x-refusals" = json!(public![
        NoProviderFound, InvalidSignature, InvalidInput, InvalidAmount, NotFound, AlreadyProcessed, StatusNotAllowed,
        UpdateFailed
    ]))),
)]
async fn webhook(
    State(state): State<AppState>,
    PathParam(provider): PathParam<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<WebhookAnswer>> {
    let (gateway, settings) = state.gateways.usable(state.storage.as_ref(), &provider).await?;
    let incoming = Incoming { headers: &headers, query: query.as_deref().unwrap_or_default(), body: &body };
    let verdict = gateway
        .notification(&payments::call(&state, gateway, &settings), &incoming)
        .await
        .map_err(|error| refused(gateway.name(), error))?;
    let settled = match verdict {
        Verdict::Paid(received) => settle(&state, gateway.name(), &received).await? == Settled::Now,
        Verdict::Failed(key) => {
            let payment = payment_of(&state, gateway.name(), &key).await?;
            if payment.status == PaymentStatus::Pending {
                payments::fail(&state, &payment).await?;
            }
            false
        }
        Verdict::Nothing => false,
    };
    Ok(Json(WebhookAnswer { received: true, settled }))
}

/// Whether a provider's key is this payment's.
fn names(key: &PaymentKey, payment: &PaymentRecord) -> bool {
    match key {
        PaymentKey::Ours(id) => *id == payment.id,
        PaymentKey::Reference(reference) => payment.gateway_ref.as_deref() == Some(reference.as_str()),
    }
}

/// Back from the provider: asks it (or checks its signed answer), then on to the app.
async fn came_back(state: AppState, provider: String, id: Uuid, incoming: Incoming<'_>) -> ApiResult<Redirect> {
    let (gateway, settings) = state.gateways.usable(state.storage.as_ref(), &provider).await?;
    let mut payment = state.storage.payment(id).await?;
    if payment.gateway != gateway.name() {
        return Err(ErrorKey::NotFound.into());
    }
    if payment.status == PaymentStatus::Pending {
        let call = payments::call(&state, gateway, &settings);
        match gateway.returned(&call, &payment, &incoming).await {
            Ok(Verdict::Paid(received)) if names(&received.payment, &payment) => {
                if let Err(error) = settle(&state, gateway.name(), &received).await {
                    tracing::warn!(payment = %id, ?error, "the provider's answer did not confirm the payment");
                }
            }
            Ok(Verdict::Failed(_)) => payments::fail(&state, &payment).await?,
            Ok(_) => {}
            // The webhook may still confirm it; the app shows it as waiting.
            Err(error) => {
                tracing::warn!(payment = %id, gateway = gateway.name(), %error, "could not check the payment with the provider")
            }
        }
        payment = state.storage.payment(id).await?;
    }
    Ok(Redirect::to(if payment.status == PaymentStatus::Failed { &payment.cancel_url } else { &payment.success_url }))
}

#[utoipa::path(
    get,
    path = "/api/v1/payments/{provider}/return/{id}",
    tag = "payments",
    summary = "Back from a gateway",
    description = "Where a provider sends the payer back. The payment is not taken as paid because the browser came here: the server asks the provider (or checks the provider's signature on what the payer brings back) and confirms the payment if the provider says it was paid. Answers 303 to the checkout's `success_url` (paid, or still waiting for the provider's notification) or `cancel_url` (declined).",
    params(("provider" = String, Path, description = "The gateway's name"), ("id" = Uuid, Path, description = "The payment's id")),
    responses((status = 303, description = "Back to the app", headers(("Location" = String, description = "The checkout's `success_url` or `cancel_url`")))),
    extensions(("x-refusals" = json!(public![NoProviderFound, NotFound]))),
)]
async fn returned_get(
    State(state): State<AppState>,
    PathParam((provider, id)): PathParam<(String, Uuid)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Redirect> {
    let incoming = Incoming { headers: &headers, query: query.as_deref().unwrap_or_default(), body: &[] };
    came_back(state.clone(), provider, id, incoming).await
}

#[utoipa::path(
    post,
    path = "/api/v1/payments/{provider}/return/{id}",
    tag = "payments",
    summary = "Back from a gateway (posted)",
    description = "The same as the GET, for providers that send the payer back with a form post.",
    params(("provider" = String, Path, description = "The gateway's name"), ("id" = Uuid, Path, description = "The payment's id")),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "What the provider posts back"),
    responses((status = 303, description = "Back to the app", headers(("Location" = String, description = "The checkout's `success_url` or `cancel_url`")))),
    extensions(("x-refusals" = json!(public![NoProviderFound, NotFound]))),
)]
async fn returned_post(
    State(state): State<AppState>,
    PathParam((provider, id)): PathParam<(String, Uuid)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Redirect> {
    let incoming = Incoming { headers: &headers, query: query.as_deref().unwrap_or_default(), body: &body };
    came_back(state.clone(), provider, id, incoming).await
}
