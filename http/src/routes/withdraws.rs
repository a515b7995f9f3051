//! Withdraw requests (spec §3 "Withdraw request", §4 "Withdraw", §5 "Wallet
//! and withdraw", §7 fetchWithdraws, completeWithdraw): a driver — and a
//! rider when `RiderWithDraw` is on — asks to be paid out; the request debits
//! the wallet through the ledger and is stored in the same transaction; an
//! admin completes it once, which sets `processed` and `procesDate`. Lists
//! are newest first.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::wallet::{AmountBody, PageQuery, amount_text, idempotency_key};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use utoipa_axum::routes;
use wayfare_actors::Event;
use wayfare_engine::money::parse_amount;
use wayfare_engine::permissions::{Action, Resource, WithdrawScope, authorize, withdraw_list_scope};
use wayfare_engine::wallet::{
    check_within_limit, validate_withdraw_amount, withdraw_debit, withdraw_key, withdraw_request,
};
use wayfare_engine::{DomainError, ErrorKey, UserId, WithdrawId, WithdrawRequest};
use wayfare_storage::StorageError;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(list_withdraws, create_withdraw)).routes(routes!(complete_withdraw))
}

/// The id of the request a client's idempotency key names: the same user and
/// key always make the same id, so a retry finds the first request.
fn withdraw_id_for(user: UserId, key: &str) -> WithdrawId {
    let digest = Sha256::new().chain_update(user.0.as_bytes()).chain_update(key.as_bytes()).finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    WithdrawId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
}

fn presented(state: &AppState, current: &CurrentUser, request: &WithdrawRequest) -> Value {
    present::withdraw(request, &current.principal, &state.runtime.catalog().settings)
}

#[utoipa::path(
    post,
    path = "/api/v1/withdraws",
    tag = "wallet",
    summary = "Ask for a withdraw",
    description = "Drivers, and riders when the setting `RiderWithDraw` is on. The amount (a number above 0, rounded to `settings.decimal`, at most 1,000,000: `invalid_amount`) may not exceed the wallet balance unless `negativeBalance` is on (`insufficient_wallet_balance`). The wallet is debited with a `Withdraw` ledger entry whose txRef is the request's id, and the request is stored unprocessed with the name and bank details of the profile, in one transaction. Send an `Idempotency-Key` header and repeat it on a retry: the same key makes one request, and the repeat answers 200 with it.",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "1 to 128 visible ASCII characters; the same key makes one request")),
    request_body = crate::openapi::schemas::AmountBody,
    responses(
        (status = 201, description = "The request and the balance after the debit", body = crate::openapi::schemas::WithdrawCreated),
        (status = 200, description = "A repeat with the same `Idempotency-Key`: the request it made, nothing changed", body = crate::openapi::schemas::WithdrawCreated),
    ),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, InvalidAmount, InsufficientWalletBalance]))),
)]
async fn create_withdraw(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    Body(body): Body<AmountBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let settings = state.runtime.catalog().settings.clone();
    let owner = current.principal.id;
    authorize(Some(&current.principal), Action::WithdrawCreate, Resource::None, &settings)?;
    let client_key = idempotency_key(&headers)?;
    let amount = amount_text(body.amount.as_ref())
        .and_then(|text| parse_amount(&text))
        .ok_or(DomainError::on_field(ErrorKey::InvalidAmount, "amount"))?;
    check_within_limit(amount)?;
    let id = match &client_key {
        Some(key) => withdraw_id_for(owner, key),
        None => WithdrawId(uuid::Uuid::now_v7()),
    };
    // The balance is read before looking for an earlier request: a retry
    // whose first try commits in between then still passes the check below
    // and finds that request through the debit's key, instead of being told
    // the money is gone.
    let balance = state.storage.wallet_balance(owner).await?;
    if client_key.is_some()
        && let Some(earlier) = stored(&state, id).await?
    {
        return replayed(&state, &current, &earlier).await;
    }
    let amount = validate_withdraw_amount(amount, balance, settings.negativeBalance, settings.decimal)?;
    let request = withdraw_request(id, &current.user, amount, state.now());
    // The balance read above gives the clear error at once; storage checks it
    // again in the debit itself, so two requests (or a request and a wallet
    // payment) that both read enough cannot both take the money.
    let debit =
        withdraw_debit(&request, withdraw_key(&client_key.unwrap_or_else(|| id.to_string())), settings.negativeBalance);
    let outcome = match state.storage.create_withdraw(&request, &debit, state.now()).await {
        Ok(outcome) => outcome,
        // Another debit took the money after the check above: the same answer as the check's.
        Err(StorageError::InsufficientBalance) => {
            return Err(ApiError::field(ErrorKey::InsufficientWalletBalance, "amount"));
        }
        Err(error) => return Err(error.into()),
    };
    if !outcome.applied {
        // The debit's key was used before: that request stands.
        let earlier = state.storage.withdraw(id).await?;
        return replayed(&state, &current, &earlier).await;
    }
    state.runtime.bus().publish(Event::WalletChanged { user: owner, balance: outcome.balance });
    let body = json!({ "withdraw": presented(&state, &current, &request), "walletBalance": outcome.balance });
    Ok((StatusCode::CREATED, Json(body)))
}

