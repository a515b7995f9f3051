//! The panel's payment settings (issue #37): an admin sets a gateway up and
//! it takes payments; secrets are write-only and sealed at rest; what
//! wayfare.toml sets is read-only; every change is recorded.

use crate::admin_support::put;
use crate::gateways::stripe::{FakeStripe, SECRET_KEY, WEBHOOK_SECRET};
use crate::gateways::{Fake, World, config};
use crate::support::*;
use serde_json::{Value, json};
use wayfare_storage::PaymentStatus;

const KEY: &str = "8f1c2d3e4a5b6c7d8e9f00112233445566778899aabbccddeeff001122334455";
const ADMIN: &str = "admin@demo.wayfare";

fn gateway<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|gateway| gateway["name"] == name).unwrap()
}

fn field<'a>(gateway: &'a Value, name: &str) -> &'a Value {
    gateway["fields"].as_array().unwrap().iter().find(|field| field["name"] == name).unwrap()
}

async fn offered(app: &TestApp, name: &str) -> bool {
    let providers = app.get("/api/v1/payments/providers", None).await;
    providers.expect(200).as_array().unwrap().iter().any(|provider| provider["name"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sets_a_gateway_up_and_it_takes_payments_with_secrets_never_shown() {
    let fake = FakeStripe::start().await;
    let mut payments = config("stripe", &[("api_base", fake.base.clone())]);
    payments.secrets_key = Some(KEY.into());
    let world = World::with(payments, "USD").await;
    let app = &world.app;
    let admin = app.sign_in(ADMIN).await;

    let list = app.get("/api/v1/payment-gateways", Some(&admin)).await;
    let stripe = gateway(list.expect(200), "stripe");
    assert_eq!((stripe["active"].as_bool(), stripe["usable"].as_bool()), (Some(false), Some(false)));
    assert_eq!(stripe["missing"], json!(["stripe_private_key", "webhook_secret"]));
    assert_eq!(stripe["activeInFile"], false, "the file only points the gateway at the fake");
    assert_eq!(field(stripe, "stripe_private_key")["kind"], "secret");
    assert_eq!(stripe["webhookUrl"], "https://ride.example.com/api/v1/payments/stripe/webhook");
    assert_eq!(gateway(list.expect(200), "test")["activeInFile"], true);
    assert!(!offered(app, "stripe").await);

    let edit = json!({ "active": true, "fields": {
        "stripe_private_key": SECRET_KEY, "webhook_secret": WEBHOOK_SECRET, "stripe_public_key": "pk_test_fake"
    } });
    let saved = put(app, "/api/v1/payment-gateways/stripe", Some(&admin), edit).await;
    let body = saved.body.to_string();
    assert!(!body.contains(SECRET_KEY) && !body.contains(WEBHOOK_SECRET), "secrets are never sent back: {body}");
    let stripe = saved.expect(200);
    assert_eq!((stripe["usable"].as_bool(), stripe["missing"].clone()), (Some(true), json!([])));
    assert_eq!(field(stripe, "stripe_private_key")["set"], true);
    assert!(field(stripe, "stripe_private_key").get("value").is_none());
    assert_eq!(field(stripe, "stripe_public_key")["value"], "pk_test_fake");
    let listed = app.get("/api/v1/payment-gateways", Some(&admin)).await.body.to_string();
    assert!(!listed.contains(SECRET_KEY) && !listed.contains(WEBHOOK_SECRET));

    // Sealed at rest.
    let row = app.state.storage.payment_gateway("stripe").await.unwrap().unwrap();
    assert!(row.fields["stripe_private_key"].starts_with("v1:"));
    assert!(!row.fields.values().any(|value| value.contains(SECRET_KEY) || value.contains(WEBHOOK_SECRET)));
    assert_eq!(row.updated_by, Some(admin.id));

    // On at once, and it takes a payment through to PAID.
    assert!(offered(app, "stripe").await);
    let paying = world.check_out_booking(&fake).await;
    let notification = fake.pay(&paying).await;
    assert_eq!(world.notify(&fake, &notification).await.expect(200)["settled"], true);
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Paid);

    // Switched off, it is no longer offered nor served.
    put(app, "/api/v1/payment-gateways/stripe", Some(&admin), json!({ "active": false })).await.expect(200);
    assert!(!offered(app, "stripe").await);
    world.notify(&fake, &notification).await.refused(404, "no_provider_found");

    // Who changed what, when: names, never values.
    let log = app.get("/api/v1/payment-gateways/changes?gateway=stripe", Some(&admin)).await;
    let items = log.expect(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["changed"], json!(["active"]));
    assert_eq!(items[1]["changed"], json!(["active", "stripe_private_key", "stripe_public_key", "webhook_secret"]));
    assert_eq!(items[1]["changedBy"], json!(admin.id));
    assert!(items[1]["changedByName"].as_str().is_some_and(|name| !name.is_empty()));
    assert!(!log.body.to_string().contains(SECRET_KEY));
    // Saving the same again records nothing.
    put(app, "/api/v1/payment-gateways/stripe", Some(&admin), json!({ "active": false })).await.expect(200);
    let log = app.get("/api/v1/payment-gateways/changes", Some(&admin)).await;
    assert_eq!(log.expect(200)["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn secrets_need_a_key_the_file_wins_and_only_admins_may_look() {
    let payments = config("stripe", &[("stripe_public_key", "pk_from_file".to_string())]);
    let world = World::with(payments, "USD").await;
    let app = &world.app;
    let admin = app.sign_in(ADMIN).await;
    let path = "/api/v1/payment-gateways/stripe";

    let stripe = app.get("/api/v1/payment-gateways", Some(&admin)).await;
    let stripe = gateway(stripe.expect(200), "stripe");
    assert_eq!((stripe["activeInFile"].as_bool(), stripe["active"].as_bool()), (Some(true), Some(true)));
    assert_eq!(field(stripe, "stripe_public_key")["inFile"], true);
    assert_eq!(field(stripe, "stripe_public_key")["value"], "pk_from_file");

    let secret = json!({ "fields": { "stripe_private_key": "sk_live_x" } });
    put(app, path, Some(&admin), secret).await.refused(409, "secrets_key_missing");
    let from_file = json!({ "fields": { "stripe_public_key": "pk_other" } });
    put(app, path, Some(&admin), from_file).await.refused(409, "set_in_config_file");
    put(app, path, Some(&admin), json!({ "active": false })).await.refused(409, "set_in_config_file");
    let unknown = json!({ "fields": { "KEY_ID": "x" } });
    put(app, path, Some(&admin), unknown).await.refused_on(400, "invalid_input", "fields");
    let two_lines = json!({ "fields": { "webhook_secret": "a\nb" } });
    put(app, path, Some(&admin), two_lines).await.refused_on(400, "invalid_input", "fields");
    put(app, "/api/v1/payment-gateways/test", Some(&admin), json!({ "active": true }))
        .await
        .refused(409, "set_in_config_file");
    put(app, "/api/v1/payment-gateways/nopay", Some(&admin), json!({})).await.refused(404, "not_found");
    assert_eq!(app.state.storage.payment_gateway("stripe").await.unwrap(), None, "nothing was saved");

    let rider = &world.rider;
    app.get("/api/v1/payment-gateways", Some(rider)).await.refused(403, "not_allowed");
    app.get("/api/v1/payment-gateways/changes", Some(rider)).await.refused(403, "not_allowed");
    put(app, path, Some(rider), json!({ "active": false })).await.refused(403, "not_allowed");
    app.get("/api/v1/payment-gateways", None).await.refused(401, "not_logged_in");
}

#[tokio::test]
async fn demo_mode_shows_the_settings_but_refuses_changes() {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = app.sign_in(ADMIN).await;
    app.get("/api/v1/payment-gateways", Some(&admin)).await.expect(200);
    put(&app, "/api/v1/payment-gateways/stripe", Some(&admin), json!({ "active": true }))
        .await
        .refused(403, "demo_mode");
}
