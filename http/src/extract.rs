//! Extractors that answer in the API's error shape.

use crate::error::ApiError;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use std::net::SocketAddr;
use wayfare_engine::ErrorKey;

/// `Json<T>` whose bad bodies are `400 invalid_input` in our shape.
///
/// A body read into a struct must be a JSON object, as the document says:
/// serde's derive also fills a struct from an array, field by field in
/// order, so `[null, null]` would pass as an empty patch.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::Bytes::from_request(Request::from_parts(parts.clone(), body), state).await {
            Ok(bytes) => bytes,
            Err(rejection) => {
                tracing::debug!(%rejection, "unreadable request body");
                return Err(ApiError::key(ErrorKey::FileTooLarge));
            }
        };
        if starts_with_array(&bytes) && wants_struct::<T>() {
            tracing::debug!("a JSON array where an object is expected");
            return Err(ApiError::field(ErrorKey::InvalidInput, "body"));
        }
        let request = Request::from_parts(parts, axum::body::Body::from(bytes));
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

/// Whether the first thing in the body (after white space) opens an array.
fn starts_with_array(bytes: &[u8]) -> bool {
    bytes.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'[')
}

/// Whether `T` reads itself as a struct (a derived `Deserialize` on a struct
/// with named fields), found by asking it to read from [`Probe`].
fn wants_struct<T: DeserializeOwned>() -> bool {
    matches!(T::deserialize(Probe), Err(ProbeAnswer::Struct))
}

/// A deserializer that holds nothing and only notes what it was asked for.
struct Probe;

#[derive(Debug)]
enum ProbeAnswer {
    Struct,
    Other,
}

impl std::fmt::Display for ProbeAnswer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            ProbeAnswer::Struct => "a struct",
            ProbeAnswer::Other => "something else",
        })
    }
}

impl std::error::Error for ProbeAnswer {}

impl serde::de::Error for ProbeAnswer {
    fn custom<M: std::fmt::Display>(_message: M) -> Self {
        ProbeAnswer::Other
    }
}

impl<'de> serde::Deserializer<'de> for Probe {
    type Error = ProbeAnswer;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, ProbeAnswer> {
        Err(ProbeAnswer::Other)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, ProbeAnswer> {
        Err(ProbeAnswer::Struct)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
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
