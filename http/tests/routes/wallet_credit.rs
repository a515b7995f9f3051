//! An admin's credit to a user's wallet (spec §7 addToWallet, §5 "Add to
//! wallet needs a selected user and an amount above 0, else
//! 'no_details_error'", §3 txRef `AdminCredit`; DESIGN.md invariant 4: a
//! retried request moves money once).

use crate::money_support::*;
use crate::support::*;
use serde_json::json;
use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_actors::Event;
use wayfare_engine::UserId;
use wayfare_engine::booking::NoticeKey;

fn credit_path(user: UserId) -> String {
    format!("/api/v1/users/{user}/wallet/credit")
}

/// The wallet events published so far, as (user, balance) and notified users.
fn wallet_events(events: &mut broadcast::Receiver<Arc<Event>>) -> (Vec<(UserId, f64)>, Vec<UserId>) {
    let mut balances = Vec::new();
    let mut notified = Vec::new();
    while let Ok(event) = events.try_recv() {
        match event.as_ref() {
            Event::WalletChanged { user, balance } => balances.push((*user, balance.to_string().parse().unwrap())),
            Event::Notification { to, key: NoticeKey::WalletUpdated, booking: None } => notified.push(*to),
            _ => {}
        }
    }
    (balances, notified)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_credit_adds_an_admin_credit_entry_and_tells_the_user() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let mut events = app.events();

    let reply = app.post(&credit_path(rider.id), Some(&admin), json!({ "amount": 25.5 })).await;
    assert_eq!(reply.expect(201), &json!({ "user": rider.id, "walletBalance": 25.5, "applied": true }));
    // Amounts are parsed as decimals and rounded to settings.decimal (2).
    let reply = app.post(&credit_path(rider.id), Some(&admin), json!({ "amount": "10.005" })).await;
    assert_eq!(reply.expect(201)["walletBalance"], 35.51);

    let wallet = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&rider)).await;
    let wallet = wallet.expect(200);
    assert_eq!(wallet["walletBalance"], 35.51);
    let history = wallet["walletHistory"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    for (entry, amount) in history.iter().zip([10.01, 25.5]) {
        assert_eq!((entry["type"].as_str(), entry["txRef"].as_str()), (Some("Credit"), Some("AdminCredit")));
        assert_eq!(entry["amount"], amount);
        assert_eq!(entry["date"], T0);
    }

    // The `wallet` socket event and a `wallet_updated` notification, once per credit.
    let (balances, notified) = wallet_events(&mut events);
    assert_eq!(balances, vec![(rider.id, 25.5), (rider.id, 35.51)]);
    assert_eq!(notified, vec![rider.id, rider.id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credit_retried_with_the_same_idempotency_key_credits_once() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let driver = driver(4);
    let mut events = app.events();

    let first =
        post_keyed(&app, &credit_path(driver.id), Some(&admin), json!({ "amount": 50 }), "topup-2027-01-15-a").await;
    assert_eq!(first.expect(201), &json!({ "user": driver.id, "walletBalance": 50.0, "applied": true }));
    // The retry: same key, same user. Nothing moves, and it says so.
    let retry =
        post_keyed(&app, &credit_path(driver.id), Some(&admin), json!({ "amount": 50 }), "topup-2027-01-15-a").await;
    assert_eq!(retry.expect(200), &json!({ "user": driver.id, "walletBalance": 50.0, "applied": false }));
    assert_eq!(app.state.storage.wallet_balance(driver.id).await.unwrap(), rust_decimal::Decimal::new(50, 0));
    let history = app.state.storage.wallet_history(driver.id, &wayfare_storage::PageRequest::first(10)).await.unwrap();
    assert_eq!(history.items.len(), 1);
    let (balances, notified) = wallet_events(&mut events);
    assert_eq!((balances.len(), notified.len()), (1, 1), "a replay tells nobody again");

    // Another key is another credit; so is every request without a key.
    post_keyed(&app, &credit_path(driver.id), Some(&admin), json!({ "amount": 5 }), "topup-2027-01-15-b")
        .await
        .expect(201);
    app.post(&credit_path(driver.id), Some(&admin), json!({ "amount": 1 })).await.expect(201);
    let last = app.post(&credit_path(driver.id), Some(&admin), json!({ "amount": 1 })).await;
    assert_eq!(last.expect(201)["walletBalance"], 57.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credit_needs_an_amount_above_zero_within_reason() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = rider(2);
    // spec §5: an amount above 0, else no_details_error
    for amount in
        [json!(0), json!(-5), json!("abc"), json!(""), json!(0.001), json!(null), json!([10]), json!({ "value": 1 })]
    {
        app.post(&credit_path(rider.id), Some(&admin), json!({ "amount": amount })).await.refused_on(
            400,
            "no_details_error",
            "amount",
        );
    }
    app.post(&credit_path(rider.id), Some(&admin), json!({})).await.refused_on(400, "no_details_error", "amount");
    // A few extra digits are a typo, not a top-up.
    app.post(&credit_path(rider.id), Some(&admin), json!({ "amount": 1_000_000.01 })).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    app.post(&credit_path(rider.id), Some(&admin), json!({ "amount": 1_000_000 })).await.expect(201);
    // A body that is not JSON, a bad key, a user that does not exist.
    app.post_raw(&credit_path(rider.id), Some(&admin), "application/json", "{amount").await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    post_keyed(&app, &credit_path(rider.id), Some(&admin), json!({ "amount": 1 }), "with space").await.refused_on(
        400,
        "invalid_input",
        "Idempotency-Key",
    );
    app.post(&credit_path(UserId(uuid::Uuid::now_v7())), Some(&admin), json!({ "amount": 1 }))
        .await
        .refused(404, "not_found");
    app.post("/api/v1/users/rider2/wallet/credit", Some(&admin), json!({ "amount": 1 }))
        .await
        .refused(404, "not_found");
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), rust_decimal::Decimal::new(1_000_000, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_credit_and_not_in_demo_mode() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver4@demo.wayfare").await;
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    // Nobody credits themself or their drivers but an admin.
    for (who, target) in [(&rider, rider.id), (&driver, driver.id), (&fleet, driver.id)] {
        app.post(&credit_path(target), Some(who), json!({ "amount": 10 })).await.refused(403, "not_allowed");
    }
    app.post(&credit_path(rider.id), None, json!({ "amount": 10 })).await.refused(401, "not_logged_in");

    let demo = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = demo.sign_in("admin@demo.wayfare").await;
    demo.post(&credit_path(rider.id), Some(&admin), json!({ "amount": 10 })).await.refused(403, "demo_mode");
    assert_eq!(demo.state.storage.wallet_balance(rider.id).await.unwrap(), rust_decimal::Decimal::ZERO);
}
