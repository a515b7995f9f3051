//! What admins configure (spec §2 car types, cancellation reasons, settings
//! and app info pages; §7 editCarType, editCancellationReason,
//! editSettings): every write admin only and refused in demo mode
//! (`permissions::authorize`), checked by `engine::rules` (`catalogue`, `settings`), stored, and the
//! runtime's catalog reloaded at once so the next estimate and booking use
//! it. The reads stay in `routes::catalog`, except the public app info.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{public, session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Mutex;
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::rules;
use wayfare_engine::{
    AmountType, CancelSlab, CancellationReason, CarType, CarTypeId, ErrorKey, PricedChoice, Role, Settings,
};
use wayfare_storage::{PageRequest, StorageError, UserFilter};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(add_car_type))
        .routes(routes!(update_car_type, delete_car_type))
        .routes(routes!(add_cancel_reason, replace_cancel_reasons))
        .routes(routes!(update_cancel_reason, delete_cancel_reason))
        .routes(routes!(edit_settings))
        .routes(routes!(app_info, edit_app_info))
}

/// Read-modify-write of the stored lists and the settings row, one at a
/// time on this server, so two admins' changes never overwrite each other.
static CATALOG_WRITES: Mutex<()> = Mutex::const_new(());

fn authorize_write(current: &CurrentUser, action: Action, settings: &Settings) -> ApiResult<()> {
    authorize(Some(&current.principal), action, Resource::None, settings).map_err(Into::into)
}

/// After a change: the runtime reads settings and car types again.
async fn reload(state: &AppState) -> ApiResult<()> {
    state.runtime.reload_catalog().await.map_err(Into::into)
}

// ---- car types -----------------------------------------------------------------

/// A car type as the car types table sends it (spec §3). To add one, `name`
/// and the five amounts are required; to update one, fields left out keep
/// their value. The image has its own upload.
#[derive(Debug, Deserialize, Default, utoipa::ToSchema)]
#[serde(default)]
#[allow(non_snake_case)]
pub struct CarTypeBody {
    pub name: Option<String>,
    /// Each amount 0 to 1000000 (`money::MAX_CATALOG_AMOUNT`).
    #[schema(minimum = 0, maximum = 1000000)]
    pub base_fare: Option<Decimal>,
    #[schema(minimum = 0, maximum = 1000000)]
    pub rate_per_unit_distance: Option<Decimal>,
    #[schema(minimum = 0, maximum = 1000000)]
    pub rate_per_hour: Option<Decimal>,
    #[schema(minimum = 0, maximum = 1000000)]
    pub min_fare: Option<Decimal>,
    /// A flat amount, or a percentage (at most 100) with `percentage`.
    #[schema(minimum = 0, maximum = 1000000)]
    pub convenience_fees: Option<Decimal>,
    pub convenience_fee_type: Option<AmountType>,
    pub extra_info: Option<String>,
    pub parcelTypes: Option<Vec<PricedChoice>>,
    pub options: Option<Vec<PricedChoice>>,
    pub cancelSlab: Option<Vec<CancelSlab>>,
    /// Delivery: a booking must choose one of `options` (issue #34).
    pub optionRequired: Option<bool>,
}

impl CarTypeBody {
    /// `base` with the fields this body sets.
    fn applied_to(self, mut base: CarType) -> CarType {
        if let Some(name) = self.name {
            base.name = name;
        }
        let amounts = [
            (self.base_fare, &mut base.base_fare),
            (self.rate_per_unit_distance, &mut base.rate_per_unit_distance),
            (self.rate_per_hour, &mut base.rate_per_hour),
            (self.min_fare, &mut base.min_fare),
            (self.convenience_fees, &mut base.convenience_fees),
        ];
        for (given, target) in amounts {
            if let Some(amount) = given {
                *target = amount;
            }
        }
        if let Some(fee_type) = self.convenience_fee_type {
            base.convenience_fee_type = fee_type;
        }
        if let Some(extra_info) = self.extra_info {
            base.extra_info = extra_info;
        }
        if let Some(parcel_types) = self.parcelTypes {
            base.parcelTypes = parcel_types;
        }
        if let Some(options) = self.options {
            base.options = options;
        }
        if let Some(slabs) = self.cancelSlab {
            base.cancelSlab = slabs;
        }
        if let Some(required) = self.optionRequired {
            base.optionRequired = required;
        }
        base
    }

