//! The panel's payment settings (issue #37): every gateway with `active`,
//! `testing` and its fields. Secrets are write-only: a browser is only told
//! whether one is set. Each change is recorded (who, when, which fields).

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{session, session_with_body};
use crate::payments::gateway::{FieldKind, Gateway};
use crate::payments::gateways;
use crate::payments::settings::{self, EditError, GatewayEdit};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{ErrorKey, Millis, UserId};
use wayfare_storage::{GatewayChange, StoredGateway};

/// One edit at a time: an edit reads, merges and writes the gateway's row.
static EDITS: Mutex<()> = Mutex::const_new(());

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(payment_gateways))
        .routes(routes!(edit_payment_gateway))
        .routes(routes!(payment_gateway_changes))
}

/// A field of a gateway as the panel shows it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldView {
    /// The original product's name for it (e.g. `KEY_ID`).
    name: &'static str,
    kind: FieldKind,
    required: bool,
    /// The value, for text fields only; a secret is never sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    set: bool,
    /// Set in `wayfare.toml`: read-only here.
    in_file: bool,
}

/// A gateway as the panel shows it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayView {
    name: &'static str,
    active: bool,
    testing: bool,
    /// On: active with every required field set (then offered to payers).
    usable: bool,
    /// Required fields not set.
    missing: Vec<&'static str>,
    /// Has a table in `wayfare.toml`.
    in_file: bool,
    /// `active` is decided by `wayfare.toml`: read-only here.
    active_in_file: bool,
    /// `testing` is decided by `wayfare.toml`: read-only here.
    testing_in_file: bool,
    fields: Vec<FieldView>,
    /// What to register in the provider's dashboard.
    webhook_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_by: Option<UserId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<Millis>,
}

fn view(state: &AppState, base: &str, gateway: &'static dyn Gateway, stored: Option<&StoredGateway>) -> GatewayView {
    let merged = state.gateways.merge(gateway, stored);
    let file = state.gateways.from_file(gateway);
    let is_test = gateway.name() == crate::payments::TEST_GATEWAY;
    let fields = gateway
        .fields()
        .iter()
        .map(|field| {
            let value = merged.value(field.name);
            FieldView {
                name: field.name,
                kind: field.kind,
                required: field.required,
                value: (field.kind == FieldKind::Text).then(|| value.map(str::to_string)).flatten(),
                set: value.is_some(),
                in_file: file.is_some_and(|file| file.value(field.name).is_some()),
            }
        })
        .collect();
    GatewayView {
        name: gateway.name(),
        active: merged.active,
        testing: merged.testing,
        usable: merged.usable(gateway),
        missing: merged.missing(gateway),
        in_file: file.is_some() || is_test,
        active_in_file: file.is_some_and(|file| file.fixed_active) || is_test,
        testing_in_file: file.is_some_and(|file| file.fixed_testing) || is_test,
        fields,
        webhook_url: format!("{base}/api/v1/payments/{}/webhook", gateway.name()),
        updated_by: stored.and_then(|stored| stored.updated_by),
        updated_at: stored.map(|stored| stored.updated_at),
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/payment-gateways",
    tag = "payments",
    summary = "Payment gateways and their settings",
    description = "Admins. Every gateway of the spec (§3 `payment_settings`) in the spec's order, with `active`, `testing`, whether it is usable (active with every required field set: then `GET /api/v1/payments/providers` offers it), and its fields by the original product's names. Text fields carry their value; secrets only say whether they are `set`. Fields and switches set in `wayfare.toml` are marked `inFile` and cannot be changed here. The built-in `test` gateway follows `payments.test_gateway` only.",
    responses((status = 200, description = "Every gateway", body = Vec<GatewayView>)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn payment_gateways(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
) -> ApiResult<Json<Vec<GatewayView>>> {
    authorize(
        Some(&current.principal),
        Action::PaymentSettingsRead,
        Resource::None,
        &state.runtime.catalog().settings,
    )?;
    let stored = state.storage.payment_gateways().await?;
    let base = crate::site::public_base(&state.config, &headers);
    let views = gateways::ALL
        .iter()
        .map(|gateway| view(&state, &base, *gateway, stored.iter().find(|stored| stored.name == gateway.name())))
        .collect();
    Ok(Json(views))
}

fn refused(error: EditError) -> ApiError {
    match error {
        EditError::UnknownField(_) | EditError::BadValue(_) => ApiError::field(ErrorKey::InvalidInput, "fields"),
        EditError::SetInFile(_) => ErrorKey::SetInConfigFile.into(),
        EditError::NoSecretsKey => ErrorKey::SecretsKeyMissing.into(),
    }
}

#[utoipa::path(
    put,
    path = "/api/v1/payment-gateways/{name}",
    tag = "payments",
    summary = "Change a gateway's settings",
    description = "Admins; refused in demo mode. `active`, `testing` and `fields` (by name; a text sets, `null` or an empty text clears, a field left out keeps its value). Secrets are encrypted with `payments.secrets_key` before they are stored (409 `secrets_key_missing` without it) and never sent back. A field or switch `wayfare.toml` sets is 409 `set_in_config_file`; an unknown field or a value that is not one line of at most 4096 characters is 400 `invalid_input` on `fields`. The change (who, when, which fields, never their values) is recorded. Applies at once, on every node. Answers the gateway as the list shows it.",
    params(("name" = String, Path, description = "The gateway's name, e.g. `razorpay`")),
    request_body = GatewayEdit,
    responses((status = 200, description = "The gateway after the change", body = GatewayView)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, NotFound, InvalidInput, SetInConfigFile, SecretsKeyMissing
    ]))),
)]
async fn edit_payment_gateway(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    PathParam(name): PathParam<String>,
    Body(edit): Body<GatewayEdit>,
) -> ApiResult<Json<GatewayView>> {
    authorize(
        Some(&current.principal),
        Action::PaymentSettingsWrite,
        Resource::None,
        &state.runtime.catalog().settings,
    )?;
    let gateway = gateways::find(&name).ok_or(ErrorKey::NotFound)?;
    if gateway.name() == crate::payments::TEST_GATEWAY {
        // The test gateway moves no money: only the server's configuration turns it on.
        return Err(ErrorKey::SetInConfigFile.into());
    }
    let _turn = EDITS.lock().await;
    let stored = state.storage.payment_gateway(gateway.name()).await?;
    let key = state.gateways.secrets();
    let seal = |field: &str, value: &str| key.expect("sealing only with a key").seal(gateway.name(), field, value);
    let seal: Option<settings::Seal<'_>> = key.map(|_| &seal as settings::Seal<'_>);
    let file = state.gateways.from_file(gateway);
    let edited = settings::apply_edit(gateway, file, stored.as_ref(), &edit, seal).map_err(refused)?;
    let now = state.now();
    let saved = StoredGateway {
        name: gateway.name().to_string(),
        active: edited.active,
        testing: edited.testing,
        fields: edited.fields,
        updated_by: Some(current.principal.id),
        updated_at: now,
    };
    if !edited.changed.is_empty() {
        let change = GatewayChange {
            id: uuid::Uuid::now_v7(),
            gateway: gateway.name().to_string(),
            changed_by: Some(current.principal.id),
            changed_at: now,
            changed: edited.changed.clone(),
        };
        state.storage.save_payment_gateway(&saved, &change).await?;
        tracing::info!(gateway = gateway.name(), by = %current.principal.id, changed = ?edited.changed, "payment gateway settings changed");
    }
    let stored = if edited.changed.is_empty() { stored } else { Some(saved) };
    Ok(Json(view(&state, &crate::site::public_base(&state.config, &headers), gateway, stored.as_ref())))
}

