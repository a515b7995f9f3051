//! Notifications (spec §3 "Notification", §4 "customer notified", §5, §7
//! `sendNotification`, `editNotifications`, `fetchNotifications`): a
//! broadcast reaches the matching users in the app and on their devices,
//! is stored, listed newest first and deleted; nobody matching is
//! `no_user_match`; booking notices reach their receiver in the receiver's
//! language, on the `bookings` or `bookings-repeat` channel.

use crate::notify_lang_support::*;
use crate::support::*;
use axum::http::HeaderMap;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use wayfare_engine::{Role, UserId, UserLang};
use wayfare_http::config::PushKind;
use wayfare_http::notify::InAppNotice;

/// Everyone the in-app channel reached with the next notices, until `until` says stop.
async fn collect_in_app(
    feed: &mut broadcast::Receiver<Arc<InAppNotice>>,
    mut until: impl FnMut(&InAppNotice) -> bool,
) -> Vec<Arc<InAppNotice>> {
    let mut seen = Vec::new();
    let waited = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let notice = feed.recv().await.expect("the notifier is open");
            let done = until(&notice);
            seen.push(notice);
            if done {
                return;
            }
        }
    })
    .await;
    waited.unwrap_or_else(|_| panic!("the in-app notices never came; saw {seen:?}"));
    seen
}

