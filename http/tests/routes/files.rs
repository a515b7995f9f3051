//! Image uploads and downloads (issue 6 "Files"; spec §7 updateWebProfileImage,
//! updateLicenseImage, editCarType UpdateImage, file storage paths; spec §3
//! parcel pickup/deliver images; §8 `choose_image_first`): a real PNG made
//! here byte by byte, a text file named `.png`, an oversized file, no file,
//! and the bytes served back with their type to those who may read them.

use crate::support::*;
use axum::body::Body;
use axum::http::{Method, Request, header};
use serde_json::Value;
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{AppCategory, BookingStatus, CarTypeId, Settings, User};
use wayfare_http::config::Config;

// ---- test data --------------------------------------------------------------------

/// A valid PNG of `width` × 1 grey pixels, built from the format's parts
/// (signature, IHDR, one stored-deflate IDAT, IEND) with their CRCs.
pub fn png(width: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for byte in bytes {
            crc ^= u32::from(*byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut typed = kind.to_vec();
        typed.extend_from_slice(data);
        out.extend_from_slice(&typed);
        out.extend_from_slice(&crc32(&typed).to_be_bytes());
    }
    // One scanline: filter byte 0, then one grey byte per pixel.
    let mut raw = vec![0u8];
    raw.extend(std::iter::repeat_n(0x80u8, width as usize));
    let (mut a, mut b) = (1u32, 0u32);
    for byte in &raw {
        a = (a + u32::from(*byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    let mut zlib = vec![0x78, 0x01, 0x01];
    zlib.extend_from_slice(&(raw.len() as u16).to_le_bytes());
    zlib.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
    zlib.extend_from_slice(&raw);
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&1u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]); // 8-bit greyscale
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// One part of a multipart form.
pub struct Part {
    pub name: String,
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

pub fn file_part(file_name: &str, content_type: &str, bytes: Vec<u8>) -> Part {
    Part { name: "file".into(), file_name: Some(file_name.into()), content_type: Some(content_type.into()), bytes }
}

pub fn text_part(name: &str, value: &str) -> Part {
    Part { name: name.into(), file_name: None, content_type: None, bytes: value.as_bytes().to_vec() }
}

const BOUNDARY: &str = "----wayfare-test-boundary-7MA4YWxkTrZu0gW";

/// A `multipart/form-data` body as a browser's `FormData` sends it.
pub fn multipart(parts: &[Part]) -> Vec<u8> {
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", part.name);
        if let Some(file_name) = &part.file_name {
            disposition.push_str(&format!("; filename=\"{file_name}\""));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(content_type) = &part.content_type {
            body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(&part.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

pub fn multipart_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

/// Posts a multipart form.
pub async fn upload(app: &TestApp, path: &str, who: Option<&Session>, parts: &[Part]) -> Reply {
    app.post_raw(path, who, &multipart_type(), multipart(parts)).await
}

/// Posts an image in the field `file`, as the web app does.
pub async fn upload_image(app: &TestApp, path: &str, who: Option<&Session>, bytes: Vec<u8>) -> Reply {
    upload(app, path, who, &[file_part("picture.png", "image/png", bytes)]).await
}

/// GETs a file: status, content type and bytes.
pub async fn download(app: &TestApp, url: &str, who: Option<&Session>) -> (u16, Option<String>, Vec<u8>) {
    let mut request = Request::builder().method(Method::GET).uri(url);
    if let Some(session) = who {
        request = request.header(header::AUTHORIZATION, format!("Bearer {}", session.token));
    }
    let response = tower::ServiceExt::oneshot(app.router.clone(), request.body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get(header::CONTENT_TYPE).map(|value| value.to_str().unwrap().to_string());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
    (status, content_type, bytes)
}

pub fn file_url(body: &Value, field: &str) -> String {
    let url = body[field].as_str().unwrap_or_else(|| panic!("no {field}: {body}")).to_string();
    assert!(url.starts_with("/api/v1/files/"), "{field} is a file URL: {url}");
    url
}

/// The demo's Economy car type.
pub fn economy() -> CarTypeId {
    CarTypeId::from_u128(0x0000_0000_0000_7000_8000_ca00_0000_0001)
}

/// A delivery platform that asks for both parcel photos.
pub fn delivery_settings(settings: &mut Settings) {
    settings.appcat = AppCategory::Delivery;
    settings.AllowDeliveryPickupImageCapture = true;
    settings.AllowFinalDeliveryImageCapture = true;
}

/// A delivery booking of `customer` made by the admin (so it starts NEW),
/// taken by `driver` up to ARRIVED.
pub async fn arrived_delivery(app: &TestApp, customer: &User, driver: &User) -> wayfare_engine::BookingId {
    let admin = demo_user(wayfare_http::demo::ADMIN_EMAIL);
    let booking = app.runtime().create_booking("Economy", trip_request(), customer, By::Admin(admin.id)).await.unwrap();
    assert_eq!(booking.status, BookingStatus::New);
    app.offer(booking.id, &[driver]).await;
    app.accept(booking.id, driver).await;
    app.command(booking.id, By::Driver(driver.id), Command::Arrive { location: None }).await;
    booking.id
}

// ---- profile photos ------------------------------------------------------------------

#[tokio::test]
async fn a_profile_photo_is_stored_set_on_the_user_and_served_back_as_png() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let image = png(3);
    let reply = upload_image(&app, "/api/v1/users/me/profile-image", Some(&rider), image.clone()).await;
    let url = file_url(reply.expect(200), "profile_image");
    assert_eq!(reply.body["id"], rider.user["id"], "the answer is the user");
    assert!(reply.body.get("pushToken").is_none(), "presented like every user");
    let stored = app.state.storage.user(rider.id).await.unwrap();
    assert_eq!(stored.profile_image.as_deref(), Some(url.as_str()));
    // Profile photos are public (they show on bookings), with their real type.
    let (status, content_type, bytes) = download(&app, &url, None).await;
    assert_eq!((status, content_type.as_deref()), (200, Some("image/png")));
    assert_eq!(bytes, image);
    // The profile the app loads shows it.
    assert_eq!(app.get("/api/v1/auth/me", Some(&rider)).await.expect(200)["user"]["profile_image"], url.as_str());
}

#[tokio::test]
async fn images_are_recognised_by_content_not_by_name() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/users/me/profile-image";
    // A text file renamed `.png` and declared as one.
    let text = upload(
        &app,
        path,
        Some(&rider),
        &[file_part("photo.png", "image/png", b"just some text, not a picture".to_vec())],
    )
    .await;
    text.refused_on(400, "invalid_input", "image");
    // A JPEG, a GIF and a WebP named and typed wrongly are still images.
    let jpeg = [&[0xFF, 0xD8, 0xFF, 0xE0][..], b"\x00\x10JFIF\x00rest of a jpeg"].concat();
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let webp = [&b"RIFF"[..], &[20, 0, 0, 0], b"WEBPVP8 rest of a webp"].concat();
    for (bytes, mime) in [(jpeg, "image/jpeg"), (gif, "image/gif"), (webp, "image/webp")] {
        let reply = upload(&app, path, Some(&rider), &[file_part("document.txt", "text/plain", bytes.clone())]).await;
        let url = file_url(reply.expect(200), "profile_image");
        let (status, content_type, served) = download(&app, &url, None).await;
        assert_eq!((status, content_type.as_deref(), served), (200, Some(mime), bytes));
    }
    assert!(app.state.storage.user(rider.id).await.unwrap().profile_image.is_some());
}

#[tokio::test]
async fn an_upload_without_a_file_is_choose_image_first() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/users/me/profile-image";
    upload(&app, path, Some(&rider), &[text_part("caption", "me")]).await.refused_on(
        400,
        "choose_image_first",
        "image",
    );
    upload(&app, path, Some(&rider), &[file_part("empty.png", "image/png", Vec::new())]).await.refused_on(
        400,
        "choose_image_first",
        "image",
    );
    app.post_empty(path, Some(&rider)).await.refused_on(400, "choose_image_first", "file");
    app.post_raw(path, Some(&rider), "application/json", "{}").await.refused_on(400, "choose_image_first", "file");
    assert_eq!(app.state.storage.user(rider.id).await.unwrap().profile_image, None);
}

async fn small_limit_app() -> TestApp {
    let mut setup = Setup::default();
    setup.config = Config {
        files: wayfare_http::config::FilesConfig { max_upload_bytes: 1024, ..Default::default() },
        ..setup.config
    };
    TestApp::start(setup).await
}

#[tokio::test]
async fn a_file_over_the_limit_is_413_while_it_is_read() {
    let app = small_limit_app().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/users/me/profile-image";
    // At the limit: fine. One pixel row longer than the limit: refused.
    let fits = png(900);
    assert!(fits.len() <= 1024);
    upload_image(&app, path, Some(&rider), fits).await.expect(200);
    let too_big = png(2_000);
    assert!(too_big.len() > 1024);
    upload_image(&app, path, Some(&rider), too_big).await.refused_on(413, "file_too_large", "file");
}

#[tokio::test]
async fn a_body_declared_over_the_limit_is_refused_before_it_is_read() {
    let app = small_limit_app().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    // A small valid upload whose declared length says 10 MB: only the header
    // can refuse it, so the body was not read to find out.
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/v1/users/me/profile-image")
        .header(header::AUTHORIZATION, format!("Bearer {}", rider.token))
        .header(header::CONTENT_TYPE, multipart_type())
        .header(header::CONTENT_LENGTH, "10000000")
        .body(Body::from(multipart(&[file_part("picture.png", "image/png", png(2))])))
        .unwrap();
    app.send(request).await.refused_on(413, "file_too_large", "file");
    assert_eq!(app.state.storage.user(rider.id).await.unwrap().profile_image, None);
}

// ---- licences ----------------------------------------------------------------------------

#[tokio::test]
async fn a_driver_uploads_their_licence_which_only_they_their_fleet_and_admins_read() {
    let app = TestApp::demo().await;
    app.insert_user(&other_fleet_admin()).await;
    // Driver 4 belongs to the demo fleet.
    let driver = app.sign_in("driver4@demo.wayfare").await;
    let image = png(5);
    let reply = upload_image(&app, "/api/v1/users/me/license-image", Some(&driver), image.clone()).await;
    let url = file_url(reply.expect(200), "licenseImage");
    assert_eq!(app.state.storage.user(driver.id).await.unwrap().licenseImage.as_deref(), Some(url.as_str()));

    let fleet = app.sign_in(wayfare_http::demo::FLEET_EMAIL).await;
    let admin = app.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    for (who, session) in [("the driver", &driver), ("their fleet admin", &fleet), ("an admin", &admin)] {
        let (status, content_type, bytes) = download(&app, &url, Some(session)).await;
        assert_eq!((status, content_type.as_deref()), (200, Some("image/png")), "{who}");
        assert_eq!(bytes, image, "{who}");
    }
    let other_driver = app.sign_in("driver2@demo.wayfare").await;
    let other_fleet = app.sign_in(&other_fleet_admin().email).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    assert_eq!(download(&app, &url, None).await.0, 401);
    assert_eq!(download(&app, &url, Some(&rider)).await.0, 403, "riders never read licences");
    assert_eq!(download(&app, &url, Some(&other_driver)).await.0, 404);
    assert_eq!(download(&app, &url, Some(&other_fleet)).await.0, 404);
}

#[tokio::test]
async fn admins_and_the_fleet_admin_upload_a_drivers_licence_others_cannot() {
    let app = TestApp::demo().await;
    app.insert_user(&other_fleet_admin()).await;
    let driver = driver(4);
    let path = format!("/api/v1/users/{}/license-image", driver.id);
    let fleet = app.sign_in(wayfare_http::demo::FLEET_EMAIL).await;
    let reply = upload_image(&app, &path, Some(&fleet), png(2)).await;
    let url = file_url(reply.expect(200), "licenseImage");
    assert_eq!(app.state.storage.user(driver.id).await.unwrap().licenseImage.as_deref(), Some(url.as_str()));
    let admin = app.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    upload_image(&app, &path, Some(&admin), png(2)).await.expect(200);
    let other_fleet = app.sign_in(&other_fleet_admin().email).await;
    upload_image(&app, &path, Some(&other_fleet), png(2)).await.refused(404, "not_found");
    let rider = app.sign_in("rider1@demo.wayfare").await;
    upload_image(&app, &path, Some(&rider), png(2)).await.refused(403, "not_allowed");
    // Only drivers have a licence.
    let rider_path = format!("/api/v1/users/{}/license-image", rider.id);
    upload_image(&app, &rider_path, Some(&admin), png(2)).await.refused(403, "not_allowed");
    upload_image(&app, "/api/v1/users/me/license-image", Some(&rider), png(2)).await.refused(403, "not_allowed");
    // A licence upload is a user update: demo mode does not refuse it (spec §5).
    let demo = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = demo.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    upload_image(&demo, &path, Some(&admin), png(2)).await.expect(200);
}

// ---- car type images ----------------------------------------------------------------------

#[tokio::test]
async fn an_admin_sets_a_car_type_image_which_everyone_sees() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    let image = png(4);
    let reply = upload_image(&app, &format!("/api/v1/cartypes/{}/image", economy()), Some(&admin), image.clone()).await;
    let url = file_url(reply.expect(200), "image");
    assert_eq!(reply.body["name"], "Economy");
    // The catalogue is reloaded: the public list shows it at once.
    let car_types = app.get("/api/v1/cartypes", None).await;
    let economy =
        car_types.expect(200).as_array().unwrap().iter().find(|car| car["name"] == "Economy").unwrap().clone();
    assert_eq!(economy["image"], url.as_str());
    let (status, content_type, bytes) = download(&app, &url, None).await;
    assert_eq!((status, content_type.as_deref(), bytes), (200, Some("image/png"), image));
    // Bookings made afterwards carry it as carImage.
    let booking = app.book(&rider(1)).await;
    assert_eq!(booking.carImage, url);
}

#[tokio::test]
async fn car_type_images_are_for_admins_and_refused_in_demo_mode() {
    let app = TestApp::demo().await;
    let path = format!("/api/v1/cartypes/{}/image", economy());
    upload_image(&app, &path, None, png(2)).await.refused(401, "not_logged_in");
    for email in ["rider1@demo.wayfare", "driver4@demo.wayfare", wayfare_http::demo::FLEET_EMAIL] {
        let session = app.sign_in(email).await;
        upload_image(&app, &path, Some(&session), png(2)).await.refused(403, "not_allowed");
    }
    let admin = app.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    upload_image(&app, &format!("/api/v1/cartypes/{}/image", CarTypeId::from_u128(404)), Some(&admin), png(2))
        .await
        .refused(404, "not_found");
    upload(&app, &path, Some(&admin), &[]).await.refused_on(400, "choose_image_first", "image");

    let demo = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = demo.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    upload_image(&demo, &path, Some(&admin), png(2)).await.refused(403, "demo_mode");
    let economy = demo.state.storage.car_type(economy()).await.unwrap();
    assert_eq!(economy.image, "", "nothing changed");
}

// ---- parcel photos ------------------------------------------------------------------------------

#[tokio::test]
async fn the_assigned_driver_photographs_the_parcel_at_pickup_and_delivery() {
    let app = TestApp::with_settings(delivery_settings).await;
    let driver_user = driver(4);
    let booking = arrived_delivery(&app, &rider(1), &driver_user).await;
    let driver = app.sign_in("driver4@demo.wayfare").await;
    let path = format!("/api/v1/bookings/{booking}/images");
    let image = png(6);
    let reply = upload(
        &app,
        &path,
        Some(&driver),
        &[text_part("kind", "pickup_image"), file_part("parcel.png", "image/png", image.clone())],
    )
    .await;
    let url = file_url(reply.expect(200), "pickup_image");
    assert_eq!(status_of(&reply.body), "ARRIVED");
    assert_eq!(app.runtime().booking(booking).await.unwrap().pickup_image.as_deref(), Some(url.as_str()));
    // The delivery photo belongs to the drop, not the pickup.
    upload(
        &app,
        &path,
        Some(&driver),
        &[text_part("kind", "deliver_image"), file_part("parcel.png", "image/png", png(2))],
    )
    .await
    .refused(409, "status_not_allowed");
    upload(&app, &path, Some(&driver), &[text_part("kind", "selfie"), file_part("parcel.png", "image/png", png(2))])
        .await
        .refused_on(400, "invalid_input", "kind");
    upload(&app, &path, Some(&driver), &[text_part("kind", "pickup_image")]).await.refused_on(
        400,
        "choose_image_first",
        "image",
    );

    // The booking's parties read it; others do not.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in(wayfare_http::demo::ADMIN_EMAIL).await;
    let fleet = app.sign_in(wayfare_http::demo::FLEET_EMAIL).await;
    for (who, session) in [("driver", &driver), ("rider", &rider), ("admin", &admin), ("fleet admin", &fleet)] {
        let (status, content_type, bytes) = download(&app, &url, Some(session)).await;
        assert_eq!((status, content_type.as_deref(), bytes.len()), (200, Some("image/png"), image.len()), "{who}");
    }
    let other_rider = app.sign_in("rider2@demo.wayfare").await;
    assert_eq!(download(&app, &url, Some(&other_rider)).await.0, 404);
    assert_eq!(download(&app, &url, None).await.0, 401);

    // At the drop the delivery photo is taken.
    let otp = app.runtime().booking(booking).await.unwrap().otp.0;
    app.command(booking, By::Driver(driver_user.id), Command::Start { otp, location: None }).await;
    app.command(
        booking,
        By::Driver(driver_user.id),
        Command::Reach { location: None, drop_address: None, route: Vec::new() },
    )
    .await;
    let reply = upload(
        &app,
        &path,
        Some(&driver),
        &[text_part("kind", "deliver_image"), file_part("parcel.jpg", "image/jpeg", png(3))],
    )
    .await;
    let delivered = file_url(reply.expect(200), "deliver_image");
    assert_eq!(status_of(&reply.body), "REACHED");
    assert_eq!(reply.body["pickup_image"], url.as_str(), "the pickup photo stays");
    assert_ne!(delivered, url);
}

#[tokio::test]
async fn parcel_photos_need_the_setting_a_delivery_and_the_assigned_driver() {
    let app = TestApp::with_settings(|settings| {
        delivery_settings(settings);
        settings.AllowDeliveryPickupImageCapture = false;
    })
    .await;
    let booking = arrived_delivery(&app, &rider(1), &driver(4)).await;
    let path = format!("/api/v1/bookings/{booking}/images");
    let photo = || vec![text_part("kind", "pickup_image"), file_part("parcel.png", "image/png", png(2))];
    let driver = app.sign_in("driver4@demo.wayfare").await;
    upload(&app, &path, Some(&driver), &photo()).await.refused(403, "not_allowed");
    let other_driver = app.sign_in("driver1@demo.wayfare").await;
    upload(&app, &path, Some(&other_driver), &photo()).await.refused(404, "not_found");
    let rider = app.sign_in("rider1@demo.wayfare").await;
    upload(&app, &path, Some(&rider), &photo()).await.refused(403, "not_allowed");
    assert_eq!(app.runtime().booking(booking).await.unwrap().pickup_image, None);

    // A taxi booking has no parcel to photograph.
    let taxi = TestApp::with_settings(|settings| settings.AllowDeliveryPickupImageCapture = true).await;
    let booking = taxi.booking_at(&crate::support::rider(1), &crate::support::driver(4), Stage::Arrived).await;
    let driver = taxi.sign_in("driver4@demo.wayfare").await;
    upload(&taxi, &format!("/api/v1/bookings/{}/images", booking.id), Some(&driver), &photo())
        .await
        .refused(403, "not_allowed");
}

#[tokio::test]
async fn an_unknown_file_is_not_found() {
    let app = TestApp::demo().await;
    assert_eq!(download(&app, &format!("/api/v1/files/{}", uuid::Uuid::now_v7()), None).await.0, 404);
    assert_eq!(download(&app, "/api/v1/files/not-an-id", None).await.0, 404);
}

// ---- the S3-compatible store ----------------------------------------------------------------

#[tokio::test]
async fn uploads_go_to_the_configured_object_store_and_come_back_from_it() {
    use object_store::ObjectStore;
    use object_store::memory::InMemory;
    use std::sync::Arc;
    // The same server with an object store (object_store's in-memory one
    // standing in for an S3 bucket) in place of the local directory.
    let app = TestApp::demo().await;
    let bucket = Arc::new(InMemory::new());
    let state = wayfare_http::state::AppState::from_parts(
        app.state.config.clone(),
        app.state.runtime.clone(),
        wayfare_http::auth::delivery::Deliveries::from_config(&app.state.config.delivery).unwrap(),
        app.state.maps.clone(),
        wayfare_http::notify::Notifier::in_app_only(),
        Arc::new(wayfare_http::files::ObjectFileStore::new(bucket.clone(), "wayfare")),
    );
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let image = png(7);
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/v1/users/me/profile-image")
        .header(header::AUTHORIZATION, format!("Bearer {}", rider.token))
        .header(header::CONTENT_TYPE, multipart_type())
        .body(Body::from(multipart(&[file_part("me.png", "image/png", image.clone())])))
        .unwrap();
    let response = tower::ServiceExt::oneshot(wayfare_http::app(state.clone()), request).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value =
        serde_json::from_slice(&axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
    let url = file_url(&body, "profile_image");
    let file_id: uuid::Uuid = url.rsplit('/').next().unwrap().parse().unwrap();
    let record = app.state.storage.file(file_id).await.unwrap();
    assert!(record.key.starts_with(&format!("users/{}/profileImage/", rider.id)), "{}", record.key);
    let stored = bucket.get(&object_store::path::Path::from(format!("wayfare/{}", record.key))).await.unwrap();
    assert_eq!(stored.bytes().await.unwrap().to_vec(), image, "the bytes are in the bucket");
    assert!(!app.state.config.uploads_dir().join(&record.key).exists(), "and not on the local disk");
    let request = Request::builder().method(Method::GET).uri(&url).body(Body::empty()).unwrap();
    let response = tower::ServiceExt::oneshot(wayfare_http::app(state), request).await.unwrap();
    assert_eq!(response.headers().get(header::CONTENT_TYPE).unwrap(), "image/png");
    assert_eq!(axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec(), image);
}
