//! Language administration (spec §3 "Language", §7 `editLanguage` Add |
//! Update | Delete, §4 "Language", §5): admins add, edit and delete
//! languages and choose the default; exactly one language is the default
//! and it cannot be deleted. Everything here is refused in demo mode. The
//! list is public (`GET /api/v1/languages`, in `catalog`).
//!
//! `keyValuePairs` is the dictionary: a JSON object of texts, or that object
//! as a string (what the panel's JSON editor holds); anything else is
//! `json_error` ('JSON Error'). Changes take effect at once in server
//! messages (`crate::i18n`).

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::rules::catalogue::{parse_language_pairs, validate_language};
use wayfare_engine::{DomainError, ErrorKey, Language, LanguageId};

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(add)).routes(routes!(update, remove)).routes(routes!(make_default))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct LanguageBody {
    /// Required.
    #[schema(required = true, nullable = false, min_length = 1)]
    pub langName: Option<String>,
    /// e.g. `en`, `ar`, `pt-BR`; required.
    #[schema(required = true, nullable = false, min_length = 1, max_length = 16)]
    pub langLocale: Option<String>,
    /// The locale dates are shown in; the language's locale when empty.
    #[serde(default)]
    pub dateLocale: String,
    /// Adding only: make it the default at once.
    #[serde(default)]
    pub default: bool,
    /// The dictionary: an object of texts, or that object as a JSON string.
    #[schema(value_type = Object)]
    pub keyValuePairs: Option<Value>,
}

/// The dictionary from the body (spec §5: 'JSON Error' when it does not parse).
fn dictionary(value: Option<Value>) -> ApiResult<BTreeMap<String, String>> {
    let json_error = || ApiError::Domain(DomainError::on_field(ErrorKey::JsonError, "keyValuePairs"));
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::String(text)) => Ok(parse_language_pairs(&text)?),
        Some(object @ Value::Object(_)) => serde_json::from_value(object).map_err(|_| json_error()),
        Some(_) => Err(json_error()),
    }
}

/// The name and locales, checked, and no other language with that locale.
async fn checked_names(state: &AppState, body: &LanguageBody, id: LanguageId) -> ApiResult<(String, String, String)> {
    let (name, locale, date_locale) = validate_language(
        body.langName.as_deref().unwrap_or_default(),
        body.langLocale.as_deref().unwrap_or_default(),
        &body.dateLocale,
    )?;
    let taken = state
        .storage
        .languages()
        .await?
        .iter()
        .any(|language| language.id != id && language.langLocale.eq_ignore_ascii_case(&locale));
    if taken {
        return Err(ApiError::field(ErrorKey::LanguageExists, "langLocale"));
    }
    Ok((name, locale, date_locale))
}

fn authorized(state: &AppState, current: &CurrentUser) -> ApiResult<()> {
    let settings = &state.runtime.catalog().settings;
    authorize(Some(&current.principal), Action::LanguagesWrite, Resource::None, settings)?;
    Ok(())
}

/// The stored language, as the list shows it.
async fn stored(state: &AppState, id: LanguageId) -> ApiResult<Language> {
    state.languages.invalidate();
    let languages = state.storage.languages().await?;
    languages.into_iter().find(|language| language.id == id).ok_or_else(|| ApiError::key(ErrorKey::NotFound))
}

#[utoipa::path(
    post,
    operation_id = "add_language",
    path = "/api/v1/languages",
    tag = "languages",
    summary = "Add a language",
    description = "Admins, refused in demo mode. `default: true` makes it the default, taking the flag from the current one.",
    request_body = LanguageBody,
    responses((status = 201, description = "The language", body = Language)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, JsonError, LanguageExists, UpdateFailed
    ]))),
)]
pub(crate) async fn add(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<LanguageBody>,
) -> ApiResult<(StatusCode, Json<Language>)> {
    authorized(&state, &current)?;
    let id = LanguageId(uuid::Uuid::now_v7());
    let (name, locale, date_locale) = checked_names(&state, &body, id).await?;
    let pairs = dictionary(body.keyValuePairs)?;
    let now = state.now();
    let language = Language {
        id,
        langName: name,
        langLocale: locale,
        dateLocale: date_locale,
        default: body.default,
        keyValuePairs: pairs,
        createdAt: now,
    };
    state.storage.save_language(&language, now).await?;
    Ok((StatusCode::CREATED, Json(stored(&state, id).await?)))
}

#[utoipa::path(
    put,
    operation_id = "update_language",
    path = "/api/v1/languages/{id}",
    tag = "languages",
    summary = "Edit a language",
    description = "Admins, refused in demo mode. Replaces the name, locales and dictionary; whether it is the default does not change here (`POST /api/v1/languages/{id}/default`).",
    params(("id" = LanguageId, Path, description = "The language's id")),
    request_body = LanguageBody,
    responses((status = 200, description = "The language", body = Language)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DemoMode, NotFound, JsonError, LanguageExists, UpdateFailed
    ]))),
)]
pub(crate) async fn update(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<LanguageId>,
    Body(body): Body<LanguageBody>,
) -> ApiResult<Json<Language>> {
    authorized(&state, &current)?;
    let existing =
        state.storage.languages().await?.into_iter().find(|language| language.id == id).ok_or(ErrorKey::NotFound)?;
    let (name, locale, date_locale) = checked_names(&state, &body, id).await?;
    let pairs = dictionary(body.keyValuePairs)?;
    let language =
        Language { langName: name, langLocale: locale, dateLocale: date_locale, keyValuePairs: pairs, ..existing };
    state.storage.save_language(&language, state.now()).await?;
    Ok(Json(stored(&state, id).await?))
}

#[utoipa::path(
    delete,
    operation_id = "delete_language",
    path = "/api/v1/languages/{id}",
    tag = "languages",
    summary = "Delete a language",
    description = "Admins, refused in demo mode. The default language cannot be deleted: 409 `cannot_delete_default_language` ('Cannot delete default language').",
    params(("id" = LanguageId, Path, description = "The language's id")),
    responses((status = 204, description = "Deleted")),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound, CannotDeleteDefaultLanguage]))),
)]
pub(crate) async fn remove(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<LanguageId>,
) -> ApiResult<StatusCode> {
    authorized(&state, &current)?;
    state.storage.delete_language(id).await?;
    state.languages.invalidate();
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    operation_id = "make_default_language",
    path = "/api/v1/languages/{id}/default",
    tag = "languages",
    summary = "Make a language the default",
    description = "Admins, refused in demo mode. The flag moves: this language becomes the default and every other one not (spec §4 \"Language\"). Visitors and users without a language of their own get the default's texts.",
    params(("id" = LanguageId, Path, description = "The language's id")),
    responses((status = 200, description = "Every language, the new default marked", body = Vec<Language>)),
    extensions(("x-refusals" = json!(session![NotAllowed, DemoMode, NotFound, UpdateFailed]))),
)]
pub(crate) async fn make_default(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<LanguageId>,
) -> ApiResult<Json<Vec<Language>>> {
    authorized(&state, &current)?;
    state.storage.make_default_language(id, state.now()).await?;
    state.languages.invalidate();
    Ok(Json(state.storage.languages().await?))
}
