//! A user's wallet: balance and history, newest first; an admin's credit
//! (spec §7 addToWallet, §5 "Wallet and withdraw", §3 txRef `AdminCredit`),
//! and an admin's debit and adjustment with a reason (issue #37, txRefs
//! `AdminDebit`, `AdminAdjust`). Each is one ledger entry under the
//! client's `Idempotency-Key`.

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
use wayfare_engine::refund::validate_reason;
use wayfare_engine::wallet::{
    admin_adjust, admin_adjust_key, admin_credit, admin_credit_key, admin_debit, admin_debit_key, check_within_limit,
    validate_idempotency_key, validate_wallet_credit,
};
use wayfare_engine::{DomainResult, User, UserId};
use wayfare_storage::WalletOutcome;

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(wallet))
        .routes(routes!(credit_wallet))
        .routes(routes!(debit_wallet))
        .routes(routes!(adjust_wallet))
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

/// `{amount, reason}`: an admin debit.
#[derive(Debug, Deserialize, Default)]
pub struct ReasonedAmountBody {
    #[serde(default)]
    pub amount: Option<Value>,
    #[serde(default)]
    pub reason: String,
}

/// `{balance, reason}`: an admin adjustment to a given balance.
#[derive(Debug, Deserialize, Default)]
pub struct AdjustBody {
    #[serde(default)]
    pub balance: Option<Value>,
    #[serde(default)]
    pub reason: String,
}

/// An admin's wallet tool, checked: the admin, the user, the reason and the
/// request's key (the client's, or a fresh one so that every request counts).
struct AdminMove {
    user: User,
    reason: String,
    request_key: String,
    settings: wayfare_engine::Settings,
}

async fn admin_move(
    state: &AppState,
    current: &CurrentUser,
    id: UserId,
    headers: &HeaderMap,
    reason: &str,
) -> ApiResult<AdminMove> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::WalletAdjust, Resource::None, &settings)?;
    let client_key = idempotency_key(headers)?;
    let user = state.storage.user(id).await?;
    let reason = validate_reason(reason)?;
    let request_key = client_key.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    Ok(AdminMove { user, reason, request_key, settings })
}

/// A repeat of an earlier request of the same key: 200, `applied: false`.
async fn repeated(state: &AppState, user: UserId, key: &str) -> ApiResult<Option<(StatusCode, Json<Value>)>> {
    if state.storage.wallet_entry(user, key).await?.is_none() {
        return Ok(None);
    }
    let balance = state.storage.wallet_balance(user).await?;
    Ok(Some(moved(user, &WalletOutcome { applied: false, balance })))
}

/// Tells the user of a change that was applied, and answers it.
fn announced(state: &AppState, user: UserId, outcome: &WalletOutcome) -> (StatusCode, Json<Value>) {
    if outcome.applied {
        let bus = state.runtime.bus();
        bus.publish(Event::WalletChanged { user, balance: outcome.balance });
        bus.publish(Event::Notification { to: user, key: NoticeKey::WalletUpdated, booking: None });
    }
    moved(user, outcome)
}

