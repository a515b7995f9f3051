//! Who is calling: the session token from `Authorization: Bearer …` or the
//! `wayfare_session` cookie, checked against storage on every request.

use super::tokens;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;
use wayfare_engine::booking::By;
use wayfare_engine::permissions::Principal;
use wayfare_engine::{ErrorKey, User};

pub const SESSION_COOKIE: &str = "wayfare_session";

/// A signed-in, approved user.
#[derive(Debug, Clone)]
pub struct CurrentUser {
    pub principal: Principal,
    pub user: User,
    pub token_hash: String,
}

impl CurrentUser {
    pub fn by(&self) -> By {
        By::from_role(self.principal.role, self.principal.id)
    }
}

/// `Some` when a valid session came with the request; a stale or revoked
/// token is just no user, so public pages keep working with an old cookie.
pub struct MaybeUser(pub Option<CurrentUser>);

/// The raw token of a request, if any.
pub fn token_of(parts: &Parts) -> Option<String> {
    if let Some(value) = parts.headers.get(AUTHORIZATION).and_then(|value| value.to_str().ok())
        && let Some(token) = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "))
    {
        return Some(token.trim().to_string());
    }
    cookie(&parts.headers, SESSION_COOKIE)
}

/// A cookie's value, if the request carries it.
pub fn cookie(headers: &axum::http::HeaderMap, wanted: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == wanted)
        .map(|(_, value)| value.to_string())
}

/// The user a token belongs to, if the session is live and the account may sign in.
pub async fn authenticate(state: &AppState, token: &str) -> Result<CurrentUser, ApiError> {
    authenticate_as(state, token, false).await
}

/// As [`authenticate`]; with `admit_applicant`, a driver whose account is
/// not approved yet passes too (they follow their application).
async fn authenticate_as(state: &AppState, token: &str, admit_applicant: bool) -> Result<CurrentUser, ApiError> {
    let token_hash = tokens::hash(token);
    let live = |session: &wayfare_storage::Session| session.revoked_at.is_none() && session.expires_at > state.now();
    let user = match state.storage.session_with_user(&token_hash).await? {
        Some((session, user)) if live(&session) => user,
        Some(_) => return Err(ErrorKey::NotLoggedIn.into()),
        // No row: no such session, or (rarely) a session whose user is gone.
        None => match state.storage.session(&token_hash).await? {
            // Spec §6: a missing profile is told to contact the admin.
            Some(session) if live(&session) => return Err(ErrorKey::UserIssueContactAdmin.into()),
            _ => return Err(ErrorKey::NotLoggedIn.into()),
        },
    };
    let waiting_driver = admit_applicant && user.usertype == wayfare_engine::Role::Driver;
    if !(user.approved || waiting_driver) {
        return Err(ErrorKey::RequireApproval.into());
    }
    Ok(CurrentUser { principal: Principal::from_user(&user), user, token_hash })
}

/// Tells the error localiser (`crate::i18n::localize`) whose language to answer in.
fn remember_reader(parts: &Parts, current: &CurrentUser) {
    if let Some(reader) = parts.extensions.get::<crate::i18n::ReaderLanguage>() {
        reader.remember(&current.user);
    }
}

impl FromRequestParts<AppState> for CurrentUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = token_of(parts).ok_or(ErrorKey::NotLoggedIn)?;
        let current = authenticate(state, &token).await?;
        remember_reader(parts, &current);
        Ok(current)
    }
}

impl OptionalFromRequestParts<AppState> for CurrentUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Option<Self>, ApiError> {
        match token_of(parts) {
            None => Ok(None),
            Some(token) => {
                let current = authenticate(state, &token).await?;
                remember_reader(parts, &current);
                Ok(Some(current))
            }
        }
    }
}

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match token_of(parts) {
            None => Ok(MaybeUser(None)),
            Some(token) => match authenticate(state, &token).await {
                Ok(user) => {
                    remember_reader(parts, &user);
                    Ok(MaybeUser(Some(user)))
                }
                Err(ApiError::Domain(_)) => Ok(MaybeUser(None)),
                Err(other) => Err(other),
            },
        }
    }
}

/// A signed-in user who may also be a driver waiting for approval: only the
/// routes a pending driver needs take it (who am I, sign out, their
/// application and documents, their own files). Every other route takes
/// [`CurrentUser`], which refuses them with `require_approval`.
#[derive(Debug, Clone)]
pub struct Applicant(pub CurrentUser);

impl FromRequestParts<AppState> for Applicant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = token_of(parts).ok_or(ErrorKey::NotLoggedIn)?;
        let current = authenticate_as(state, &token, true).await?;
        remember_reader(parts, &current);
        Ok(Applicant(current))
    }
}

/// [`MaybeUser`] that also admits a pending driver (file downloads).
pub struct MaybeApplicant(pub Option<CurrentUser>);

impl FromRequestParts<AppState> for MaybeApplicant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match token_of(parts) {
            None => Ok(MaybeApplicant(None)),
            Some(token) => match authenticate_as(state, &token, true).await {
                Ok(user) => {
                    remember_reader(parts, &user);
                    Ok(MaybeApplicant(Some(user)))
                }
                Err(ApiError::Domain(_)) => Ok(MaybeApplicant(None)),
                Err(other) => Err(other),
            },
        }
    }
}
