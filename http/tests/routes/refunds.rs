//! Money both ways (issue #37): an admin refunds a booking's money to the
//! rider's wallet or back through the gateway that took it, and debits or
//! adjusts a wallet with a reason. Each move is one ledger entry under its
//! idempotency key, a repeat answers 200 `applied: false`, and after each
//! the ledger sums to the balance (the audit finds nothing).

use crate::money_support::post_keyed;
use crate::support::*;
use axum::http::header;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::sync::Arc;
use wayfare_actors::Event;
use wayfare_engine::booking::{By, Command, NoticeKey};
use wayfare_engine::{Booking, BookingStatus, UserId};
use wayfare_http::config::PaymentsConfig;
use wayfare_storage::PageRequest;

async fn test_gateway_app() -> TestApp {
    let mut setup = Setup::default();
    setup.config.payments = PaymentsConfig { test_gateway: true, ..PaymentsConfig::default() };
    TestApp::start(setup).await
}

fn refund_path(booking: &Booking) -> String {
    format!("/api/v1/bookings/{}/refund", booking.id)
}

fn refunds_path(booking: &Booking) -> String {
    format!("/api/v1/bookings/{}/refunds", booking.id)
}

fn wallet_path(user: UserId, action: &str) -> String {
    format!("/api/v1/users/{user}/wallet/{action}")
}

fn money(value: &Value) -> Decimal {
    value.to_string().parse().unwrap_or_else(|_| panic!("a number: {value}"))
}

/// A trip of rider 1 paid by card through the test gateway (its page's Pay).
async fn paid_by_card(app: &TestApp) -> Arc<Booking> {
    let driver = driver(4);
    let reached = app.booking_at(&rider(1), &driver, Stage::Reached).await;
    let pending = app.command(reached.id, By::Driver(driver.id), Command::AwaitPayment).await;
    let payer = app.sign_in("rider1@demo.wayfare").await;
    let fields = [
        ("order_id", pending.id.to_string()),
        ("amount", pending.payableAmount.to_string()),
        ("currency", "USD".to_string()),
        ("product_name", "Wayfare".to_string()),
        ("first_name", "Rita".to_string()),
        ("last_name", "Rider".to_string()),
        ("quantity", "1".to_string()),
        ("cust_id", payer.id.to_string()),
        ("mobile_no", "+14105550101".to_string()),
        ("email", "rider1@demo.wayfare".to_string()),
    ];
    let form = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect::<Vec<_>>();
    let checkout = app
        .post_raw("/api/v1/payments/test/checkout", Some(&payer), "application/x-www-form-urlencoded", form.join("&"))
        .await;
    assert_eq!(checkout.status.as_u16(), 303, "{}", checkout.body);
    let page = checkout.header(header::LOCATION).expect("the test gateway's page").to_string();
    let paid = app.post_raw(&page, Some(&payer), "application/x-www-form-urlencoded", "action=pay".to_string()).await;
    assert_eq!(paid.status.as_u16(), 303, "{}", paid.body);
    let booking = app.runtime().booking(pending.id).await.unwrap();
    assert_eq!((booking.status, booking.gateway.as_deref()), (BookingStatus::Paid, Some("test")));
    booking
}

/// The ledger sums to every balance: the audit finds no mismatch.
async fn assert_ledger_balances(app: &TestApp) {
    let audit = app.state.storage.audit().await.unwrap();
    assert!(audit.wallet_mismatches.is_empty(), "{:?}", audit.wallet_mismatches);
}

