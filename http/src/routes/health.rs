//! Liveness.

use crate::state::AppState;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(health))
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    summary = "Liveness",
    responses((status = 200, description = "The server is up", body = crate::openapi::schemas::Health))
)]
async fn health() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}
