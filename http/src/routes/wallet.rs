//! A user's wallet: balance and history, newest first.

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::{PathParam, QueryParams};
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use wayfare_engine::UserId;
use wayfare_engine::permissions::{Action, Resource, UserRef, authorize};
use wayfare_storage::PageRequest;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/users/{id}/wallet", get(wallet))
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
    params(("id" = UserId, Path, description = "The user's id"), ("limit" = Option<u32>, Query, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, description = "The `next` cursor of the previous page")),
    responses((status = 200, description = "Balance and a page of history", body = crate::openapi::schemas::WalletResponse))
)]
async fn wallet(State(state): State<AppState>, current: CurrentUser, PathParam(id): PathParam<UserId>, QueryParams(query): QueryParams<PageQuery>) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    let owner = state.storage.user(id).await?;
    authorize(Some(&current.principal), Action::WalletRead, Resource::User(UserRef::from(&owner)), &settings)?;
    let balance = state.storage.wallet_balance(id).await?;
    let page = PageRequest { limit: query.limit.unwrap_or(50), after: query.after };
    let history = state.storage.wallet_history(id, &page).await?;
    Ok(Json(json!({ "walletBalance": balance, "walletHistory": history.items, "next": history.next })))
}