/// The `wallet` socket events and `wallet_updated` notifications so far.
fn wallet_events(events: &mut tokio::sync::broadcast::Receiver<Arc<Event>>) -> (Vec<(UserId, Decimal)>, Vec<UserId>) {
    let mut balances = Vec::new();
    let mut notified = Vec::new();
    while let Ok(event) = events.try_recv() {
        match event.as_ref() {
            Event::WalletChanged { user, balance } => balances.push((*user, *balance)),
            Event::Notification { to, key: NoticeKey::WalletUpdated, .. } => notified.push(*to),
            _ => {}
        }
    }
    (balances, notified)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_paid_booking_is_refunded_to_the_wallet_in_part_then_in_full_once_per_key() {
    let app = test_gateway_app().await;
    let booking = paid_by_card(&app).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = rider(1);
    let paid = booking.payableAmount;
    let listed = app.get(&refunds_path(&booking), Some(&admin)).await;
    let listed = listed.expect(200);
    assert_eq!(listed["items"], json!([]));
    assert_eq!(money(&listed["totals"]["refundable"]), paid);
    assert_eq!(listed["gateway"]["available"], true);
    let mut events = app.events();

    // A part, to the wallet.
    let body = |amount: Decimal| json!({ "amount": amount, "destination": "wallet", "reason": "Long detour" });
    let part = post_keyed(&app, &refund_path(&booking), Some(&admin), body(Decimal::new(5, 0)), "refund-1").await;
    let part = part.expect(201).clone();
    assert_eq!(part["applied"], true);
    assert_eq!(
        (part["refund"]["destination"].as_str(), part["refund"]["status"].as_str()),
        (Some("wallet"), Some("done"))
    );
    assert_eq!(money(&part["refund"]["amount"]), Decimal::new(5, 0));
    assert_eq!(part["refund"]["user"], json!(rider.id));
    assert_eq!(money(&part["booking"]["refunded"]), Decimal::new(5, 0));
    assert_eq!(money(&part["totals"]["refundable"]), paid - Decimal::new(5, 0));
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), Decimal::new(5, 0));
    assert_ledger_balances(&app).await;
    let (balances, notified) = wallet_events(&mut events);
    assert_eq!(balances, vec![(rider.id, Decimal::new(5, 0))]);
    assert_eq!(notified, vec![rider.id]);

    // The repeat: nothing moves, and it says so.
    let repeat = post_keyed(&app, &refund_path(&booking), Some(&admin), body(Decimal::new(5, 0)), "refund-1").await;
    let repeat = repeat.expect(200).clone();
    assert_eq!(repeat["applied"], false);
    assert_eq!(repeat["refund"]["id"], part["refund"]["id"]);
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), Decimal::new(5, 0));
    assert_eq!(wallet_events(&mut events), (vec![], vec![]));

    // Never more than what is left; then the rest, in full.
    let rest = paid - Decimal::new(5, 0);
    let over =
        post_keyed(&app, &refund_path(&booking), Some(&admin), body(rest + Decimal::new(1, 2)), "refund-2").await;
    over.refused_on(400, "invalid_amount", "amount");
    let blank = json!({ "amount": 1, "destination": "wallet", "reason": "  " });
    post_keyed(&app, &refund_path(&booking), Some(&admin), blank, "refund-2").await.refused_on(
        400,
        "select_proper",
        "reason",
    );
    let full = post_keyed(&app, &refund_path(&booking), Some(&admin), body(rest), "refund-2").await;
    let full = full.expect(201).clone();
    assert_eq!(money(&full["totals"]["refundable"]), Decimal::ZERO);
    assert_eq!(money(&full["totals"]["refunded"]), paid);
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), paid);
    assert_ledger_balances(&app).await;
    post_keyed(&app, &refund_path(&booking), Some(&admin), body(Decimal::new(1, 2)), "refund-3").await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );

    // The rider's history shows each refund with its reason; the booking lists both.
    let history = app.state.storage.wallet_history(rider.id, &PageRequest::first(10)).await.unwrap().items;
    assert_eq!(history.len(), 2);
    for record in &history {
        assert_eq!(record.entry.txRef, format!("Refund:{}", booking.reference));
        assert_eq!(record.entry.description.as_deref(), Some("Long detour"));
    }
    let listed = app.get(&refunds_path(&booking), Some(&admin)).await;
    assert_eq!(listed.expect(200)["items"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_paid_booking_goes_back_through_the_test_gateway() {
    let app = test_gateway_app().await;
    let booking = paid_by_card(&app).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let body = json!({ "amount": 3, "destination": "gateway", "reason": "Charged twice" });
    let made = post_keyed(&app, &refund_path(&booking), Some(&admin), body.clone(), "card-1").await;
    let made = made.expect(201).clone();
    assert_eq!(made["refund"]["destination"], "gateway");
    assert!(made["refund"]["gateway_ref"].as_str().unwrap().starts_with("test-refund-"));
    assert!(made["refund"]["payment"].is_string());
    // The card, not the wallet.
    assert_eq!(app.state.storage.wallet_balance(rider(1).id).await.unwrap(), Decimal::ZERO);
    let repeat = post_keyed(&app, &refund_path(&booking), Some(&admin), body, "card-1").await;
    assert_eq!(repeat.expect(200)["refund"]["gateway_ref"], made["refund"]["gateway_ref"]);
    let listed = app.get(&refunds_path(&booking), Some(&admin)).await;
    let listed = listed.expect(200);
    assert_eq!(money(&listed["gateway"]["refundable"]), booking.payableAmount - Decimal::new(3, 0));
    assert_eq!(money(&listed["totals"]["refunded"]), Decimal::new(3, 0));
    assert_ledger_balances(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cash_paid_booking_goes_back_to_the_wallet_only() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let reached = app.booking_at(&rider(1), &driver(1), Stage::Reached).await;
    let settled =
        app.post(&format!("/api/v1/bookings/{}/settle", reached.id), Some(&admin), json!({ "mode": "cash" })).await;
    assert_eq!(settled.expect(200)["status"], "PAID");
    let listed = app.get(&refunds_path(&reached), Some(&admin)).await;
    assert_eq!(listed.expect(200)["gateway"]["available"], false);
    let to_card = json!({ "amount": 1, "destination": "gateway", "reason": "Overcharged" });
    post_keyed(&app, &refund_path(&reached), Some(&admin), to_card, "cash-1").await.refused_on(
        400,
        "invalid_input",
        "destination",
    );
    // No destination is the wallet; the body's older key still counts.
    let older = json!({ "amount": 1, "reason": "Overcharged", "idempotencyKey": "cash-2" });
    let made = app.post(&refund_path(&reached), Some(&admin), older.clone()).await;
    assert_eq!(made.expect(201)["refund"]["destination"], "wallet");
    assert_eq!(app.post(&refund_path(&reached), Some(&admin), older).await.expect(200)["applied"], false);
    assert_eq!(app.state.storage.wallet_balance(rider(1).id).await.unwrap(), Decimal::ONE);
    assert_ledger_balances(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_refund_debit_and_adjust_and_not_in_demo_mode() {
    let app = TestApp::demo().await;
    let reached = app.booking_at(&rider(1), &driver(1), Stage::Reached).await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    let driver_session = app.sign_in("driver1@demo.wayfare").await;
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let refund = json!({ "amount": 1, "reason": "Why not" });
    let moved = json!({ "amount": 1, "balance": 1, "reason": "Why not" });
    for who in [&rider_session, &driver_session, &fleet] {
        app.post(&refund_path(&reached), Some(who), refund.clone()).await.refused(403, "not_allowed");
        for action in ["debit", "adjust"] {
            app.post(&wallet_path(rider_session.id, action), Some(who), moved.clone())
                .await
                .refused(403, "not_allowed");
        }
    }
    app.get(&refunds_path(&reached), Some(&rider_session)).await.refused(403, "not_allowed");
    app.post(&wallet_path(rider_session.id, "debit"), None, moved.clone()).await.refused(401, "not_logged_in");

    let demo = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = demo.sign_in("admin@demo.wayfare").await;
    for action in ["debit", "adjust"] {
        demo.post(&wallet_path(rider(1).id, action), Some(&admin), moved.clone()).await.refused(403, "demo_mode");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_debits_and_adjusts_a_wallet_with_a_reason_once_per_key() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = rider(2);
    let mut events = app.events();
    post_keyed(&app, &wallet_path(rider.id, "credit"), Some(&admin), json!({ "amount": 50 }), "c-1").await.expect(201);

    // A debit: a reason, within the balance, once per key.
    let debit = |amount: f64, reason: &str| json!({ "amount": amount, "reason": reason });
    post_keyed(&app, &wallet_path(rider.id, "debit"), Some(&admin), debit(5.0, " "), "d-1").await.refused_on(
        400,
        "select_proper",
        "reason",
    );
    post_keyed(&app, &wallet_path(rider.id, "debit"), Some(&admin), debit(0.0, "Damage"), "d-1").await.refused_on(
        400,
        "no_details_error",
        "amount",
    );
    post_keyed(&app, &wallet_path(rider.id, "debit"), Some(&admin), debit(50.01, "Damage"), "d-1").await.refused_on(
        409,
        "insufficient_wallet_balance",
        "amount",
    );
    let debited = post_keyed(&app, &wallet_path(rider.id, "debit"), Some(&admin), debit(20.0, "Damage"), "d-1").await;
    assert_eq!(debited.expect(201), &json!({ "user": rider.id, "walletBalance": 30.0, "applied": true }));
    assert_ledger_balances(&app).await;
    let repeat = post_keyed(&app, &wallet_path(rider.id, "debit"), Some(&admin), debit(20.0, "Damage"), "d-1").await;
    assert_eq!(repeat.expect(200), &json!({ "user": rider.id, "walletBalance": 30.0, "applied": false }));

    // An adjustment: one entry of the difference, down then up.
    let adjust = |balance: f64| json!({ "balance": balance, "reason": "Reconciled with the bank" });
    let down = post_keyed(&app, &wallet_path(rider.id, "adjust"), Some(&admin), adjust(12.5), "a-1").await;
    assert_eq!(down.expect(201)["walletBalance"], 12.5);
    assert_ledger_balances(&app).await;
    let repeat = post_keyed(&app, &wallet_path(rider.id, "adjust"), Some(&admin), adjust(12.5), "a-1").await;
    assert_eq!(repeat.expect(200)["applied"], false);
    post_keyed(&app, &wallet_path(rider.id, "adjust"), Some(&admin), adjust(12.5), "a-2").await.refused_on(
        400,
        "invalid_amount",
        "balance",
    );
    post_keyed(&app, &wallet_path(rider.id, "adjust"), Some(&admin), adjust(-1.0), "a-2").await.refused_on(
        409,
        "insufficient_wallet_balance",
        "balance",
    );
    let up = post_keyed(&app, &wallet_path(rider.id, "adjust"), Some(&admin), adjust(40.0), "a-2").await;
    assert_eq!(up.expect(201)["walletBalance"], 40.0);
    assert_ledger_balances(&app).await;

    let wallet = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&admin)).await;
    let history: Vec<(String, String, f64, Option<String>)> = wallet.expect(200)["walletHistory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["type"].as_str().unwrap().to_string(),
                entry["txRef"].as_str().unwrap().to_string(),
                entry["amount"].as_f64().unwrap(),
                entry["description"].as_str().map(str::to_string),
            )
        })
        .collect();
    let reconciled = Some("Reconciled with the bank".to_string());
    assert_eq!(
        history,
        vec![
            ("Credit".into(), "AdminAdjust".into(), 27.5, reconciled.clone()),
            ("Debit".into(), "AdminAdjust".into(), 17.5, reconciled),
            ("Debit".into(), "AdminDebit".into(), 20.0, Some("Damage".into())),
            ("Credit".into(), "AdminCredit".into(), 50.0, None),
        ]
    );
    // Each applied move told the user, the repeats did not.
    let (balances, notified) = wallet_events(&mut events);
    let balances: Vec<Decimal> = balances.into_iter().map(|(_, balance)| balance).collect();
    assert_eq!(balances, ["50", "30", "12.5", "40"].map(|text| text.parse::<Decimal>().unwrap()));
    assert_eq!(notified, vec![rider.id; 4]);
}
