//! Drivers' weekly statements (issue #37): a driver's trips over two ISO
//! weeks, paid in cash, by card through the test gateway and from the
//! wallet, and a cancellation fee; each week's statement sums what the
//! earnings reports say of the same week, to the cent, and only the driver,
//! admins and the driver's fleet admin read it.

use crate::money_support::{cancelled_after, get_raw, money};
use crate::pdf_support::pdf_text;
use crate::support::*;
use axum::http::header;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::sync::Arc;
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{Booking, BookingStatus, PaymentMode, User};
use wayfare_http::config::PaymentsConfig;

/// Monday 2027-01-11 00:00 UTC: the week of the clock's start (2027-W02).
const WEEK_2: i64 = 1_799_625_600_000;
const WEEK_MS: i64 = 7 * 24 * 3_600_000;
const WEEK_3: i64 = WEEK_2 + WEEK_MS;

/// The demo city with the test gateway, on SQLite, or on the database
/// `database_url` names.
async fn statements_app_on(database_url: Option<String>) -> TestApp {
    let mut setup = Setup::default();
    setup.config.database_url = database_url;
    setup.config.payments = PaymentsConfig { test_gateway: true, ..PaymentsConfig::default() };
    // Nothing dispatches by itself: each booking is where the test left it.
    setup.settings.autoDispatch = false;
    TestApp::start(setup).await
}

async fn statements_app() -> TestApp {
    statements_app_on(None).await
}

/// A trip of `customer` with `driver`, paid by card through the test gateway.
async fn paid_by_card(app: &TestApp, customer: &User, driver: &User) -> Arc<Booking> {
    let reached = app.booking_at(customer, driver, Stage::Reached).await;
    let pending = app.command(reached.id, By::Driver(driver.id), Command::AwaitPayment).await;
    let payer = app.sign_in(&customer.email).await;
    let fields = [
        ("order_id", pending.id.to_string()),
        ("amount", pending.payableAmount.to_string()),
        ("currency", "USD".to_string()),
        ("product_name", "Wayfare".to_string()),
        ("first_name", customer.firstName.clone()),
        ("last_name", customer.lastName.clone()),
        ("quantity", "1".to_string()),
        ("cust_id", payer.id.to_string()),
        ("mobile_no", customer.mobile.clone()),
        ("email", customer.email.clone()),
    ];
    let form: Vec<String> = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect();
    let form_type = "application/x-www-form-urlencoded";
    let checkout = app.post_raw("/api/v1/payments/test/checkout", Some(&payer), form_type, form.join("&")).await;
    let page = checkout.header(header::LOCATION).unwrap_or_else(|| panic!("a page: {}", checkout.body)).to_string();
    let paid = app.post_raw(&page, Some(&payer), form_type, "action=pay".to_string()).await;
    assert_eq!(paid.status.as_u16(), 303, "{}", paid.body);
    let booking = app.runtime().booking(pending.id).await.unwrap();
    assert_eq!((booking.status, booking.payment_mode), (BookingStatus::Paid, Some(PaymentMode::Card)));
    booking
}

/// A trip of `customer` with `driver`, paid from the rider's wallet.
async fn paid_from_wallet(app: &TestApp, customer: &User, driver: &User) -> Arc<Booking> {
    let reached = app.booking_at(customer, driver, Stage::Reached).await;
    // Enough whatever the rider owes from a cancellation.
    app.credit(customer.id, reached.payableAmount + Decimal::ONE_HUNDRED).await;
    let balance = app.state.storage.wallet_balance(customer.id).await.unwrap();
    let paid = app
        .command(
            reached.id,
            By::Rider(customer.id),
            Command::Pay { mode: PaymentMode::Wallet, wallet_balance: balance },
        )
        .await;
    assert_eq!((paid.status, paid.payment_mode), (BookingStatus::Paid, Some(PaymentMode::Wallet)));
    paid
}

/// What a week holds for driver 4.
struct Week {
    rides: Vec<Arc<Booking>>,
    cancellations: Vec<Arc<Booking>>,
    /// Bookings that are no earnings (unpaid, someone else's).
    left_out: Vec<Arc<Booking>>,
}

