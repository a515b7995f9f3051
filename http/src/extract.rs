//! Extractors that answer in the API's error shape.

use crate::error::ApiError;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use std::net::SocketAddr;
use wayfare_engine::ErrorKey;

/// `Json<T>` whose bad bodies are `400 invalid_input` in our shape.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    tracing::debug!(%rejection, "bad request body");
    match rejection {
        JsonRejection::BytesRejection(_) => ApiError::key(ErrorKey::FileTooLarge),
        _ => ApiError::field(ErrorKey::InvalidInput, "body"),
    }
}

/// Path parameters; a malformed id is `404` (it names nothing).
pub struct PathParam<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PathParam<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| PathParam(value))
            .map_err(|rejection: PathRejection| {
                tracing::debug!(%rejection, "bad path");
                ApiError::key(ErrorKey::NotFound)
            })
    }
}

/// Query parameters; bad ones are `400 invalid_input`.
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| QueryParams(value))
            .map_err(|rejection: QueryRejection| {
                tracing::debug!(%rejection, "bad query");
                ApiError::field(ErrorKey::InvalidInput, "query")
            })
    }
}

/// The caller's network address, for rate limits ("local" when unknown,
/// e.g. in tests that call the router directly).
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let address = parts
            .extensions
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip().to_string())
            .unwrap_or_else(|| "local".to_string());
        Ok(ClientAddress(address))
    }
}
