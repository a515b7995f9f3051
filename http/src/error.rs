//! The API's one error type. Every refusal is an HTTP status and
//! `{"error": {"code": <translation key>, "message": <text>, "field"?}}`;
//! a 5xx never shows internals (they are logged).

use crate::messages::Messages;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use wayfare_actors::ActorError;
use wayfare_engine::{DomainError, ErrorKey, ErrorKind};
use wayfare_storage::StorageError;

#[derive(Debug)]
pub enum ApiError {
    /// A rule said no: the key decides the status.
    Domain(DomainError),
    /// Something broke inside; logged, answered as 500 `internal_error`.
    Internal(String),
    /// The runtime did not answer in time: 503.
    Unavailable(String),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn key(key: ErrorKey) -> Self {
        ApiError::Domain(DomainError::new(key))
    }

    pub fn field(key: ErrorKey, field: &'static str) -> Self {
        ApiError::Domain(DomainError::on_field(key, field))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Domain(error) => status_of(error.kind()),
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Invalid => StatusCode::BAD_REQUEST,
        ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
    }
}

impl From<DomainError> for ApiError {
    fn from(error: DomainError) -> Self {
        ApiError::Domain(error)
    }
}

impl From<ErrorKey> for ApiError {
    fn from(key: ErrorKey) -> Self {
        ApiError::key(key)
    }
}

impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        match error {
            StorageError::NotFound => ApiError::key(ErrorKey::NotFound),
            StorageError::Conflict => ApiError::key(ErrorKey::UpdateFailed),
            StorageError::Duplicate(_) => ApiError::key(ErrorKey::UserExists),
            StorageError::DefaultLanguage => ApiError::key(ErrorKey::CannotDeleteDefaultLanguage),
            StorageError::AlreadyProcessed => ApiError::key(ErrorKey::AlreadyProcessed),
            StorageError::InsufficientBalance => ApiError::key(ErrorKey::InsufficientWalletBalance),
            StorageError::DriverBusy => ApiError::key(ErrorKey::DriverNotEligible),
            // The caller's value (a page cursor that is not ours): their mistake, not ours.
            StorageError::Invalid(what) => ApiError::field(ErrorKey::InvalidInput, what),
            // The database restarting or out of reach: try again, nothing was done.
            other if other.is_unavailable() => ApiError::Unavailable(other.to_string()),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<ActorError> for ApiError {
    fn from(error: ActorError) -> Self {
        match error {
            ActorError::Domain(error) => ApiError::Domain(error),
            ActorError::Storage(error) => error.into(),
            ActorError::Unavailable(reason) => ApiError::Unavailable(reason),
        }
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: Detail<'a>,
}

#[derive(Serialize)]
struct Detail<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

/// An error answer as rendered, kept in the response's extensions so the
/// `crate::i18n::localize` middleware can render it again in the reader's
/// language (an `IntoResponse` cannot see the request).
#[derive(Debug, Clone)]
pub struct ErrorRendered {
    pub code: &'static str,
    pub message: String,
    pub field: Option<&'static str>,
}

impl ErrorRendered {
    pub fn with_message(self, message: String) -> Self {
        ErrorRendered { message, ..self }
    }
}

impl IntoResponse for ErrorRendered {
    fn into_response(self) -> Response {
        let body = Body { error: Detail { code: self.code, message: &self.message, field: self.field } };
        let mut response = Json(body).into_response();
        response.extensions_mut().insert(self);
        response
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let (code, field) = match &self {
            ApiError::Domain(error) => (error.key.as_str(), error.field),
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                ("internal_error", None)
            }
            ApiError::Unavailable(detail) => {
                tracing::warn!(%detail, "runtime unavailable");
                ("unavailable", None)
            }
        };
        // English here; `crate::i18n::localize` switches to the reader's language.
        let message = Messages::english().text(code).to_string();
        (status, ErrorRendered { code, message, field }).into_response()
    }
}
