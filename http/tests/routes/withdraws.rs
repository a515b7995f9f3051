//! Withdraw requests (spec §3 "Withdraw request", §4 "Withdraw", §5, §7
//! fetchWithdraws/completeWithdraw; §9 "Withdraws listed newest first"): a
//! request debits the wallet through the ledger once, completing sets
//! `processed` and `procesDate` once.

use crate::money_support::*;
use crate::support::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wayfare_engine::WithdrawId;

const WITHDRAWS: &str = "/api/v1/withdraws";

fn complete_path(id: &str) -> String {
    format!("/api/v1/withdraws/{id}/complete")
}

/// Driver 4 with bank details in the profile and 100.00 in the wallet.
async fn funded_driver(app: &TestApp) -> Session {
    let mut profile = driver(4);
    profile.bankName = "First Bank".into();
    profile.bankCode = "021000021".into();
    profile.bankAccount = "4400123456".into();
    app.state.storage.update_user(&profile, T0).await.expect("bank details saved");
    app.credit(profile.id, Decimal::new(100, 0)).await;
    app.sign_in("driver4@demo.wayfare").await
}

async fn balance(app: &TestApp, who: &Session) -> Value {
    app.get(&format!("/api/v1/users/{}/wallet", who.id), Some(who)).await.expect(200)["walletBalance"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drivers_withdraw_debits_the_wallet_once_and_waits_unprocessed() {
    let app = TestApp::demo().await;
    let driver = funded_driver(&app).await;
    let mut events = app.events();

    let reply = app.post(WITHDRAWS, Some(&driver), json!({ "amount": 40 })).await;
    let created = reply.expect(201);
    let withdraw = &created["withdraw"];
    assert_eq!(created["walletBalance"], 60.0);
    assert_eq!(withdraw["uid"], json!(driver.id));
    // spec §3: name is first and last joined
    let profile = wayfare_engine::User::clone(&crate::support::driver(4));
    assert_eq!(withdraw["name"], format!("{} {}", profile.firstName, profile.lastName));
    assert_eq!(withdraw["amount"], 40.0);
    assert_eq!(withdraw["date"], T0);
    assert_eq!(
        (&withdraw["bankName"], &withdraw["bankCode"], &withdraw["bankAccount"]),
        (&json!("First Bank"), &json!("021000021"), &json!("4400123456"))
    );
    assert_eq!((&withdraw["processed"], &withdraw["procesDate"]), (&json!(false), &Value::Null));

    // The ledger: one Withdraw entry whose txRef names the request.
    let wallet = app.get(&format!("/api/v1/users/{}/wallet", driver.id), Some(&driver)).await;
    let wallet = wallet.expect(200);
    assert_eq!(wallet["walletBalance"], 60.0);
    let entry = &wallet["walletHistory"][0];
    assert_eq!((entry["type"].as_str(), entry["amount"].as_f64()), (Some("Withdraw"), Some(40.0)));
    assert_eq!(entry["txRef"], withdraw["id"]);
    assert_eq!(wallet["walletHistory"].as_array().unwrap().len(), 2, "the credit and the withdraw");
    // The owner's `wallet` socket event.
    let mut told = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let wayfare_actors::Event::WalletChanged { user, balance } = event.as_ref() {
            told.push((*user, *balance));
        }
    }
    assert_eq!(told, vec![(driver.id, Decimal::new(60, 0))]);

    // Newest first, with the owner's bank details unmasked.
    app.advance(MINUTE);
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": "12.5" })).await.expect(201);
    let list = app.get(WITHDRAWS, Some(&driver)).await;
    let list = list.expect(200);
    let amounts: Vec<f64> =
        list["items"].as_array().unwrap().iter().map(|item| item["amount"].as_f64().unwrap()).collect();
    assert_eq!(amounts, vec![12.5, 40.0]);
    assert_eq!(list["items"][1], *withdraw);
    assert_eq!(list["next"], Value::Null);
    assert_eq!(balance(&app, &driver).await, 47.5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_a_withdraw_sets_processed_once_and_moves_no_money() {
    let app = TestApp::demo().await;
    let driver = funded_driver(&app).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let created = app.post(WITHDRAWS, Some(&driver), json!({ "amount": 40 })).await;
    let id = created.expect(201)["withdraw"]["id"].as_str().unwrap().to_string();

    app.advance(MINUTE * 5);
    let completed = app.post_empty(&complete_path(&id), Some(&admin)).await;
    let completed = completed.expect(200);
    assert_eq!(
        (&completed["id"], &completed["processed"], &completed["procesDate"]),
        (&json!(id), &json!(true), &json!(T0 + 300_000))
    );
    // spec §4: a processed request cannot be processed again.
    app.advance(MINUTE);
    app.post_empty(&complete_path(&id), Some(&admin)).await.refused(409, "already_processed");
    let listed = app.get(WITHDRAWS, Some(&admin)).await;
    assert_eq!(listed.expect(200)["items"][0]["procesDate"], T0 + 300_000);
    // Completing pays out what the request already debited: the balance stays.
    assert_eq!(balance(&app, &driver).await, 60.0);
    let history = app.get(&format!("/api/v1/users/{}/wallet", driver.id), Some(&driver)).await;
    assert_eq!(history.expect(200)["walletHistory"].as_array().unwrap().len(), 2);

    app.post_empty(&complete_path(&WithdrawId(uuid::Uuid::now_v7()).to_string()), Some(&admin))
        .await
        .refused(404, "not_found");
    app.post_empty(&complete_path("not-an-id"), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdraw_retried_with_the_same_idempotency_key_is_made_once() {
    let app = TestApp::demo().await;
    let driver = funded_driver(&app).await;
    let first = post_keyed(&app, WITHDRAWS, Some(&driver), json!({ "amount": 30 }), "payout-1").await;
    let first = first.expect(201).clone();
    app.advance(MINUTE);
    let retry = post_keyed(&app, WITHDRAWS, Some(&driver), json!({ "amount": 30 }), "payout-1").await;
    let retry = retry.expect(200);
    assert_eq!(retry["withdraw"], first["withdraw"], "the first request, as it was made");
    assert_eq!(retry["walletBalance"], 70.0);
    assert_eq!(balance(&app, &driver).await, 70.0);
    let list = app.get(WITHDRAWS, Some(&driver)).await;
    assert_eq!(list.expect(200)["items"].as_array().unwrap().len(), 1);
    // Another key, another request.
    post_keyed(&app, WITHDRAWS, Some(&driver), json!({ "amount": 30 }), "payout-2").await.expect(201);
    assert_eq!(balance(&app, &driver).await, 40.0);
    post_keyed(&app, WITHDRAWS, Some(&driver), json!({ "amount": 1 }), "").await.refused_on(
        400,
        "invalid_input",
        "Idempotency-Key",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdraw_needs_an_amount_above_zero_and_within_the_balance() {
    let app = TestApp::demo().await;
    let driver = funded_driver(&app).await;
    for amount in [json!(0), json!(-1), json!(0.004), json!("abc"), json!(null), json!(true)] {
        app.post(WITHDRAWS, Some(&driver), json!({ "amount": amount })).await.refused_on(
            400,
            "invalid_amount",
            "amount",
        );
    }
    app.post(WITHDRAWS, Some(&driver), json!({})).await.refused_on(400, "invalid_amount", "amount");
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": 100.01 })).await.refused_on(
        409,
        "insufficient_wallet_balance",
        "amount",
    );
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": 2_000_000 })).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    app.post_raw(WITHDRAWS, Some(&driver), "text/plain", "40").await.refused_on(400, "invalid_input", "body");
    // Nothing was debited by the refusals; the whole balance can go.
    assert_eq!(balance(&app, &driver).await, 100.0);
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": 100 })).await.expect(201);
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": 0.01 })).await.refused(409, "insufficient_wallet_balance");
    assert_eq!(balance(&app, &driver).await, 0.0);
}

/// Sends six withdraw requests of the funded driver at once (with `key` as
/// their `Idempotency-Key` when given) and returns the replies.
async fn six_at_once(amount: u32, key: Option<&'static str>) -> (std::sync::Arc<TestApp>, Session, Vec<Reply>) {
    let app = std::sync::Arc::new(TestApp::demo().await);
    let driver = funded_driver(&app).await;
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let (app, driver) = (app.clone(), driver.clone());
            tokio::spawn(async move {
                let body = json!({ "amount": amount });
                match key {
                    Some(key) => post_keyed(&app, WITHDRAWS, Some(&driver), body, key).await,
                    None => app.post(WITHDRAWS, Some(&driver), body).await,
                }
            })
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.unwrap());
    }
    (app, driver, replies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_withdraws_never_take_more_than_the_balance() {
    let (app, driver, replies) = six_at_once(30, None).await;
    let mut answers: Vec<_> = replies
        .iter()
        .map(|reply| match reply.status.as_u16() {
            201 => (201, None),
            // Whether the balance check or the debit itself refused it, the answer is the same.
            status => (status, Some((reply.error_code().to_string(), reply.error_field().map(str::to_string)))),
        })
        .collect();
    answers.sort_unstable();
    let refused = (409, Some(("insufficient_wallet_balance".to_string(), Some("amount".to_string()))));
    assert_eq!(answers, vec![(201, None), (201, None), (201, None), refused.clone(), refused.clone(), refused]);
    assert_eq!(balance(&app, &driver).await, 10.0);
    let list = app.get(WITHDRAWS, Some(&driver)).await;
    assert_eq!(list.expect(200)["items"].as_array().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_retries_with_one_idempotency_key_make_one_request() {
    // 60 of the 100: a second debit would be refused, so a retry that read
    // the balance after the first committed must still be answered as a replay.
    let (app, driver, replies) = six_at_once(60, Some("payout-7")).await;
    let answers: Vec<_> =
        replies.iter().map(|reply| (reply.status.as_u16(), reply.body["withdraw"]["id"].clone())).collect();
    let created = answers.iter().filter(|(status, _)| *status == 201).count();
    let replayed = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!((created, replayed), (1, 5), "{answers:?}");
    assert!(answers.iter().all(|(_, id)| *id == answers[0].1 && id.is_string()));
    assert_eq!(balance(&app, &driver).await, 40.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_negative_balances_allowed_a_withdraw_may_exceed_the_balance() {
    let app = TestApp::with_settings(|settings| settings.negativeBalance = true).await;
    let driver = funded_driver(&app).await;
    app.post(WITHDRAWS, Some(&driver), json!({ "amount": 150 })).await.expect(201);
    assert_eq!(balance(&app, &driver).await, -50.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn riders_withdraw_only_when_rider_withdraw_is_on() {
    let app = TestApp::demo().await;
    app.credit(rider(1).id, Decimal::new(20, 0)).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.post(WITHDRAWS, Some(&rider), json!({ "amount": 5 })).await.refused(403, "not_allowed");

    let app = TestApp::with_settings(|settings| settings.RiderWithDraw = true).await;
    app.credit(rider.id, Decimal::new(20, 0)).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let created = app.post(WITHDRAWS, Some(&rider), json!({ "amount": 5 })).await;
    let created = created.expect(201);
    assert_eq!((created["withdraw"]["uid"].clone(), created["walletBalance"].clone()), (json!(rider.id), json!(15.0)));
    // Bank details missing from the profile are empty text (spec §3).
    assert_eq!(created["withdraw"]["bankAccount"], "");
    let list = app.get(WITHDRAWS, Some(&rider)).await;
    assert_eq!(list.expect(200)["items"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn withdraw_lists_page_newest_first() {
    let app = TestApp::demo().await;
    let driver = funded_driver(&app).await;
    for amount in [1, 2, 3] {
        app.post(WITHDRAWS, Some(&driver), json!({ "amount": amount })).await.expect(201);
        app.advance(MINUTE);
    }
    let first = app.get(&format!("{WITHDRAWS}?limit=2"), Some(&driver)).await;
    let first = first.expect(200);
    let amounts = |page: &Value| -> Vec<f64> {
        page["items"].as_array().unwrap().iter().map(|item| item["amount"].as_f64().unwrap()).collect()
    };
    assert_eq!(amounts(first), vec![3.0, 2.0]);
    let cursor = first["next"].as_str().expect("a cursor").to_string();
    let rest = app.get(&format!("{WITHDRAWS}?limit=2&after={}", query_encode(&cursor)), Some(&driver)).await;
    let rest = rest.expect(200);
    assert_eq!(amounts(rest), vec![1.0]);
    assert_eq!(rest["next"], Value::Null);
    app.get(&format!("{WITHDRAWS}?limit=many"), Some(&driver)).await.refused_on(400, "invalid_input", "query");
    app.get(&format!("{WITHDRAWS}?after=garbage"), Some(&driver)).await.refused(400, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_demo_mode_withdraws_are_asked_for_but_not_completed_and_bank_details_are_masked() {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let driver = funded_driver(&app).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    // Asking is part of the demo (spec §5 guards the panel, not the apps).
    let created = app.post(WITHDRAWS, Some(&driver), json!({ "amount": 40 })).await;
    let id = created.expect(201)["withdraw"]["id"].as_str().unwrap().to_string();
    assert_eq!(created.body["withdraw"]["bankAccount"], "4400123456", "the owner sees their own");
    let listed = app.get(WITHDRAWS, Some(&admin)).await;
    let item = &listed.expect(200)["items"][0];
    assert_eq!((item["bankAccount"].as_str(), item["bankCode"].as_str()), (Some("***56"), Some("***21")));
    assert_eq!(item["bankName"], "First Bank");
    app.post_empty(&complete_path(&id), Some(&admin)).await.refused(403, "demo_mode");
    let listed = app.get(WITHDRAWS, Some(&driver)).await;
    assert_eq!(listed.expect(200)["items"][0]["processed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bank_details_saved_on_the_profile_are_carried_into_a_withdraw() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver4@demo.wayfare").await;
    app.credit(driver.id, Decimal::new(50, 0)).await;
    let body = json!({ "bankName": " Harbor Bank ", "bankCode": "052000113", "bankAccount": "77001234" });
    let saved = crate::admin_support::patch(&app, "/api/v1/users/me", Some(&driver), body).await;
    let user = &saved.expect(200)["user"];
    assert_eq!((&user["bankName"], &user["bankCode"]), (&json!("Harbor Bank"), &json!("052000113")));
    let created = app.post(WITHDRAWS, Some(&driver), json!({ "amount": 20 })).await;
    let withdraw = &created.expect(201)["withdraw"];
    assert_eq!(
        (&withdraw["bankName"], &withdraw["bankCode"], &withdraw["bankAccount"]),
        (&json!("Harbor Bank"), &json!("052000113"), &json!("77001234"))
    );
    let long = json!({ "bankAccount": "9".repeat(65) });
    crate::admin_support::patch(&app, "/api/v1/users/me", Some(&driver), long).await.refused_on(
        400,
        "invalid_input",
        "bankAccount",
    );
}