    /// The field a new car type lacks, if any.
    fn missing_for_add(&self) -> Option<&'static str> {
        let required = [
            (self.name.is_none(), "name"),
            (self.base_fare.is_none(), "base_fare"),
            (self.rate_per_unit_distance.is_none(), "rate_per_unit_distance"),
            (self.rate_per_hour.is_none(), "rate_per_hour"),
            (self.min_fare.is_none(), "min_fare"),
            (self.convenience_fees.is_none(), "convenience_fees"),
        ];
        required.into_iter().find(|(missing, _)| *missing).map(|(_, field)| field)
    }
}

fn car_type_duplicate(error: StorageError) -> ApiError {
    match error {
        StorageError::Duplicate(_) => ApiError::field(ErrorKey::CarTypeExists, "name"),
        other => other.into(),
    }
}

/// Whether a driver or a booking in progress names this car type: renaming
/// or deleting it would leave them with a car type the platform no longer
/// has (no offers for the driver; no final fare for the booking).
async fn car_type_in_use(state: &AppState, name: &str) -> ApiResult<bool> {
    if state.storage.active_bookings().await?.iter().any(|booking| booking.carType == name) {
        return Ok(true);
    }
    let drivers = UserFilter { roles: vec![Role::Driver], ..UserFilter::default() };
    let mut page = PageRequest::first(PageRequest::MAX_LIMIT);
    loop {
        let found = state.storage.list_users(&drivers, &page).await?;
        if found.items.iter().any(|driver| driver.carType.as_deref() == Some(name)) {
            return Ok(true);
        }
        match found.next {
            Some(next) => page.after = Some(next),
            None => return Ok(false),
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/cartypes",
    tag = "admin",
    summary = "Add a car type",
    description = "Spec §7 editCarType Add. Admins; refused in demo mode. Needs `name` and the five amounts; the name is unique in any case (`car_type_exists`); amounts are zero or more (a percentage fee at most 100); parcel types and options need a description; cancellation slabs are sorted by `minsDelayed`, no two at the same minute, none cheaper than an earlier one. New bookings use it at once.",
    request_body = CarTypeBody,
    responses((status = 201, description = "The new car type", body = CarType)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, CarTypeExists]))),
)]
pub(crate) async fn add_car_type(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<CarTypeBody>,
) -> ApiResult<(StatusCode, Json<CarType>)> {
    authorize_write(&current, Action::CarTypesWrite, &state.runtime.catalog().settings)?;
    if let Some(field) = body.missing_for_add() {
        return Err(ApiError::field(ErrorKey::InvalidInput, field));
    }
    let now = state.now();
    let blank = CarType {
        id: CarTypeId(uuid::Uuid::now_v7()),
        name: String::new(),
        image: String::new(),
        base_fare: Decimal::ZERO,
        rate_per_unit_distance: Decimal::ZERO,
        rate_per_hour: Decimal::ZERO,
        min_fare: Decimal::ZERO,
        convenience_fees: Decimal::ZERO,
        convenience_fee_type: AmountType::default(),
        extra_info: String::new(),
        createdAt: now,
        parcelTypes: Vec::new(),
        options: Vec::new(),
        cancelSlab: Vec::new(),
        optionRequired: false,
    };
    let _guard = CATALOG_WRITES.lock().await;
    let existing = state.storage.car_types().await?;
    let car_type = rules::catalogue::validate_car_type(&body.applied_to(blank), &existing)?;
    state.storage.save_car_type(&car_type, now).await.map_err(car_type_duplicate)?;
    reload(&state).await?;
    tracing::info!(car_type = %car_type.name, "car type added");
    Ok((StatusCode::CREATED, Json(car_type)))
}