/// Week 2: a cash, a card and a wallet trip, a charged cancellation, and
/// another fleet's driver's trip. Week 3: a cash and a wallet trip, and an
/// accepted booking not paid yet.
async fn two_weeks(app: &TestApp) -> (Week, Week) {
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    let driver4 = driver(4);
    let cash = app.booking_at(&rider(1), &driver4, Stage::Paid).await;
    let card = paid_by_card(app, &rider(2), &driver4).await;
    let wallet = paid_from_wallet(app, &rider(3), &driver4).await;
    let cancelled = cancelled_after(app, &rider(1), &driver4, 3).await;
    assert!(cancelled.cancellationFee > Decimal::ZERO, "a fee past the first slab");
    let theirs = app.booking_at(&rider(3), &other_fleet_driver(), Stage::Paid).await;
    let first = Week { rides: vec![cash, card, wallet], cancellations: vec![cancelled], left_out: vec![theirs] };

    app.advance(std::time::Duration::from_millis(WEEK_MS as u64));
    let cash = app.booking_at(&rider(2), &driver4, Stage::Paid).await;
    let wallet = paid_from_wallet(app, &rider(1), &driver4).await;
    let unpaid = app.booking_at(&rider(2), &driver4, Stage::Accepted).await;
    let second = Week { rides: vec![cash, wallet], cancellations: vec![], left_out: vec![unpaid] };
    (first, second)
}

fn total(bookings: &[Arc<Booking>], field: fn(&Booking) -> Decimal) -> Decimal {
    bookings.iter().map(|booking| field(booking)).sum::<Decimal>().round_dp(2)
}

/// The amount an HTML document shows for `label` (the first after it).
fn shown(html: &str, label: &str) -> Decimal {
    let at = html.find(&format!(">{label}</")).unwrap_or_else(|| panic!("no {label:?} in {html}"));
    let start = at + html[at..].find("<bdi>").unwrap() + "<bdi>".len();
    let end = start + html[start..].find("</bdi>").unwrap();
    let text: String = html[start..end]
        .chars()
        .filter(|character| character.is_ascii_digit() || matches!(character, '.' | '-'))
        .collect();
    text.parse().unwrap_or_else(|_| panic!("{label}: not an amount: {}", &html[start..end]))
}

fn statement_path(driver: &User, week: &str) -> String {
    format!("/api/v1/drivers/{}/statements?week={week}", driver.id)
}

fn html_of(reply: &Reply) -> String {
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert!(reply.header(header::CONTENT_TYPE).unwrap().starts_with("text/html"));
    reply.body.as_str().expect("a page").to_string()
}

