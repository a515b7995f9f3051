//! A user's wallet: balance and history, newest first; and an admin's credit
//! (spec §7 addToWallet, §5 "Wallet and withdraw", §3 txRef `AdminCredit`).

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_actors::Event;
use wayfare_engine::booking::NoticeKey;
use wayfare_engine::permissions::{Action, Resource, UserRef, authorize};
use wayfare_engine::wallet::{
    admin_credit, admin_credit_key, check_within_limit, validate_idempotency_key, validate_wallet_credit,
};
use wayfare_engine::{DomainResult, UserId};

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(wallet)).routes(routes!(credit_wallet))
}

/// The header a client repeats on a retry so that the money moves once.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The client's `Idempotency-Key`, checked; `None` when not sent.
pub(crate) fn idempotency_key(headers: &HeaderMap) -> DomainResult<Option<String>> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else { return Ok(None) };
    let text = value.to_str().unwrap_or("");
    validate_idempotency_key(text).map(|key| Some(key.to_string()))
}

/// An amount as a client sends it: a JSON number or numeric text, as text
/// for the engine's decimal parser (`None` when it is neither).
pub(crate) fn amount_text(amount: Option<&Value>) -> Option<String> {
    match amount? {
        Value::Number(number) => Some(number.to_string()),
        Value::String(text) => Some(text.clone()),
        _ => None,
    }
}

/// `{amount}`: a number, or numeric text (spec §5: parsed as a decimal).
#[derive(Debug, Deserialize, Default)]
pub struct AmountBody {
    #[serde(default)]
    pub amount: Option<Value>,
}

#[derive(Debug, Deserialize, Default)]
pub struct PageQuery {
    pub limit: Option<u32>,
    pub after: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/users/{id}/wallet",
    tag = "wallet",
    summary = "Wallet balance and history",
    description = "The user themself or an admin. History newest first, paginated with `limit` and `after`.",
    params(("id" = UserId, Path, description = "The user's id"), ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, pattern = "^[0-9a-fA-F]{48}$", description = "The `next` cursor of the previous page")),
    responses((status = 200, description = "Balance and a page of history", body = crate::openapi::schemas::WalletResponse)),
    extensions(("x-refusals" = json!(session![InvalidInput, NotFound, NotAllowed]))),
)]
async fn wallet(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    QueryParams(query): QueryParams<PageQuery>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    let owner = state.storage.user(id).await?;
    authorize(Some(&current.principal), Action::WalletRead, Resource::User(UserRef::from(&owner)), &settings)?;
    let balance = state.storage.wallet_balance(id).await?;
    let page = super::page_request(query.limit, query.after)?;
    let history = state.storage.wallet_history(id, &page).await?;
    Ok(Json(json!({ "walletBalance": balance, "walletHistory": history.items, "next": history.next })))
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/wallet/credit",
    tag = "wallet",
    summary = "Credit a wallet (add to wallet)",
    description = "Admins only; refused with `demo_mode` in demo mode. The amount is parsed as a decimal and rounded to `settings.decimal`; it must be above 0 (`no_details_error`, spec §5) and at most 1,000,000 (`invalid_amount`). Writes a `Credit` ledger entry with txRef `AdminCredit`; the user gets the `wallet` socket event and a `wallet_updated` notification. Send an `Idempotency-Key` header and repeat it on a retry: the same key credits once, and the repeat answers 200 with `applied: false`.",
    params(
        ("id" = UserId, Path, description = "The user to credit"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "1 to 128 visible ASCII characters; the same key credits this user once"),
    ),
    request_body = crate::openapi::schemas::AmountBody,
    responses(
        (status = 201, description = "Credited", body = crate::openapi::schemas::WalletCredited),
        (status = 200, description = "A repeat of an earlier request with the same `Idempotency-Key`: nothing changed", body = crate::openapi::schemas::WalletCredited),
    ),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, NotFound, NoDetailsError, InvalidAmount
    ]))),
)]
async fn credit_wallet(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    headers: HeaderMap,
    Body(body): Body<AmountBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::WalletCredit, Resource::None, &settings)?;
    let client_key = idempotency_key(&headers)?;
    let user = state.storage.user(id).await?;
    let amount = amount_text(body.amount.as_ref()).unwrap_or_default();
    let credited = validate_wallet_credit(Some(user.id), &amount, settings.decimal)?;
    check_within_limit(credited.amount)?;
    let request_key = client_key.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let change = admin_credit(credited, admin_credit_key(current.principal.id, &request_key));
    let outcome = state.storage.apply_wallet(&change, state.now()).await?;
    if outcome.applied {
        let bus = state.runtime.bus();
        bus.publish(Event::WalletChanged { user: user.id, balance: outcome.balance });
        bus.publish(Event::Notification { to: user.id, key: NoticeKey::WalletUpdated, booking: None });
    }
    let status = if outcome.applied { StatusCode::CREATED } else { StatusCode::OK };
    let body = json!({ "user": user.id, "walletBalance": outcome.balance, "applied": outcome.applied });
    Ok((status, Json(body)))
}
