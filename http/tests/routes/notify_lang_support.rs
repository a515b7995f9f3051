//! Requests the promo, notification and language tests need besides those of
//! `support` (PUT and DELETE, a language header), and their fixtures.

use crate::support::*;
use axum::body::Body;
use axum::http::{Method, Request, header};
use serde_json::{Value, json};

fn with_session(builder: axum::http::request::Builder, who: Option<&Session>) -> axum::http::request::Builder {
    match who {
        Some(session) => builder.header(header::AUTHORIZATION, format!("Bearer {}", session.token)),
        None => builder,
    }
}

/// A request with a JSON body and any method.
pub async fn send_json(app: &TestApp, method: Method, path: &str, who: Option<&Session>, body: Value) -> Reply {
    let request = with_session(Request::builder().method(method).uri(path), who)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(serde_json::to_vec(&body).unwrap()))
        .unwrap();
    app.send(request).await
}

pub async fn put(app: &TestApp, path: &str, who: Option<&Session>, body: Value) -> Reply {
    send_json(app, Method::PUT, path, who, body).await
}

pub async fn delete(app: &TestApp, path: &str, who: Option<&Session>) -> Reply {
    let request = with_session(Request::builder().method(Method::DELETE).uri(path), who).body(Body::empty()).unwrap();
    app.send(request).await
}

/// A GET with an `Accept-Language` header.
pub async fn get_in(app: &TestApp, path: &str, who: Option<&Session>, accept_language: &str) -> Reply {
    let request = with_session(Request::builder().method(Method::GET).uri(path), who)
        .header(header::ACCEPT_LANGUAGE, accept_language)
        .body(Body::empty())
        .unwrap();
    app.send(request).await
}

/// A POST with a JSON body and an `Accept-Language` header.
pub async fn post_in(app: &TestApp, path: &str, who: Option<&Session>, body: Value, accept_language: &str) -> Reply {
    let request = with_session(Request::builder().method(Method::POST).uri(path), who)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT_LANGUAGE, accept_language)
        .body(Body::from(serde_json::to_vec(&body).unwrap()))
        .unwrap();
    app.send(request).await
}

/// A valid promo body: 10 % off, capped at 5, valid for a day.
pub fn promo_body(name: &str) -> Value {
    json!({
        "promo_name": name,
        "promo_description": "Ten percent off",
        "promo_discount_type": "percentage",
        "promo_discount_value": 10,
        "max_promo_discount_value": 5,
        "min_order": 1,
        "promo_validity": T0 + 24 * 3_600_000,
        "promo_usage_limit": 10
    })
}

/// Adds a promo through the route, as the admin.
pub async fn add_promo(app: &TestApp, admin: &Session, body: Value) -> Value {
    app.post("/api/v1/promos", Some(admin), body).await.expect(201).clone()
}

/// The shipped language with this locale, as listed.
pub async fn language(app: &TestApp, locale: &str) -> Value {
    let list = app.get("/api/v1/languages", None).await;
    list.expect(200)
        .as_array()
        .unwrap()
        .iter()
        .find(|language| language["langLocale"] == locale)
        .unwrap_or_else(|| panic!("no language {locale}"))
        .clone()
}