fn moved(user: UserId, outcome: &WalletOutcome) -> (StatusCode, Json<Value>) {
    let status = if outcome.applied { StatusCode::CREATED } else { StatusCode::OK };
    (status, Json(json!({ "user": user, "walletBalance": outcome.balance, "applied": outcome.applied })))
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/wallet/debit",
    tag = "wallet",
    summary = "Debit a wallet",
    description = "Admins only; refused with `demo_mode` in demo mode. Takes an amount out of the user's wallet: parsed as a decimal and rounded to `settings.decimal`, above 0 (`no_details_error`) and at most 1,000,000 (`invalid_amount`). A balance cannot go below zero (`insufficient_wallet_balance`) unless the `negativeBalance` setting allows negative balances. A reason is required (`select_proper`); it is kept on the ledger entry (`Debit`, txRef `AdminDebit`). The user gets the `wallet` socket event and a `wallet_updated` notification. Send an `Idempotency-Key` header and repeat it on a retry: the same key debits once, and the repeat answers 200 with `applied: false`.",
    params(
        ("id" = UserId, Path, description = "The user to debit"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "1 to 128 visible ASCII characters; the same key debits this user once"),
    ),
    request_body = crate::openapi::schemas::WalletDebitBody,
    responses(
        (status = 201, description = "Debited", body = crate::openapi::schemas::WalletCredited),
        (status = 200, description = "A repeat of an earlier request with the same `Idempotency-Key`: nothing changed", body = crate::openapi::schemas::WalletCredited),
    ),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, NotFound, NoDetailsError, InvalidAmount, SelectProper, InsufficientWalletBalance
    ]))),
)]
async fn debit_wallet(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    headers: HeaderMap,
    Body(body): Body<ReasonedAmountBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let checked = admin_move(&state, &current, id, &headers, &body.reason).await?;
    let key = admin_debit_key(current.principal.id, &checked.request_key);
    if let Some(answer) = repeated(&state, checked.user.id, &key).await? {
        return Ok(answer);
    }
    let amount = amount_text(body.amount.as_ref()).unwrap_or_default();
    let balance = state.storage.wallet_balance(checked.user.id).await?;
    let change = admin_debit(checked.user.id, &amount, balance, &checked.settings, key)?;
    let outcome = state.storage.apply_wallet_noted(&change, Some(&checked.reason), None, state.now()).await?;
    Ok(announced(&state, checked.user.id, &outcome))
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/wallet/adjust",
    tag = "wallet",
    summary = "Adjust a wallet to a balance",
    description = "Admins only; refused with `demo_mode` in demo mode. Sets the user's balance to `balance` (rounded to `settings.decimal`) by one ledger entry of the difference: a `Credit` or a `Debit`, txRef `AdminAdjust`, with the reason (required: `select_proper`) kept on it. A balance below zero needs the `negativeBalance` setting (`insufficient_wallet_balance`); the balance it already has is `invalid_amount`, as is a difference above 1,000,000. The entry is written only if the balance did not change since it was read (`update_failed` otherwise: read it and try again). The user gets the `wallet` socket event and a `wallet_updated` notification. Send an `Idempotency-Key` header and repeat it on a retry: the same key adjusts once, and the repeat answers 200 with `applied: false`.",
    params(
        ("id" = UserId, Path, description = "The user whose wallet to adjust"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "1 to 128 visible ASCII characters; the same key adjusts this user once"),
    ),
    request_body = crate::openapi::schemas::WalletAdjustBody,
    responses(
        (status = 201, description = "Adjusted", body = crate::openapi::schemas::WalletCredited),
        (status = 200, description = "A repeat of an earlier request with the same `Idempotency-Key`: nothing changed", body = crate::openapi::schemas::WalletCredited),
    ),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, NotFound, NoDetailsError, InvalidAmount, SelectProper, InsufficientWalletBalance,
        UpdateFailed
    ]))),
)]
async fn adjust_wallet(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    headers: HeaderMap,
    Body(body): Body<AdjustBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let checked = admin_move(&state, &current, id, &headers, &body.reason).await?;
    let key = admin_adjust_key(current.principal.id, &checked.request_key);
    if let Some(answer) = repeated(&state, checked.user.id, &key).await? {
        return Ok(answer);
    }
    let target = amount_text(body.balance.as_ref()).unwrap_or_default();
    let balance = state.storage.wallet_balance(checked.user.id).await?;
    let change = admin_adjust(checked.user.id, &target, balance, &checked.settings, key)?;
    let outcome = state.storage.apply_wallet_noted(&change, Some(&checked.reason), Some(balance), state.now()).await?;
    Ok(announced(&state, checked.user.id, &outcome))
}