async fn stored(state: &AppState, id: WithdrawId) -> ApiResult<Option<WithdrawRequest>> {
    match state.storage.withdraw(id).await {
        Ok(request) => Ok(Some(request)),
        Err(StorageError::NotFound) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

async fn replayed(
    state: &AppState,
    current: &CurrentUser,
    earlier: &WithdrawRequest,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let balance = state.storage.wallet_balance(current.principal.id).await?;
    Ok((StatusCode::OK, Json(json!({ "withdraw": presented(state, current, earlier), "walletBalance": balance }))))
}

#[utoipa::path(
    get,
    path = "/api/v1/withdraws",
    tag = "wallet",
    summary = "List withdraw requests",
    description = "Newest first. Admins see every request; riders and drivers their own. Paginated with `limit` and `after` (the previous page's `next`). In demo mode other people's bank details are masked.",
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, pattern = "^[0-9a-fA-F]{48}$", description = "The `next` cursor of the previous page")),
    responses((status = 200, description = "A page of withdraw requests", body = crate::openapi::schemas::WithdrawPage)),
    extensions(("x-refusals" = json!(session![InvalidInput, NotAllowed]))),
)]
async fn list_withdraws(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<PageQuery>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::WithdrawList, Resource::None, &settings)?;
    let owner = match withdraw_list_scope(&current.principal) {
        WithdrawScope::All => None,
        WithdrawScope::Owner(owner) => Some(owner),
    };
    let page = super::page_request(query.limit, query.after)?;
    let page = state.storage.withdraws(owner, &page).await?;
    let items: Vec<Value> = page.items.iter().map(|request| presented(&state, &current, request)).collect();
    Ok(Json(json!({ "items": items, "next": page.next })))
}

#[utoipa::path(
    post,
    path = "/api/v1/withdraws/{id}/complete",
    tag = "wallet",
    summary = "Complete a withdraw request",
    description = "Admins only; refused with `demo_mode` in demo mode. Sets `processed` and `procesDate` (now). A request already processed is 409 `already_processed`: it is paid out once.",
    params(("id" = WithdrawId, Path, description = "The request's id")),
    responses((status = 200, description = "The processed request", body = WithdrawRequest)),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound, AlreadyProcessed]))),
)]
async fn complete_withdraw(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<WithdrawId>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::WithdrawComplete, Resource::None, &settings)?;
    let completed = state.storage.complete_withdraw(id, state.now()).await?;
    Ok(Json(presented(&state, &current, &completed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_key_names_one_request_per_user() {
        let rider = UserId::from_u128(1);
        let driver = UserId::from_u128(2);
        assert_eq!(withdraw_id_for(rider, "k1"), withdraw_id_for(rider, "k1"));
        assert_ne!(withdraw_id_for(rider, "k1"), withdraw_id_for(rider, "k2"));
        assert_ne!(withdraw_id_for(rider, "k1"), withdraw_id_for(driver, "k1"));
    }
}
