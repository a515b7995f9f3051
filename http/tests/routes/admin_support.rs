//! Helpers of the admin panel's route tests (users, profile, car types,
//! cancellation reasons, settings, app info): requests with any method, and
//! the people and fixtures those tests share.

use crate::support::*;
use axum::body::Body;
use axum::http::{Method, Request, header};
use serde_json::{Value, json};
use wayfare_engine::{Role, User, UserId};

/// One request with any method and an optional JSON body.
pub async fn call(app: &TestApp, method: Method, path: &str, who: Option<&Session>, body: Option<Value>) -> Reply {
    let mut builder = Request::builder().method(method).uri(path);
    if let Some(session) = who {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {}", session.token));
    }
    let request = match body {
        Some(body) => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(serde_json::to_vec(&body).unwrap()))
            .unwrap(),
        None => builder.body(Body::empty()).unwrap(),
    };
    app.send(request).await
}

pub async fn patch(app: &TestApp, path: &str, who: Option<&Session>, body: Value) -> Reply {
    call(app, Method::PATCH, path, who, Some(body)).await
}

pub async fn put(app: &TestApp, path: &str, who: Option<&Session>, body: Value) -> Reply {
    call(app, Method::PUT, path, who, Some(body)).await
}

pub async fn delete(app: &TestApp, path: &str, who: Option<&Session>) -> Reply {
    call(app, Method::DELETE, path, who, None).await
}

pub const ADMIN: &str = "admin@demo.wayfare";
pub const FLEET: &str = "fleet@demo.wayfare";

/// The demo app with a second fleet (its admin and one driver) added.
pub async fn app_with_two_fleets() -> TestApp {
    let app = TestApp::demo().await;
    add_second_fleet(&app).await;
    app
}

pub async fn add_second_fleet(app: &TestApp) {
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
}

/// A rider straight in storage, not signed in; numbers make the contacts unique.
pub fn extra_rider(number: u32) -> User {
    let mut user = User::new(UserId::from_u128(0xADD0_0000 + u128::from(number)), Role::Rider, T0);
    user.firstName = "Extra".into();
    user.lastName = format!("Rider {number}");
    user.email = format!("extra{number}@test.wayfare");
    user.mobile = format!("+1410555{:04}", 8000 + number);
    let letter = |shift: u32| char::from(b'A' + ((number / 26u32.pow(shift)) % 26) as u8);
    user.referralId = format!("XR{}{}{}", letter(2), letter(1), letter(0));
    user.approved = true;
    user
}

/// A driver body for `POST /api/v1/users`.
pub fn new_driver_body(email: &str, mobile: &str) -> Value {
    json!({
        "usertype": "driver", "firstName": "Nina", "lastName": "New",
        "email": email, "mobile": mobile,
        "carType": "Economy", "vehicleMake": "Kia", "vehicleModel": "Niro", "vehicleNumber": "MD-1234",
    })
}

pub fn id_of(value: &Value) -> UserId {
    value["id"].as_str().and_then(|id| id.parse().ok()).unwrap_or_else(|| panic!("no id: {value}"))
}
