//! Helpers of the money tests (wallet credit, withdraws, reports) that the
//! shared support does not have: requests with an `Idempotency-Key`, and
//! answers read as raw bytes (an XLSX file is not text).

use crate::support::*;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use rust_decimal::Decimal;
use serde_json::Value;
use tower::ServiceExt;
use wayfare_engine::Booking;
use wayfare_engine::booking::{By, Command};

fn authorised(method: Method, path: &str, who: Option<&Session>) -> axum::http::request::Builder {
    let builder = Request::builder().method(method).uri(path);
    match who {
        Some(session) => builder.header(header::AUTHORIZATION, format!("Bearer {}", session.token)),
        None => builder,
    }
}

/// A JSON POST carrying `Idempotency-Key: key`.
pub async fn post_keyed(app: &TestApp, path: &str, who: Option<&Session>, body: Value, key: &str) -> Reply {
    let request = authorised(Method::POST, path, who)
        .header(header::CONTENT_TYPE, "application/json")
        .header("Idempotency-Key", key)
        .body(Body::from(serde_json::to_vec(&body).unwrap()))
        .unwrap();
    app.send(request).await
}

/// An answer whose body is kept as bytes.
pub struct RawReply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl RawReply {
    pub fn header(&self, name: header::HeaderName) -> &str {
        self.headers.get(&name).and_then(|value| value.to_str().ok()).unwrap_or_else(|| panic!("no {name} header"))
    }
}

/// A GET whose answer is read as bytes.
pub async fn get_raw(app: &TestApp, path: &str, who: Option<&Session>) -> RawReply {
    let request = authorised(Method::GET, path, who).body(Body::empty()).unwrap();
    let response = app.router.clone().oneshot(request).await.expect("the router never fails");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a readable body").to_vec();
    RawReply { status, headers, bytes }
}

/// A JSON number of the API as a decimal (money is rounded to 2 places in the demo).
pub fn money(value: &Value) -> Decimal {
    let number = value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"));
    Decimal::try_from(number).unwrap().round_dp(2)
}

/// A booking of `customer` with `driver`, cancelled by the rider `minutes`
/// after the driver accepted: past the first cancel slab (2 minutes) the
/// demo car types charge a fee.
pub async fn cancelled_after(
    app: &TestApp,
    customer: &wayfare_engine::User,
    driver: &wayfare_engine::User,
    minutes: u64,
) -> std::sync::Arc<Booking> {
    let booking = app.booking_at(customer, driver, Stage::Accepted).await;
    app.advance(MINUTE * minutes as u32);
    app.command(
        booking.id,
        By::Rider(customer.id),
        Command::Cancel { reason: "Changed my plans".into(), wallet_balance: None },
    )
    .await
}