fn demo_ids(role: Role) -> BTreeSet<UserId> {
    wayfare_http::demo::users().into_iter().filter(|user| user.usertype == role).map(|user| user.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_reaches_the_users_of_its_type_in_the_app() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let mut feed = app.state.notifier.subscribe();
    let sent = app.post("/api/v1/notifications", Some(&admin), json!({ "usertype": "driver", "devicetype": "All", "title": "Road closure", "body": "Pratt St is closed tonight." })).await;
    let sent = sent.expect(201);
    assert_eq!(
        (sent["title"].as_str(), sent["usertype"].as_str(), sent["devicetype"].as_str()),
        (Some("Road closure"), Some("driver"), Some("All"))
    );
    assert_eq!(sent["recipients"], 20, "the twenty demo drivers");
    assert_eq!(sent["createdAt"], T0);
    let notices = collect_in_app(&mut feed, |_| true).await;
    let reached: BTreeSet<UserId> = notices.iter().flat_map(|notice| notice.to.clone()).collect();
    assert_eq!(reached, demo_ids(Role::Driver), "every driver and nobody else");
    let payload = &notices[0].payload;
    assert_eq!(
        (payload["title"].as_str(), payload["body"].as_str()),
        (Some("Road closure"), Some("Pratt St is closed tonight."))
    );
    assert_eq!(payload["id"], sent["id"]);

    let riders = app
        .post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "rider", "title": "Hello", "body": "Welcome aboard" }),
        )
        .await;
    assert_eq!(riders.expect(201)["recipients"], wayfare_http::demo::RIDERS);
    let reached: BTreeSet<UserId> =
        collect_in_app(&mut feed, |_| true).await.iter().flat_map(|notice| notice.to.clone()).collect();
    assert_eq!(reached, demo_ids(Role::Rider));
    let everyone = app
        .post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "All", "devicetype": "All", "title": "Hi", "body": "All of you" }),
        )
        .await;
    assert_eq!(everyone.expect(201)["recipients"], wayfare_http::demo::users().len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_nobody_matches_is_no_user_match_and_is_not_stored() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    // No demo user is on iOS.
    let nobody = app
        .post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "driver", "devicetype": "IOS", "title": "t", "body": "b" }),
        )
        .await;
    nobody.refused(404, "no_user_match");
    assert_eq!(app.get("/api/v1/notifications", Some(&admin)).await.expect(200)["items"], json!([]));

    // A driver who registers an iPhone is matched by platform.
    let driver = app.sign_in("driver3@demo.wayfare").await;
    put(
        &app,
        "/api/v1/push/token",
        Some(&driver),
        json!({ "pushToken": "ExponentPushToken[iphone-3]", "userPlatform": "IOS" }),
    )
    .await
    .expect(204);
    let mut feed = app.state.notifier.subscribe();
    let one = app
        .post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "driver", "devicetype": "IOS", "title": "t", "body": "b" }),
        )
        .await;
    assert_eq!(one.expect(201)["recipients"], 1);
    assert_eq!(collect_in_app(&mut feed, |_| true).await[0].to, vec![driver.id]);
    let android_riders = app
        .post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "rider", "devicetype": "ANDROID", "title": "t", "body": "b" }),
        )
        .await;
    android_riders.refused(404, "no_user_match");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_listed_newest_first_in_pages_and_deleted() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    for number in 1..=3 {
        app.post(
            "/api/v1/notifications",
            Some(&admin),
            json!({ "usertype": "rider", "title": format!("Note {number}"), "body": "b" }),
        )
        .await
        .expect(201);
        app.advance(MINUTE);
    }
    let titles = |reply: &Reply| {
        reply.expect(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["title"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let all = app.get("/api/v1/notifications", Some(&admin)).await;
    assert_eq!(titles(&all), ["Note 3", "Note 2", "Note 1"]);
    assert_eq!(all.body["next"], Value::Null);
    let first = app.get("/api/v1/notifications?limit=2", Some(&admin)).await;
    assert_eq!(titles(&first), ["Note 3", "Note 2"]);
    let cursor = first.body["next"].as_str().unwrap().to_string();
    let rest = app.get(&format!("/api/v1/notifications?limit=2&after={}", query_encode(&cursor)), Some(&admin)).await;
    assert_eq!(titles(&rest), ["Note 1"]);
    app.get("/api/v1/notifications?after=garbage", Some(&admin)).await.refused(400, "invalid_input");

    let newest = all.body["items"][0]["id"].as_str().unwrap().to_string();
    delete(&app, &format!("/api/v1/notifications/{newest}"), Some(&admin)).await.expect(204);
    assert_eq!(titles(&app.get("/api/v1/notifications", Some(&admin)).await), ["Note 2", "Note 1"]);
    delete(&app, &format!("/api/v1/notifications/{newest}"), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_needs_a_title_a_body_and_known_types() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    app.post("/api/v1/notifications", Some(&admin), json!({ "body": "b" })).await.refused_on(
        400,
        "invalid_input",
        "title",
    );
    app.post("/api/v1/notifications", Some(&admin), json!({ "title": "t", "body": "   " })).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post("/api/v1/notifications", Some(&admin), json!({ "title": "t", "body": "b", "usertype": "admin" }))
        .await
        .refused_on(400, "invalid_input", "body");
    app.post("/api/v1/notifications", Some(&admin), json!({ "title": "t", "body": "b", "devicetype": "WINDOWS" }))
        .await
        .refused_on(400, "invalid_input", "body");
}

/// A fake Expo push API that records each request's messages.
async fn fake_expo() -> (String, tokio::sync::mpsc::UnboundedReceiver<Vec<Value>>) {
    let (sender, received) = tokio::sync::mpsc::unbounded_channel();
    let api = axum::Router::new().route(
        "/push/send",
        axum::routing::post(move |_headers: HeaderMap, axum::Json(messages): axum::Json<Vec<Value>>| {
            let sender = sender.clone();
            async move {
                let tickets: Vec<Value> = messages.iter().map(|_| json!({ "status": "ok", "id": "t" })).collect();
                sender.send(messages).unwrap();
                axum::Json(json!({ "data": tickets }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, api).await.unwrap() });
    (format!("http://{address}/push/send"), received)
}

async fn app_with_expo(horn_repeats: bool) -> (TestApp, tokio::sync::mpsc::UnboundedReceiver<Vec<Value>>) {
    let (url, received) = fake_expo().await;
    let mut setup = Setup::default();
    setup.config.push.senders = vec![PushKind::Expo];
    setup.config.push.expo_url = url;
    setup.settings.CarHornRepeat = horn_repeats;
    (TestApp::start(setup).await, received)
}

async fn next_push(received: &mut tokio::sync::mpsc::UnboundedReceiver<Vec<Value>>) -> Vec<Value> {
    tokio::time::timeout(Duration::from_secs(20), received.recv())
        .await
        .expect("a push came")
        .expect("the fake is open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_goes_to_the_push_tokens_of_the_users_it_reaches() {
    let (app, mut pushed) = app_with_expo(false).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    for number in [1, 2] {
        let driver = app.sign_in(&format!("driver{number}@demo.wayfare")).await;
        put(
            &app,
            "/api/v1/push/token",
            Some(&driver),
            json!({ "pushToken": format!("ExponentPushToken[driver-{number}]"), "userPlatform": "ANDROID" }),
        )
        .await
        .expect(204);
    }
    let rider = app.sign_in("rider1@demo.wayfare").await;
    put(
        &app,
        "/api/v1/push/token",
        Some(&rider),
        json!({ "pushToken": "ExponentPushToken[rider-1]", "userPlatform": "ANDROID" }),
    )
    .await
    .expect(204);
    let sent = app.post("/api/v1/notifications", Some(&admin), json!({ "usertype": "driver", "devicetype": "ANDROID", "title": "Shift bonus", "body": "Double fares tonight" })).await;
    assert_eq!(sent.expect(201)["recipients"], 2);
    let messages = next_push(&mut pushed).await;
    let tokens: BTreeSet<&str> = messages.iter().map(|message| message["to"].as_str().unwrap()).collect();
    assert_eq!(
        tokens,
        BTreeSet::from(["ExponentPushToken[driver-1]", "ExponentPushToken[driver-2]"]),
        "drivers only, the rider's token is not used"
    );
    assert_eq!(
        (messages[0]["title"].as_str(), messages[0]["body"].as_str()),
        (Some("Shift bonus"), Some("Double fares tonight"))
    );

    // An empty token stops push to that user.
    let driver = app.sign_in("driver1@demo.wayfare").await;
    put(&app, "/api/v1/push/token", Some(&driver), json!({ "pushToken": "" })).await.expect(204);
    app.post(
        "/api/v1/notifications",
        Some(&admin),
        json!({ "usertype": "driver", "devicetype": "ANDROID", "title": "t", "body": "b" }),
    )
    .await
    .expect(201);
    let tokens: Vec<Value> = next_push(&mut pushed).await.iter().map(|message| message["to"].clone()).collect();
    assert_eq!(tokens, [json!("ExponentPushToken[driver-2]")]);
}

/// Gives a demo user a language and a push token, in storage.
async fn set_language_and_token(app: &TestApp, email: &str, locale: &str, token: &str) {
    let storage = &app.state.storage;
    let mut user = storage.user_by_email(email).await.unwrap().unwrap();
    user.lang = Some(UserLang { langLocale: locale.into(), dateLocale: locale.into() });
    user.pushToken = Some(token.into());
    storage.update_user(&user, app.now()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_notices_reach_the_receiver_in_their_language_in_the_app_and_by_push() {
    let (app, mut pushed) = app_with_expo(true).await;
    set_language_and_token(&app, "rider1@demo.wayfare", "fr", "ExponentPushToken[rider-1]").await;
    let mut feed = app.state.notifier.subscribe();
    let rider = demo_user("rider1@demo.wayfare");
    let driver = driver(4);
    app.booking_at(&rider, &driver, Stage::Accepted).await;
    let (mut rider_told, mut driver_told) = (false, false);
    let notices = collect_in_app(&mut feed, |notice| {
        rider_told |= notice.to == vec![rider.id] && notice.payload["key"] == "booking_accepted";
        driver_told |= notice.to == vec![driver.id] && notice.payload["key"] == "accept_booking_request";
        rider_told && driver_told
    })
    .await;
    let accepted = notices
        .iter()
        .find(|notice| notice.to == vec![rider.id] && notice.payload["key"] == "booking_accepted")
        .unwrap();
    let french = language(&app, "fr").await["keyValuePairs"].clone();
    assert_eq!(accepted.payload["body"], french["booking_accepted"], "in the rider's language (fr)");
    assert_eq!(accepted.payload["title"], french["notification_title"]);
    assert_eq!(accepted.payload["channel"], "bookings-repeat", "CarHornRepeat is on");
    assert_eq!(accepted.payload["screen"], "BookedCab");
    // The driver has no language of their own: the default's (English).
    let offered = notices
        .iter()
        .find(|notice| notice.to == vec![driver.id] && notice.payload["key"] == "accept_booking_request")
        .unwrap();
    assert_eq!(offered.payload["body"], language(&app, "en").await["keyValuePairs"]["accept_booking_request"]);
    let push = loop {
        let messages = next_push(&mut pushed).await;
        if let Some(message) = messages.into_iter().find(|message| message["body"] == french["booking_accepted"]) {
            break message;
        }
    };
    assert_eq!(push["to"], "ExponentPushToken[rider-1]");
    assert_eq!(push["channelId"], "bookings-repeat");
    assert_eq!(push["data"]["screen"], "BookedCab");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_push_the_app_is_told_and_notices_stay_in_app() {
    let app = TestApp::demo().await;
    let config = app.get("/api/v1/push/config", None).await;
    assert_eq!(config.expect(200), &json!({ "senders": [], "vapidPublicKey": null }));
    let mut feed = app.state.notifier.subscribe();
    let rider = demo_user("rider2@demo.wayfare");
    app.booking_at(&rider, &driver(4), Stage::Arrived).await;
    let notices = collect_in_app(&mut feed, |notice| notice.payload["key"] == "driver_arrived").await;
    let arrived = notices.last().unwrap();
    assert_eq!(arrived.to, vec![rider.id]);
    assert_eq!(arrived.payload["channel"], "bookings");
    assert_eq!(arrived.payload["body"], language(&app, "en").await["keyValuePairs"]["driver_arrived"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_web_push_the_vapid_key_is_made_once_and_served() {
    let mut setup = Setup::default();
    setup.config.push.senders = vec![PushKind::Webpush];
    let app = TestApp::start(setup).await;
    let config = app.get("/api/v1/push/config", None).await;
    let key = config.expect(200)["vapidPublicKey"].as_str().expect("a VAPID key").to_string();
    assert_eq!(config.body["senders"], json!(["webpush"]));
    assert_eq!(key.len(), 87, "65 bytes, base64url");
    assert!(app.state.config.vapid_key_path().exists(), "kept in the data dir");
    let again = wayfare_http::notify::Notifier::from_config(&app.state.config).unwrap();
    assert_eq!(again.vapid_public_key(), Some(key.as_str()), "a restart keeps the key");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_subscribed_with_web_push_gets_the_broadcast_encrypted_and_signed() {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    // A push service: keeps what it is sent.
    let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
    let service = axum::Router::new().route(
        "/wpush/{id}",
        axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
            let sender = sender.clone();
            async move {
                sender.send((headers, body.len())).unwrap();
                axum::http::StatusCode::CREATED
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, service).await.unwrap() });

    let mut setup = Setup::default();
    setup.config.push.senders = vec![PushKind::Expo, PushKind::Webpush];
    setup.config.push.web_push_allow_http = true;
    let app = TestApp::start(setup).await;
    let vapid = app.get("/api/v1/push/config", None).await.expect(200)["vapidPublicKey"].as_str().unwrap().to_string();
    // The browser's subscription, made with the server's key.
    let rng = ring::rand::SystemRandom::new();
    let browser_key = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &rng).unwrap();
    let subscription = json!({
        "endpoint": format!("http://{address}/wpush/rider-1"),
        "keys": { "p256dh": URL_SAFE_NO_PAD.encode(browser_key.compute_public_key().unwrap().as_ref()), "auth": URL_SAFE_NO_PAD.encode([7u8; 16]) }
    });
    let rider = app.sign_in("rider1@demo.wayfare").await;
    put(
        &app,
        "/api/v1/push/token",
        Some(&rider),
        json!({ "pushToken": subscription.to_string(), "userPlatform": "WEB" }),
    )
    .await
    .expect(204);
    let admin = app.sign_in("admin@demo.wayfare").await;
    app.post(
        "/api/v1/notifications",
        Some(&admin),
        json!({ "usertype": "rider", "title": "Hello", "body": "From the web" }),
    )
    .await
    .expect(201);
    let (headers, length) =
        tokio::time::timeout(Duration::from_secs(20), received.recv()).await.expect("a web push came").unwrap();
    assert_eq!(headers["content-encoding"], "aes128gcm");
    let authorization = headers["authorization"].to_str().unwrap();
    assert!(
        authorization.starts_with("vapid t=") && authorization.ends_with(&format!(", k={vapid}")),
        "signed with the served key: {authorization}"
    );
    assert!(length > 16 + 4 + 1 + 65 + 16, "salt, header, key and an encrypted record");
}