#[derive(Debug, Deserialize, Default)]
struct ChangesQuery {
    gateway: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
}

/// A page of the change log.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct ChangesPage {
    items: Vec<ChangeView>,
    /// The cursor of the next page, if any.
    next: Option<String>,
}

/// One change: who, when, which fields (never their values).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ChangeView {
    id: uuid::Uuid,
    gateway: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_by: Option<UserId>,
    /// The admin's name when they still exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_by_name: Option<String>,
    changed_at: Millis,
    changed: Vec<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/payment-gateways/changes",
    tag = "payments",
    summary = "Who changed the payment settings",
    description = "Admins. The changes newest first, of one gateway (`gateway`) or all: who, when and which fields, never their values. Paged with `limit` and `after`.",
    params(
        ("gateway" = Option<String>, Query, description = "Only this gateway's changes"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"),
        ("after" = Option<String>, Query, description = "The `next` cursor of the previous page"),
    ),
    responses((status = 200, description = "A page of changes", body = ChangesPage)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput]))),
)]
async fn payment_gateway_changes(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ChangesQuery>,
) -> ApiResult<Json<ChangesPage>> {
    authorize(
        Some(&current.principal),
        Action::PaymentSettingsRead,
        Resource::None,
        &state.runtime.catalog().settings,
    )?;
    let page = super::page_request(query.limit, query.after)?;
    let gateway = query.gateway.as_deref().map(str::trim).filter(|name| !name.is_empty());
    let changes = state.storage.payment_gateway_changes(gateway, &page).await?;
    let mut items = Vec::with_capacity(changes.items.len());
    for change in changes.items {
        let name = match change.changed_by {
            Some(id) => state
                .storage
                .user(id)
                .await
                .ok()
                .map(|user| format!("{} {}", user.firstName, user.lastName).trim().to_string()),
            None => None,
        };
        items.push(ChangeView {
            id: change.id,
            gateway: change.gateway,
            changed_by: change.changed_by,
            changed_by_name: name,
            changed_at: change.changed_at,
            changed: change.changed,
        });
    }
    Ok(Json(ChangesPage { items, next: changes.next }))
}
