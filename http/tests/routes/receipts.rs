//! A delivery's receipt (issue #37): the parcel type and the option the
//! rider chose are lines of the fare, with their prices, on the page and in
//! the PDF's text, and the lines add up to what the rider paid.

use crate::money_support::get_raw;
use crate::pdf_support::pdf_text;
use crate::support::*;
use axum::http::header;
use rust_decimal::Decimal;
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{AppCategory, BookingStatus, PaymentMode};
use wayfare_http::config::PaymentsConfig;

/// The amount on the line labelled `label` of a receipt page.
fn amount_of<'a>(html: &'a str, label: &str) -> &'a str {
    let at = html.find(&format!(">{label}</td>")).unwrap_or_else(|| panic!("no line {label:?}: {html}"));
    let start = at + html[at..].find("<bdi>").unwrap() + "<bdi>".len();
    &html[start..start + html[start..].find("</bdi>").unwrap()]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_receipt_lists_its_parcel_type_and_option_on_the_page_and_in_the_pdf() {
    let mut setup = Setup::default();
    setup.config.payments = PaymentsConfig { test_gateway: true, ..PaymentsConfig::default() };
    setup.settings.appcat = AppCategory::Delivery;
    setup.settings.autoDispatch = false;
    let app = TestApp::start(setup).await;
    let customer = rider(1);
    let courier = driver(4);

    // A small box, handled with care (the demo car types' second parcel type and first option).
    let mut trip = trip_request();
    trip.parcel_type_index = Some(1);
    trip.option_index = Some(0);
    let booking =
        app.runtime().create_booking("Economy", trip, &customer, By::Rider(customer.id)).await.expect("booked");
    assert_eq!(booking.status, BookingStatus::PaymentPending);
    let parcel = booking.parcelTypeSelected.clone().expect("a parcel type");
    let option = booking.optionSelected.clone().expect("an option");
    assert_eq!((parcel.description.as_str(), parcel.amount), ("Small box", Decimal::new(300, 2)));
    assert_eq!((option.description.as_str(), option.amount), ("Fragile handling", Decimal::new(200, 2)));

    // Prepaid through the test gateway, then delivered.
    let payer = app.sign_in("rider1@demo.wayfare").await;
    let fields = [
        ("order_id", booking.id.to_string()),
        ("amount", booking.payableAmount.to_string()),
        ("currency", "USD".to_string()),
        ("product_name", "Wayfare".to_string()),
        ("first_name", "Rita".to_string()),
        ("last_name", "Rider".to_string()),
        ("quantity", "1".to_string()),
        ("cust_id", payer.id.to_string()),
        ("mobile_no", customer.mobile.clone()),
        ("email", customer.email.clone()),
    ];
    let form: Vec<String> = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect();
    let form_type = "application/x-www-form-urlencoded";
    let checkout = app.post_raw("/api/v1/payments/test/checkout", Some(&payer), form_type, form.join("&")).await;
    let page = checkout.header(header::LOCATION).unwrap_or_else(|| panic!("a page: {}", checkout.body)).to_string();
    assert_eq!(app.post_raw(&page, Some(&payer), form_type, "action=pay".to_string()).await.status.as_u16(), 303);
    let paid = app.runtime().booking(booking.id).await.unwrap();
    assert_eq!((paid.status, paid.prepaid), (BookingStatus::New, true));
    app.offer(booking.id, &[&courier]).await;
    app.accept(booking.id, &courier).await;
    let by = By::Driver(courier.id);
    app.command(booking.id, by, Command::Arrive { location: None }).await;
    let started = app.runtime().booking(booking.id).await.unwrap();
    app.command(booking.id, by, Command::Start { otp: started.otp.0, location: None }).await;
    app.command(booking.id, by, Command::Reach { location: None, drop_address: None, route: Vec::new() }).await;
    let delivered =
        app.command(booking.id, by, Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO }).await;
    assert_eq!(delivered.status, BookingStatus::Paid, "prepaid: nothing to collect");

    // The page: each chosen extra is a line with its price, inside the total.
    let path = format!("/api/v1/bookings/{}/receipt", booking.id);
    let reply = app.get(&path, Some(&payer)).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let html = reply.body.as_str().unwrap();
    assert_eq!(amount_of(html, "Parcel type: Small box"), "$3.00", "{html}");
    assert_eq!(amount_of(html, "Option: Fragile handling"), "$2.00", "{html}");
    let ride = delivered.trip_cost - delivered.convenience_fees - Decimal::new(500, 2);
    assert_eq!(amount_of(html, "Ride"), format!("${ride:.2}"), "the ride is the rest of the fare");
    assert!(html.contains(&format!("${:.2}", delivered.trip_cost - delivered.discount_amount)), "the total");
    assert!(html.contains("Card (test)"), "paid by card through the test gateway");

    // The PDF's text says the same.
    let pdf = get_raw(&app, &format!("{path}?format=pdf"), Some(&payer)).await;
    assert_eq!(pdf.status.as_u16(), 200);
    assert_eq!(pdf.header(header::CONTENT_TYPE), "application/pdf");
    let text = pdf_text(&pdf.bytes);
    for expected in ["Parcel type: Small box", "$3.00", "Option: Fragile handling", "$2.00", "Card (test)"] {
        assert!(text.contains(expected), "{expected:?} in the PDF: {text}");
    }
    assert!(text.contains(&booking.reference), "{text}");

    // A taxi ride's receipt has neither line.
    let ride_app = TestApp::demo().await;
    let taxi = ride_app.booking_at(&rider(1), &driver(1), Stage::Paid).await;
    let rider_session = ride_app.sign_in("rider1@demo.wayfare").await;
    let taxi_receipt = ride_app.get(&format!("/api/v1/bookings/{}/receipt", taxi.id), Some(&rider_session)).await;
    let taxi_html = taxi_receipt.body.as_str().unwrap();
    assert!(taxi_html.contains(">Ride</td>") && !taxi_html.contains("Parcel type") && !taxi_html.contains("Option:"));
}
