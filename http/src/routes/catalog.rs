//! Settings (the public subset) and car types: what the app loads at start.

use crate::auth::MaybeUser;
use crate::error::ApiResult;
use crate::openapi::refusals::{optional_session, public};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::Value;
use utoipa_axum::routes;
use wayfare_engine::{CancellationReason, CarType, Language, PaymentProvider, Role};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(settings))
        .routes(routes!(car_types))
        .routes(routes!(languages))
        .routes(routes!(cancel_reasons))
        .routes(routes!(payment_providers))
}

/// Dispatch tuning is the admins' business; everything else the app shows.
const ADMIN_ONLY: [&str; 8] = [
    "dispatchPolicy",
    "dispatchWaveSize",
    "dispatchOfferSeconds",
    "dispatchMaxWaves",
    "dispatchRadiusStep",
    "dispatchBatchSeconds",
    "livingDemo",
    "livingDemoBookingsPerHour",
];

#[utoipa::path(
    get,
    path = "/api/v1/settings",
    tag = "catalog",
    summary = "Platform settings",
    description = "Everyone. `demoCity` (read-only, not a setting) is true when the server runs the demo city (`--demo`). Admins also get the dispatch tuning (`dispatchPolicy`: `broadcast`, `waves`, `nearest` or `batch`; `dispatchWaveSize`, `dispatchOfferSeconds`, `dispatchMaxWaves`, `dispatchRadiusStep`, `dispatchBatchSeconds`).",
    responses((status = 200, description = "The settings", body = crate::openapi::schemas::PublicSettings)),
    extensions(("x-refusals" = json!(optional_session![]))),
)]
async fn settings(State(state): State<AppState>, MaybeUser(user): MaybeUser) -> ApiResult<Json<Value>> {
    let catalog = state.runtime.catalog();
    let mut value = serde_json::to_value(&catalog.settings).unwrap_or(Value::Null);
    let is_admin = user.is_some_and(|user| user.principal.role == Role::Admin);
    if let Value::Object(fields) = &mut value {
        if !is_admin {
            for field in ADMIN_ONLY {
                fields.remove(field);
            }
        }
        // Not a setting: whether this server runs the demo city (`--demo`),
        // where the driver's console may simulate driving.
        fields.insert("demoCity".into(), Value::Bool(state.config.demo));
    }
    Ok(Json(value))
}

#[utoipa::path(
    get,
    path = "/api/v1/cartypes",
    tag = "catalog",
    summary = "Car types",
    description = "Every car type with its rates.",
    responses((status = 200, description = "The car types", body = Vec<CarType>)),
    extensions(("x-refusals" = json!(public![]))),
)]
async fn car_types(State(state): State<AppState>) -> Json<Vec<CarType>> {
    Json(state.runtime.catalog().car_types.clone())
}

#[utoipa::path(
    get,
    path = "/api/v1/languages",
    tag = "catalog",
    summary = "Languages",
    description = "Every language with its dictionary (spec §3 `langlist`); the default one is marked. The app falls back to its bundled dictionaries, then `en`, for keys a language lacks.",
    responses((status = 200, description = "The languages", body = Vec<Language>)),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn languages(State(state): State<AppState>) -> ApiResult<Json<Vec<Language>>> {
    Ok(Json(state.storage.languages().await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/cancelreasons",
    tag = "catalog",
    summary = "Cancellation reasons",
    description = "The reasons a rider or admin picks from when cancelling, as label and index (spec §3).",
    responses((status = 200, description = "The reasons", body = Vec<CancellationReason>)),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn cancel_reasons(State(state): State<AppState>) -> ApiResult<Json<Vec<CancellationReason>>> {
    Ok(Json(CancellationReason::from_list(&state.storage.cancel_reasons().await?)))
}

#[utoipa::path(
    get,
    path = "/api/v1/payments/providers",
    tag = "catalog",
    summary = "Payment providers",
    description = "The gateways riders may pay through (spec §7 `get_providers`): the stored list, plus Stripe when it is configured and not listed. Each `link` takes the checkout form of spec §7.",
    responses((status = 200, description = "The providers", body = Vec<PaymentProvider>)),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn payment_providers(State(state): State<AppState>) -> ApiResult<Json<Vec<PaymentProvider>>> {
    let stored = state.storage.payment_providers().await?;
    Ok(Json(crate::payments::with_configured_gateways(&state, stored).await?))
}
