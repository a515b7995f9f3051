//! Promo codes (spec §3 "Promo", §7 `fetchPromos`, `editPromo` Add |
//! Update | Delete). Admins manage them; riders list the ones they can still
//! use. A code is applied when a booking is created (`promo` in
//! `POST /api/v1/bookings`) and counted in `user_avail` by the store.
//! Demo mode lets admins add promos but not edit or delete them (spec §5).

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use rust_decimal::Decimal;
use serde::Deserialize;
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{AmountType, ErrorKey, Millis, Promo, PromoId, Role, promo};
use wayfare_storage::StorageError;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(list, add)).routes(routes!(update, remove))
}

/// A promo as the admin form sends it; `user_avail` and `createdAt` are the
/// server's and ignored if sent.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct PromoBody {
    /// The code riders type; required.
    #[schema(required = true, nullable = false, min_length = 1)]
    pub promo_name: Option<String>,
    #[serde(default)]
    pub promo_description: String,
    /// `flat` or `percentage`; required.
    #[schema(required = true, nullable = false)]
    pub promo_discount_type: Option<AmountType>,
    /// Above 0, at most 1000000 (a percentage at most 100); required.
    #[schema(required = true, nullable = false, exclusive_minimum = 0, maximum = 1000000)]
    pub promo_discount_value: Option<Decimal>,
    /// The cap of a percentage discount; 0 for none.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1000000)]
    pub max_promo_discount_value: Decimal,
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1000000)]
    pub min_order: Decimal,
    /// The last moment the code may be used (ms); required.
    #[schema(required = true, nullable = false)]
    pub promo_validity: Option<Millis>,
    /// How many riders may use it; 0 for no limit.
    #[serde(default)]
    pub promo_usage_limit: u32,
}

impl PromoBody {
    fn into_promo(self, id: PromoId, user_avail: u32, created_at: Millis) -> ApiResult<Promo> {
        let required = |field: &'static str| ApiError::field(ErrorKey::InvalidInput, field);
        Ok(Promo {
            id,
            promo_name: self.promo_name.ok_or_else(|| required("promo_name"))?,
            promo_description: self.promo_description,
            promo_discount_type: self.promo_discount_type.ok_or_else(|| required("promo_discount_type"))?,
            promo_discount_value: self.promo_discount_value.ok_or_else(|| required("promo_discount_value"))?,
            max_promo_discount_value: self.max_promo_discount_value,
            min_order: self.min_order,
            promo_validity: self.promo_validity.ok_or_else(|| required("promo_validity"))?,
            promo_usage_limit: self.promo_usage_limit,
            user_avail,
            createdAt: created_at,
        })
    }
}

fn saved(result: Result<(), StorageError>) -> ApiResult<()> {
    match result {
        Err(StorageError::Duplicate(_)) => Err(ApiError::field(ErrorKey::PromoExists, "promo_name")),
        other => other.map_err(ApiError::from),
    }
}

#[utoipa::path(
    get,
    operation_id = "list_promos",
    path = "/api/v1/promos",
    tag = "promos",
    summary = "List promos",
    description = "Admins get every promo, oldest first, with `user_avail` (how many riders used it). Riders get the ones they can still use: not expired, not used up, not used by them.",
    responses((status = 200, description = "The promos", body = Vec<Promo>)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
pub(crate) async fn list(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<Vec<Promo>>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::PromosRead, Resource::None, &settings)?;
    let promos = state.storage.promos().await?;
    if current.principal.role == Role::Admin {
        return Ok(Json(promos));
    }
    let now = state.now();
    let mut usable = Vec::new();
    for candidate in promos {
        // A cheap check first, so only live promos cost a lookup.
        if promo::usable(&candidate, now, false)
            && !state.storage.promo_used_by(&candidate.promo_name, current.principal.id).await?
        {
            usable.push(candidate);
        }
    }
    Ok(Json(usable))
}

#[utoipa::path(
    post,
    operation_id = "add_promo",
    path = "/api/v1/promos",
    tag = "promos",
    summary = "Add a promo",
    description = "Admins. The code is stored upper-case (letters, digits, `-`, `_`); the discount is positive (a percentage at most 100); the cap and minimum order are not negative; the validity is in the future. Allowed in demo mode (spec §5).",
    request_body = PromoBody,
    responses((status = 201, description = "The promo", body = Promo)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, InvalidAmount, PromoExists]))),
)]
pub(crate) async fn add(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<PromoBody>,
) -> ApiResult<(StatusCode, Json<Promo>)> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::PromoAdd, Resource::None, &settings)?;
    let now = state.now();
    let proposed = body.into_promo(PromoId(uuid::Uuid::now_v7()), 0, now)?;
    let checked = promo::validate(&proposed, now, true, settings.decimal)?;
    if state.storage.promo_by_name(&checked.promo_name).await?.is_some() {
        return Err(ApiError::field(ErrorKey::PromoExists, "promo_name"));
    }
    saved(state.storage.save_promo(&checked, now).await)?;
    Ok((StatusCode::CREATED, Json(checked)))
}

#[utoipa::path(
    put,
    operation_id = "update_promo",
    path = "/api/v1/promos/{id}",
    tag = "promos",
    summary = "Update a promo",
    description = "Admins, refused in demo mode. The same rules as adding, except that the validity may be in the past (to end a promo early). `user_avail` stays the store's count; a promo riders have used keeps its code.",
    params(("id" = PromoId, Path, description = "The promo's id")),
    request_body = PromoBody,
    responses((status = 200, description = "The promo", body = Promo)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, NotFound, InvalidAmount, PromoExists]))),
)]
pub(crate) async fn update(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<PromoId>,
    Body(body): Body<PromoBody>,
) -> ApiResult<Json<Promo>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::PromoEdit, Resource::None, &settings)?;
    let existing = state.storage.promo(id).await?;
    let now = state.now();
    let proposed = body.into_promo(id, existing.user_avail, existing.createdAt)?;
    let checked = promo::validate(&proposed, now, false, settings.decimal)?;
    if checked.promo_name != existing.promo_name {
        // Uses are recorded by code: a used promo renamed would be usable again.
        if existing.user_avail > 0 {
            return Err(ApiError::field(ErrorKey::InvalidInput, "promo_name"));
        }
        if state.storage.promo_by_name(&checked.promo_name).await?.is_some() {
            return Err(ApiError::field(ErrorKey::PromoExists, "promo_name"));
        }
    }
    saved(state.storage.save_promo(&checked, now).await)?;
    Ok(Json(state.storage.promo(id).await?))
}

#[utoipa::path(
    delete,
    operation_id = "delete_promo",
    path = "/api/v1/promos/{id}",
    tag = "promos",
    summary = "Delete a promo",
    description = "Admins, refused in demo mode. Bookings that used it keep their `promo_details`.",
    params(("id" = PromoId, Path, description = "The promo's id")),
    responses((status = 204, description = "Deleted")),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound]))),
)]
pub(crate) async fn remove(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<PromoId>,
) -> ApiResult<StatusCode> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::PromoEdit, Resource::None, &settings)?;
    state.storage.delete_promo(id).await?;
    Ok(StatusCode::NO_CONTENT)
}
