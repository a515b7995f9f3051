//! This server's own addresses: the public base URL that links sent to
//! outside services are made from (a gateway's return, a sign-in provider's
//! callback), and return paths kept to this site, so that nothing we
//! redirect to can send someone elsewhere. Payments and social sign-in share
//! them.

use crate::config::Config;
use axum::http::{HeaderMap, header};

/// This server's public base URL, without a trailing slash: the configured
/// `payments.public_url`, else the request's host (and `X-Forwarded-Proto`).
pub fn public_base(config: &Config, headers: &HeaderMap) -> String {
    if let Some(url) = config.payments.public_url.as_deref().filter(|url| !url.is_empty()) {
        return url.trim_end_matches('/').to_string();
    }
    let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or("localhost");
    let scheme = headers.get("x-forwarded-proto").and_then(|value| value.to_str().ok()).unwrap_or("http");
    format!("{scheme}://{host}")
}

/// A return link kept to a path on this site: an absolute URL keeps only its
/// path and query; anything that could leave the site (`//host`, a scheme,
/// a backslash, control characters) is `fallback`, as is nothing at all.
pub fn local_path(url: Option<&str>, fallback: &str) -> String {
    let Some(url) = url.map(str::trim).filter(|url| !url.is_empty()) else { return fallback.to_string() };
    let path = match url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")) {
        Some(rest) => rest.find('/').map_or("/", |start| &rest[start..]),
        None => url,
    };
    let safe = path.starts_with('/')
        && !path.starts_with("//")
        && !path.contains('\\')
        && path.chars().all(|character| !character.is_control() && !character.is_whitespace());
    if safe { path.to_string() } else { fallback.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_links_stay_on_this_site() {
        const FALLBACK: &str = "/bookings";
        assert_eq!(local_path(Some("https://ride.example.com/bookings?trip=1"), FALLBACK), "/bookings?trip=1");
        assert_eq!(local_path(Some("http://localhost:5173"), FALLBACK), "/");
        assert_eq!(local_path(Some("/bookings?trip=1"), FALLBACK), "/bookings?trip=1");
        assert_eq!(local_path(None, FALLBACK), FALLBACK);
        for hostile in [
            "//evil.example/x",
            "javascript:alert(1)",
            "evil.example/x",
            "/a\r\nSet-Cookie: x=1",
            "/\\evil",
            "https://evil.example//evil.example/x",
        ] {
            assert_eq!(local_path(Some(hostile), FALLBACK), FALLBACK, "{hostile}");
        }
    }

    #[test]
    fn the_public_base_is_configured_or_the_requests_host() {
        let mut config = Config::default();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "ride.test:8080".parse().unwrap());
        assert_eq!(public_base(&config, &headers), "http://ride.test:8080");
        headers.insert("x-forwarded-proto", "https".parse().unwrap());
        assert_eq!(public_base(&config, &headers), "https://ride.test:8080");
        config.payments.public_url = Some("https://ride.example.com/".into());
        assert_eq!(public_base(&config, &headers), "https://ride.example.com");
    }
}