/// The one earnings row of driver 4 for `[from, until)`, as `who` reads it.
async fn report_row(app: &TestApp, who: &Session, report: &str, from: i64, until: i64) -> Value {
    let path = format!("/api/v1/reports/{report}?driver={}&from={from}&until={until}", driver(4).id);
    let reply = app.get(&path, Some(who)).await;
    let rows = reply.expect(200)["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 1, "one month, one driver: {rows:?}");
    rows[0].clone()
}

/// Checks a week's statement against the bookings and both earnings reports.
async fn check_week(app: &TestApp, week: &Week, name: &str, from: i64, driver_session: &Session, admin: &Session) {
    let html = html_of(&app.get(&statement_path(&driver(4), name), Some(driver_session)).await);
    assert!(html.contains(&format!("Weekly statement {name}")), "{html}");
    for booking in week.rides.iter().chain(&week.cancellations) {
        assert!(html.contains(&booking.reference), "{} is listed", booking.reference);
    }
    for booking in &week.left_out {
        assert!(!html.contains(&booking.reference), "{} is no earning of driver 4", booking.reference);
    }

    // The sums are the earnings report's of the same week, to the cent.
    let row = report_row(app, admin, "earnings", from, from + WEEK_MS).await;
    assert_eq!(shown(&html, "Rides"), Decimal::from(row["total_rides"].as_u64().unwrap()));
    assert_eq!(shown(&html, "Fares"), money(&row["tripCost"]));
    assert_eq!(shown(&html, "Convenience fees"), money(&row["convenienceFee"]));
    assert_eq!(shown(&html, "Discounts (paid by the platform)"), money(&row["discountAmount"]));
    assert_eq!(shown(&html, "Your share of fares"), money(&row["driverShare"]));
    assert_eq!(shown(&html, "Cancellation fees"), money(&row["cancellationFee"]));
    // And the driver's own earnings route says the same of the rides.
    let own = report_row(app, driver_session, "driver-earnings", from, from + WEEK_MS).await;
    assert_eq!(shown(&html, "Your share of fares"), money(&own["driverShare"]));
    assert_eq!(shown(&html, "Rides"), Decimal::from(own["total_rides"].as_u64().unwrap()));

    // And they are the bookings' own figures.
    assert_eq!(row["total_rides"], json!(week.rides.len()));
    assert_eq!(money(&row["driverShare"]), total(&week.rides, |booking| booking.driver_share));
    assert_eq!(money(&row["cancellationFee"]), total(&week.cancellations, |booking| booking.cancellationFee));
    let cash = total(&week.rides, |booking| booking.cashPaymentAmount);
    let card_or_wallet = total(&week.rides, |booking| booking.cardPaymentAmount + booking.usedWalletMoney);
    assert!(cash > Decimal::ZERO && card_or_wallet > Decimal::ZERO, "every way of paying is in the week");
    assert_eq!(shown(&html, "Cash you collected"), cash);
    assert_eq!(shown(&html, "Paid by card or wallet"), card_or_wallet);
    let earnings = money(&row["driverShare"]) + money(&row["cancellationFee"]);
    assert_eq!(shown(&html, "Your earnings"), earnings);
    let balance = earnings - cash;
    if balance >= Decimal::ZERO {
        assert_eq!(shown(&html, "The platform owes you"), balance);
    } else {
        assert_eq!(shown(&html, "You owe the platform"), -balance);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_weeks_statement_sums_what_the_earnings_reports_say_of_that_week() {
    weeks_sum_as_the_reports(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_weeks_statement_sums_what_the_earnings_reports_say_of_that_week_on_postgres() {
    let Some(schema) = crate::postgres_support::Schema::create("statements").await else { return };
    weeks_sum_as_the_reports(Some(schema.url.clone())).await;
}

async fn weeks_sum_as_the_reports(database_url: Option<String>) {
    let app = statements_app_on(database_url).await;
    let (first, second) = two_weeks(&app).await;
    let driver4 = app.sign_in("driver4@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;

    // The driver's weeks, newest first, each with its span.
    let weeks = app.get("/api/v1/drivers/me/statements", Some(&driver4)).await;
    let mut weeks = weeks.expect(200).clone();
    // Each week's totals are its statement's: the list's rides and earnings
    // are the bookings' own figures.
    for (listed, week) in weeks["weeks"].as_array().unwrap().iter().zip([&second, &first]) {
        assert_eq!(listed["totals"]["rides"], json!(week.rides.len()));
        let earnings = total(&week.rides, |booking| booking.driver_share)
            + total(&week.cancellations, |booking| booking.cancellationFee);
        assert_eq!(money(&listed["totals"]["earnings"]), earnings);
    }
    for week in weeks["weeks"].as_array_mut().unwrap() {
        week.as_object_mut().unwrap().remove("totals");
    }
    assert_eq!(
        weeks,
        json!({ "weeks": [
            { "week": "2027-W03", "from": WEEK_3, "until": WEEK_3 + WEEK_MS },
            { "week": "2027-W02", "from": WEEK_2, "until": WEEK_2 + WEEK_MS },
        ]})
    );
    check_week(&app, &first, "2027-W02", WEEK_2, &driver4, &admin).await;
    check_week(&app, &second, "2027-W03", WEEK_3, &driver4, &admin).await;
    // Without a week: the current one (the clock is in week 3).
    let current = html_of(&app.get(&format!("/api/v1/drivers/{}/statements", driver4.id), Some(&driver4)).await);
    assert!(current.contains("Weekly statement 2027-W03"));
    // A week without trips says so.
    let empty = html_of(&app.get(&statement_path(&driver(4), "2027-W01"), Some(&driver4)).await);
    assert!(empty.contains("No trips this week."));
    assert_eq!(shown(&empty, "Your earnings"), Decimal::ZERO);

    // The PDF says the same.
    let pdf = get_raw(&app, &format!("{}&format=pdf", statement_path(&driver(4), "2027-W02")), Some(&driver4)).await;
    assert_eq!(pdf.status.as_u16(), 200);
    assert_eq!(pdf.header(header::CONTENT_TYPE), "application/pdf");
    assert_eq!(pdf.header(header::CONTENT_DISPOSITION), "attachment; filename=\"statement-2027-W02.pdf\"");
    let text = pdf_text(&pdf.bytes);
    assert!(text.contains("Weekly statement 2027-W02"), "{text}");
    for booking in first.rides.iter().chain(&first.cancellations) {
        assert!(text.contains(&booking.reference), "{} in the PDF: {text}", booking.reference);
    }
    let share = total(&first.rides, |booking| booking.driver_share);
    assert!(text.contains(&format!("${share:.2}")), "{text}");

    // Bad weeks are refused by name.
    for week in ["2027-53", "2027-W00", "2027-W54", "week"] {
        app.get(&statement_path(&driver(4), week), Some(&driver4)).await.refused_on(400, "invalid_input", "week");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_are_for_their_driver_admins_and_the_drivers_fleet_admin_only() {
    let app = statements_app().await;
    two_weeks(&app).await;
    let path = statement_path(&driver(4), "2027-W02");
    let theirs = statement_path(&other_fleet_driver(), "2027-W02");

    let admin = app.sign_in("admin@demo.wayfare").await;
    assert!(html_of(&app.get(&path, Some(&admin)).await).contains("Weekly statement 2027-W02"));
    assert!(html_of(&app.get(&theirs, Some(&admin)).await).contains("Weekly statement 2027-W02"));
    // The demo fleet's admin: driver 4 (of the fleet), not the other fleet's driver.
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    assert!(html_of(&app.get(&path, Some(&fleet)).await).contains(&driver(4).vehicleNumber));
    app.get(&theirs, Some(&fleet)).await.refused(404, "not_found");
    let other_fleet = app.sign_in("fleet2@test.wayfare").await;
    app.get(&path, Some(&other_fleet)).await.refused(404, "not_found");
    assert!(html_of(&app.get(&theirs, Some(&other_fleet)).await).contains("Weekly statement"));

    // Another driver learns nothing of driver 4's statements, not even that
    // they exist (as with bookings: DESIGN.md invariant 6).
    let driver1 = app.sign_in("driver1@demo.wayfare").await;
    app.get(&path, Some(&driver1)).await.refused(404, "not_found");
    let pdf = get_raw(&app, &format!("{path}&format=pdf"), Some(&driver1)).await;
    assert_eq!(pdf.status.as_u16(), 404);
    // Their own list has none of driver 4's weeks.
    let own = app.get("/api/v1/drivers/me/statements", Some(&driver1)).await;
    assert_eq!(own.expect(200), &json!({ "weeks": [] }));
    // Riders never read statements; nobody signed out does.
    let rider1 = app.sign_in("rider1@demo.wayfare").await;
    app.get(&path, Some(&rider1)).await.refused(403, "not_allowed");
    app.get(&path, None).await.refused(401, "not_logged_in");
    // The list of weeks is a driver's own.
    for who in [&rider1, &fleet, &admin] {
        app.get("/api/v1/drivers/me/statements", Some(who)).await.refused(403, "not_allowed");
    }
    // Someone who is no driver, or nobody, has no statements.
    app.get(&statement_path(&rider(1), "2027-W02"), Some(&admin)).await.refused(404, "not_found");
    let nobody = format!("/api/v1/drivers/{}/statements", uuid::Uuid::now_v7());
    app.get(&nobody, Some(&admin)).await.refused(404, "not_found");
}
