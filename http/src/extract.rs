//! Extractors that answer in the API's error shape.

use crate::error::ApiError;
use crate::state::AppState;
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
/// e.g. in tests that call the router directly). Behind a trusted proxy
/// (`auth.trusted_proxies`), the nearest address in `X-Forwarded-For` that
/// is not itself a trusted proxy.
pub struct ClientAddress(pub String);

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(peer) = parts.extensions.get::<axum::extract::ConnectInfo<SocketAddr>>().map(|info| info.0.ip())
        else {
            return Ok(ClientAddress("local".to_string()));
        };
        let forwarded = parts.headers.get_all("x-forwarded-for").iter().filter_map(|value| value.to_str().ok());
        Ok(ClientAddress(client_address(peer, forwarded, &state.config.auth.trusted_proxies).to_string()))
    }
}

/// Walks the proxies from the nearest: each hop a trusted proxy added is
/// believed, the first untrusted one is the client. Several headers count as
/// one list, in order.
pub(crate) fn client_address<'h>(
    peer: std::net::IpAddr,
    forwarded: impl Iterator<Item = &'h str>,
    trusted: &crate::config::TrustedProxies,
) -> std::net::IpAddr {
    if !trusted.contains(peer) {
        return peer;
    }
    let hops: Vec<std::net::IpAddr> =
        forwarded.flat_map(|value| value.split(',')).filter_map(|hop| hop.trim().parse().ok()).collect();
    let mut client = peer;
    for hop in hops.into_iter().rev() {
        client = hop;
        if !trusted.contains(hop) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod client_address_tests {
    use super::client_address;
    use crate::config::TrustedProxies;
    use std::net::IpAddr;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn trusted(entries: &[&str]) -> TrustedProxies {
        TrustedProxies::try_from(entries.iter().map(|entry| entry.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_proxy() {
        let proxies = trusted(&["10.0.0.0/8", "127.0.0.1"]);
        // Anyone may send the header: from an untrusted peer it is ignored.
        assert_eq!(client_address(ip("203.0.113.9"), ["1.2.3.4"].into_iter(), &proxies), ip("203.0.113.9"));
        // From the local nginx: the address it saw.
        assert_eq!(client_address(ip("127.0.0.1"), ["198.51.100.7"].into_iter(), &proxies), ip("198.51.100.7"));
        // Through two proxies; a forged first hop stays to the left of the real client.
        let hops = ["6.6.6.6, 198.51.100.7, 10.1.2.3"];
        assert_eq!(client_address(ip("127.0.0.1"), hops.into_iter(), &proxies), ip("198.51.100.7"));
        // Several header lines are one list; garbage hops are skipped.
        let lines = ["6.6.6.6", "198.51.100.8, nonsense", "10.9.9.9"];
        assert_eq!(client_address(ip("10.0.0.1"), lines.into_iter(), &proxies), ip("198.51.100.8"));
        // A trusted proxy with no header is the client as far as anyone knows.
        assert_eq!(client_address(ip("10.0.0.1"), std::iter::empty(), &proxies), ip("10.0.0.1"));
        // IPv4 seen through an IPv6 socket, and IPv6 ranges.
        assert_eq!(client_address(ip("::ffff:127.0.0.1"), ["198.51.100.9"].into_iter(), &proxies), ip("198.51.100.9"));
        let v6 = trusted(&["fd00::/8"]);
        assert_eq!(client_address(ip("fd12::1"), ["2001:db8::5"].into_iter(), &v6), ip("2001:db8::5"));
        assert_eq!(client_address(ip("fe80::1"), ["2001:db8::5"].into_iter(), &v6), ip("fe80::1"));
        // Nobody trusted: the peer, always.
        assert_eq!(
            client_address(ip("127.0.0.1"), ["1.2.3.4"].into_iter(), &TrustedProxies::default()),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn ranges_are_checked_when_the_configuration_loads() {
        for bad in ["10.0.0.0/33", "not-an-address", "::1/129", "10.0.0.0/x"] {
            let error = TrustedProxies::try_from(vec![bad.to_string()]).unwrap_err();
            assert!(error.contains(bad), "{error}");
        }
        let proxies = trusted(&["0.0.0.0/0"]);
        assert!(proxies.contains(ip("8.8.8.8")) && !proxies.contains(ip("::1")));
    }
}
