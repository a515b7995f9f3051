//! A user's wallet: balance and history, newest first, paged (DESIGN.md
//! contract, spec §3 "Wallet history entry").

use crate::support::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wallet_shows_its_balance_and_history_newest_first_in_pages() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let empty = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&rider)).await;
    assert_eq!(empty.expect(200), &json!({ "walletBalance": 0.0, "walletHistory": [], "next": null }));

    app.credit(rider.id, Decimal::new(1000, 2)).await;
    app.advance(MINUTE);
    app.credit(rider.id, Decimal::new(250, 2)).await;
    let reply = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&rider)).await;
    let wallet = reply.expect(200);
    assert_eq!(wallet["walletBalance"], 12.5);
    let history = wallet["walletHistory"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    let newest = &history[0];
    assert_eq!(newest["type"], "Credit");
    assert_eq!(newest["amount"], 2.5);
    assert_eq!(newest["txRef"], "AdminCredit");
    assert_eq!(newest["date"], T0 + 60_000);
    assert_eq!(history[1]["date"], T0);

    let page = app.get(&format!("/api/v1/users/{}/wallet?limit=1", rider.id), Some(&rider)).await;
    assert_eq!(page.expect(200)["walletHistory"].as_array().unwrap().len(), 1);
    let cursor = page.body["next"].as_str().expect("a cursor").to_string();
    let rest = app
        .get(&format!("/api/v1/users/{}/wallet?limit=1&after={}", rider.id, query_encode(&cursor)), Some(&rider))
        .await;
    assert_eq!(rest.expect(200)["walletHistory"][0]["amount"], 10.0);
    assert_eq!(rest.body["next"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_wallet_query_is_invalid_input_and_a_bad_id_not_found() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get(&format!("/api/v1/users/{}/wallet?limit=all", rider.id), Some(&rider)).await.refused_on(
        400,
        "invalid_input",
        "query",
    );
    app.get("/api/v1/users/rider1/wallet", Some(&rider)).await.refused(404, "not_found");
    app.get(&format!("/api/v1/users/{}/wallet", uuid::Uuid::now_v7()), Some(&rider)).await.refused(404, "not_found");
    app.get(&format!("/api/v1/users/{}/wallet", rider.id), None).await.refused(401, "not_logged_in");
}