#[utoipa::path(
    put,
    path = "/api/v1/cartypes/{id}",
    tag = "admin",
    summary = "Update a car type",
    description = "Spec §7 editCarType Update: the fields sent replace the car type's, the others (and the image) stay. Checked as when adding. A car type that drivers or bookings in progress use cannot be renamed (`car_type_in_use`). Admins; refused in demo mode. The next estimate and booking use the new rates.",
    params(("id" = CarTypeId, Path, description = "The car type's id")),
    request_body = CarTypeBody,
    responses((status = 200, description = "The car type after the change", body = CarType)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, NotFound, CarTypeExists, CarTypeInUse]))),
)]
pub(crate) async fn update_car_type(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<CarTypeId>,
    Body(body): Body<CarTypeBody>,
) -> ApiResult<Json<CarType>> {
    authorize_write(&current, Action::CarTypesWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let stored = state.storage.car_type(id).await?;
    let existing = state.storage.car_types().await?;
    let car_type = rules::catalogue::validate_car_type(&body.applied_to(stored.clone()), &existing)?;
    if car_type.name != stored.name && car_type_in_use(&state, &stored.name).await? {
        return Err(ApiError::field(ErrorKey::CarTypeInUse, "name"));
    }
    state.storage.save_car_type(&car_type, state.now()).await.map_err(car_type_duplicate)?;
    reload(&state).await?;
    Ok(Json(car_type))
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct CarTypeDeleted {
    pub deleted: bool,
    pub id: CarTypeId,
}

#[utoipa::path(
    delete,
    path = "/api/v1/cartypes/{id}",
    tag = "admin",
    summary = "Delete a car type",
    description = "Spec §7 editCarType Delete. A car type that drivers or bookings in progress use is `car_type_in_use` (409). Admins; refused in demo mode.",
    params(("id" = CarTypeId, Path, description = "The car type's id")),
    responses((status = 200, description = "Deleted", body = CarTypeDeleted)),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound, CarTypeInUse]))),
)]
pub(crate) async fn delete_car_type(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<CarTypeId>,
) -> ApiResult<Json<CarTypeDeleted>> {
    authorize_write(&current, Action::CarTypesWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let stored = state.storage.car_type(id).await?;
    if car_type_in_use(&state, &stored.name).await? {
        return Err(ErrorKey::CarTypeInUse.into());
    }
    state.storage.delete_car_type(id).await?;
    reload(&state).await?;
    tracing::info!(car_type = %stored.name, "car type deleted");
    Ok(Json(CarTypeDeleted { deleted: true, id }))
}

// ---- cancellation reasons ---------------------------------------------------------

/// The whole list, in order.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CancelReasonsBody {
    pub reasons: Vec<String>,
}

/// One reason.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CancelReasonBody {
    #[schema(min_length = 1, max_length = 500)]
    pub label: String,
}

/// Checks and stores the list, and answers it as label and index.
async fn save_reasons(state: &AppState, reasons: &[String]) -> ApiResult<Vec<CancellationReason>> {
    let checked = rules::catalogue::validate_cancel_reasons(reasons)?;
    state.storage.save_cancel_reasons(&checked, state.now()).await?;
    Ok(CancellationReason::from_list(&checked))
}

#[utoipa::path(
    put,
    path = "/api/v1/cancelreasons",
    tag = "admin",
    summary = "Replace the cancellation reasons",
    description = "The simple list of strings as a whole (spec §3). Each reason chosen (`select_proper`), no two the same, at most 100. Admins; refused in demo mode.",
    request_body = CancelReasonsBody,
    responses((status = 200, description = "The reasons, as label and index", body = Vec<CancellationReason>)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, SelectProper]))),
)]
pub(crate) async fn replace_cancel_reasons(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<CancelReasonsBody>,
) -> ApiResult<Json<Vec<CancellationReason>>> {
    authorize_write(&current, Action::CancelReasonsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    Ok(Json(save_reasons(&state, &body.reasons).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/cancelreasons",
    tag = "admin",
    summary = "Add a cancellation reason",
    description = "Spec §7 editCancellationReason Add: appended to the list. Admins; refused in demo mode.",
    request_body = CancelReasonBody,
    responses((status = 201, description = "The reasons, as label and index", body = Vec<CancellationReason>)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, SelectProper]))),
)]
pub(crate) async fn add_cancel_reason(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<CancelReasonBody>,
) -> ApiResult<(StatusCode, Json<Vec<CancellationReason>>)> {
    authorize_write(&current, Action::CancelReasonsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let mut reasons = state.storage.cancel_reasons().await?;
    reasons.push(body.label);
    Ok((StatusCode::CREATED, Json(save_reasons(&state, &reasons).await?)))
}

#[utoipa::path(
    put,
    path = "/api/v1/cancelreasons/{index}",
    tag = "admin",
    summary = "Change a cancellation reason",
    description = "Spec §7 editCancellationReason Update, by its index (`value`). An index past the list is 404. Admins; refused in demo mode.",
    params(("index" = usize, Path, description = "The reason's index (its `value`)")),
    request_body = CancelReasonBody,
    responses((status = 200, description = "The reasons, as label and index", body = Vec<CancellationReason>)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, NotFound, SelectProper]))),
)]
pub(crate) async fn update_cancel_reason(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(index): PathParam<usize>,
    Body(body): Body<CancelReasonBody>,
) -> ApiResult<Json<Vec<CancellationReason>>> {
    authorize_write(&current, Action::CancelReasonsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let mut reasons = state.storage.cancel_reasons().await?;
    let reason = reasons.get_mut(index).ok_or(ApiError::key(ErrorKey::NotFound))?;
    *reason = body.label;
    Ok(Json(save_reasons(&state, &reasons).await?))
}

#[utoipa::path(
    delete,
    path = "/api/v1/cancelreasons/{index}",
    tag = "admin",
    summary = "Delete a cancellation reason",
    description = "Spec §7 editCancellationReason Delete, by its index; the reasons after it move up. An index past the list is 404. Admins; refused in demo mode.",
    params(("index" = usize, Path, description = "The reason's index (its `value`)")),
    responses((status = 200, description = "The reasons, as label and index", body = Vec<CancellationReason>)),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound]))),
)]
pub(crate) async fn delete_cancel_reason(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(index): PathParam<usize>,
) -> ApiResult<Json<Vec<CancellationReason>>> {
    authorize_write(&current, Action::CancelReasonsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let mut reasons = state.storage.cancel_reasons().await?;
    if index >= reasons.len() {
        return Err(ErrorKey::NotFound.into());
    }
    reasons.remove(index);
    Ok(Json(save_reasons(&state, &reasons).await?))
}

// ---- settings and app info ------------------------------------------------------

/// The stored settings (the defaults before the first save).
async fn stored_settings(state: &AppState) -> ApiResult<Settings> {
    Ok(state.storage.settings().await?.unwrap_or_default())
}

#[utoipa::path(
    patch,
    path = "/api/v1/settings",
    tag = "admin",
    summary = "Change the settings",
    description = "Spec §7 editSettings: any of the settings fields (spec §3, plus the dispatch tuning); keys that are not settings are ignored, so the object `GET /api/v1/settings` gave may be sent back. An empty or negative `bonus` is `proper_bonus`; `decimal` and `driverRadius` take only non-negative numbers (numeric strings too); `contact_email` is blank or proper. Admins; refused in demo mode (so demo mode is left from the configuration, not from here). Applies at once: the next estimate and booking use it.",
    request_body(content = Settings, description = "Any subset of the settings", content_type = "application/json"),
    responses((status = 200, description = "The settings after the change", body = Settings)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, ProperBonus, ProperEmail]))),
)]
pub(crate) async fn edit_settings(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(patch): Body<Value>,
) -> ApiResult<Json<Settings>> {
    authorize_write(&current, Action::SettingsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let settings = rules::settings::apply_settings_form(&stored_settings(&state).await?, &patch)?;
    state.storage.save_settings(&settings, state.now()).await?;
    reload(&state).await?;
    tracing::info!(by = %current.principal.id, "settings changed");
    Ok(Json(settings))
}

/// The app info (spec §2 "App info form", the /appinfo page): the name, the
/// company's details the contact-us and privacy pages and the footer show,
/// the social handles and the store links. Every field is a text.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct AppInfo {
    /// Not blank when given.
    #[schema(min_length = 1)]
    pub appName: Option<String>,
    pub CompanyName: Option<String>,
    pub CompanyAddress: Option<String>,
    pub CompanyWebsite: Option<String>,
    pub contact_email: Option<String>,
    pub CompanyPhone: Option<String>,
    pub CompanyTerms: Option<String>,
    pub FacebookHandle: Option<String>,
    pub TwitterHandle: Option<String>,
    pub InstagramHandle: Option<String>,
    pub AppleStoreLink: Option<String>,
    pub PlayStoreLink: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/appinfo",
    tag = "catalog",
    summary = "App info",
    description = "The application's name and the company's public details (spec §2 static pages, header and footer). Everyone.",
    responses((status = 200, description = "The app info", body = AppInfo)),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn app_info(State(state): State<AppState>) -> Json<Value> {
    Json(Value::Object(rules::settings::app_info(&state.runtime.catalog().settings)))
}

#[utoipa::path(
    patch,
    path = "/api/v1/appinfo",
    tag = "admin",
    summary = "Change the app info",
    description = "The app info form: only the app info fields change (others are ignored). `appName` is not blank; `contact_email` is blank or proper (`proper_email`). Admins; refused in demo mode.",
    request_body = AppInfo,
    responses((status = 200, description = "The app info after the change", body = AppInfo)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, ProperEmail]))),
)]
pub(crate) async fn edit_app_info(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(patch): Body<Value>,
) -> ApiResult<Json<Value>> {
    authorize_write(&current, Action::SettingsWrite, &state.runtime.catalog().settings)?;
    let _guard = CATALOG_WRITES.lock().await;
    let settings = rules::settings::apply_app_info(&stored_settings(&state).await?, &patch)?;
    state.storage.save_settings(&settings, state.now()).await?;
    reload(&state).await?;
    Ok(Json(Value::Object(rules::settings::app_info(&settings))))
}
