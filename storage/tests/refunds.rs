//! Refunds and an admin's wallet moves (issue #37) on both backends (see
//! `support/mod.rs`): a refund is stored with its booking and, to the
//! wallet, its ledger credit, once per key; failed gateway refunds are kept
//! and may be retried; the sums per booking and per payment count done
//! refunds only; a noted entry keeps its description and an expected
//! balance pins the move.

mod support;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;
use support::Fixture;
use uuid::Uuid;
use wayfare_engine::booking::{Effect, WalletChange};
use wayfare_engine::refund::{Refund, RefundDestination, RefundStatus, refund_key};
use wayfare_engine::{Booking, BookingId, BookingStatus, Millis, RefundId, Role, User, UserId, WalletEntryType};
use wayfare_storage::{PageRequest, PaymentOrder, PaymentRecord, PaymentStatus, RefundSums, StorageError};

backend_suite!(
    a_wallet_refund_is_stored_with_its_booking_and_ledger_credit_once,
    a_failed_gateway_refund_is_kept_and_a_retry_makes_it_done,
    refunds_are_summed_per_booking_and_per_payment,
    a_noted_entry_keeps_its_reason_and_an_expected_balance_pins_it,
);

const NOW: Millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn rider(number: u128) -> User {
    let mut user = User::new(UserId::from_u128(0x3700_0000 + number), Role::Rider, NOW);
    user.firstName = format!("Refund{number}");
    user.lastName = "Rider".into();
    user.email = format!("refund{number}@wayfare.test");
    user.referralId = format!("R{number:04}");
    user
}

fn paid_booking(number: u128, customer: &User) -> Booking {
    serde_json::from_value(json!({
        "id": BookingId::from_u128(0x3700_B000 + number),
        "reference": format!("RFD{number:03}"),
        "appcat": "taxi",
        "carType": "Sedan",
        "customer": customer.id,
        "customer_name": customer.full_name(),
        "pickup": {"lat": 39.2858, "lng": -76.6131, "add": "100 Light St, Baltimore"},
        "drop": {"lat": 39.2634, "lng": -76.5797, "add": "2400 E Fort Ave, Baltimore"},
        "pickupAddress": "100 Light St, Baltimore",
        "dropAddress": "2400 E Fort Ave, Baltimore",
        "estimate": 20,
        "estimateDistance": 3.8,
        "estimateTime": 900,
        "status": BookingStatus::Complete,
        "bookLater": false,
        "tripdate": NOW,
        "bookingDate": NOW - 600_000,
        "trip_cost": 20,
        "convenience_fees": 2,
        "driver_share": 18,
        "payableAmount": 20,
        "customer_paid": 20,
        "cardPaymentAmount": 20,
        "payment_mode": "card",
        "gateway": "test",
    }))
    .expect("a valid booking")
}

fn payment(number: u128, booking: &Booking) -> PaymentRecord {
    PaymentRecord {
        id: Uuid::from_u128(0x3700_9000 + number),
        gateway: "test".into(),
        order: PaymentOrder::Booking(booking.id),
        customer: booking.customer,
        amount: dec!(20),
        currency: "USD".into(),
        status: PaymentStatus::Pending,
        gateway_ref: None,
        event_id: None,
        success_url: "/bookings".into(),
        cancel_url: "/".into(),
        settled_at: None,
        created_at: NOW,
    }
}

fn refund(booking: &Booking, number: u128, amount: Decimal, destination: RefundDestination, key: &str) -> Refund {
    Refund {
        id: RefundId::from_u128(0x3700_A000 + number),
        payment: None,
        booking: booking.id,
        user: booking.customer,
        amount,
        currency: "USD".into(),
        destination,
        reason: "Long detour".into(),
        status: RefundStatus::Done,
        gateway_ref: None,
        idempotency_key: refund_key(booking.id, key),
        made_by: UserId::from_u128(1),
        created_at: NOW + number as i64,
    }
}

/// Commits a refund as the booking's state machine does: the booking's new
/// `refunded`, the refund and (to the wallet) its ledger credit.
async fn commit_refund(fixture: &Fixture, booking: &Booking, refund: &Refund) -> Result<Booking, StorageError> {
    let mut after = booking.clone();
    after.refunded += refund.amount;
    let mut effects = vec![Effect::Refund(Box::new(refund.clone()))];
    if let Some(change) = refund.ledger_change(&booking.reference) {
        effects.push(Effect::Wallet(change));
    }
    let committed = fixture.commit_booking(&after, Some(booking.version), &effects, refund.created_at).await?;
    Ok(committed.booking)
}

async fn stored_booking(fixture: &Fixture, number: u128) -> (User, Booking) {
    let customer = rider(number);
    fixture.insert_user(&customer).await.unwrap();
    let booking = paid_booking(number, &customer);
    let committed = fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    (customer, committed.booking)
}

async fn a_wallet_refund_is_stored_with_its_booking_and_ledger_credit_once(fixture: Fixture) {
    let (customer, booking) = stored_booking(&fixture, 1).await;
    let first = refund(&booking, 1, dec!(7.5), RefundDestination::Wallet, "k1");
    let after = commit_refund(&fixture, &booking, &first).await.unwrap();
    assert_eq!(after.refunded, dec!(7.5));
    assert_eq!(fixture.refund_by_key(&first.idempotency_key).await.unwrap(), Some(first.clone()));
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(7.5));
    // The ledger entry is the refund's: its key, its booking, its reason.
    let history = fixture.wallet_history(customer.id, &PageRequest::first(10)).await.unwrap().items;
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].idempotency_key, first.idempotency_key);
    assert_eq!(history[0].entry.txRef, format!("Refund:{}", booking.reference));
    assert_eq!(history[0].entry.description.as_deref(), Some("Long detour"));
    let ledger = fixture.booking_ledger(booking.id).await.unwrap();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].entry.description.as_deref(), Some("Long detour"));
    // The same key again writes nothing: not the booking, not the ledger.
    let again = refund(&booking, 2, dec!(7.5), RefundDestination::Wallet, "k1");
    assert!(matches!(commit_refund(&fixture, &after, &again).await, Err(StorageError::Duplicate(_))));
    let stored = fixture.booking(booking.id).await.unwrap();
    assert_eq!((stored.refunded, stored.version), (dec!(7.5), after.version));
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(7.5));
    assert_eq!(fixture.booking_refunds(booking.id).await.unwrap(), vec![first]);
    assert!(fixture.audit().await.unwrap().wallet_mismatches.is_empty());
}

async fn a_failed_gateway_refund_is_kept_and_a_retry_makes_it_done(fixture: Fixture) {
    let (customer, booking) = stored_booking(&fixture, 2).await;
    let attempt = refund(&booking, 1, dec!(5), RefundDestination::Gateway, "card-1");
    let failed = Refund { status: RefundStatus::Failed, ..attempt.clone() };
    fixture.record_failed_refund(&failed, NOW + 1).await.unwrap();
    // Declined twice: still one row.
    fixture.record_failed_refund(&failed, NOW + 2).await.unwrap();
    assert_eq!(fixture.booking_refunds(booking.id).await.unwrap(), vec![failed.clone()]);
    assert_eq!(fixture.refunded_by_booking(booking.id).await.unwrap(), RefundSums::default());
    assert!(matches!(fixture.record_failed_refund(&attempt, NOW).await, Err(StorageError::Invalid("status"))));
    // The retry the gateway took: the row is done, the booking counts it, no ledger entry.
    let done = Refund { gateway_ref: Some("test-refund-1".into()), ..attempt };
    let after = commit_refund(&fixture, &booking, &done).await.unwrap();
    assert_eq!(after.refunded, dec!(5));
    let stored = fixture.refund_by_key(&done.idempotency_key).await.unwrap().unwrap();
    assert_eq!((stored.status, stored.gateway_ref.as_deref()), (RefundStatus::Done, Some("test-refund-1")));
    assert_eq!(fixture.booking_refunds(booking.id).await.unwrap().len(), 1);
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), Decimal::ZERO);
    // A failure reported late never undoes a done refund.
    fixture.record_failed_refund(&failed, NOW + 3).await.unwrap();
    assert_eq!(fixture.refund_by_key(&done.idempotency_key).await.unwrap().unwrap().status, RefundStatus::Done);
}

async fn refunds_are_summed_per_booking_and_per_payment(fixture: Fixture) {
    let (_, booking) = stored_booking(&fixture, 3).await;
    let card = payment(1, &booking);
    fixture.insert_payment(&card).await.unwrap();
    assert_eq!(fixture.booking_payment(booking.id).await.unwrap(), None, "a pending payment paid nothing");
    fixture.settle_payment(card.id, PaymentStatus::Paid, Some("evt"), NOW).await.unwrap();
    let paid = fixture.booking_payment(booking.id).await.unwrap().unwrap();
    assert_eq!((paid.id, paid.status), (card.id, PaymentStatus::Paid));

    let to_card = Refund { payment: Some(card.id), ..refund(&booking, 1, dec!(4), RefundDestination::Gateway, "a") };
    let to_wallet =
        Refund { payment: Some(card.id), ..refund(&booking, 2, dec!(3.25), RefundDestination::Wallet, "b") };
    let after = commit_refund(&fixture, &booking, &to_card).await.unwrap();
    commit_refund(&fixture, &after, &to_wallet).await.unwrap();
    let failed = Refund {
        status: RefundStatus::Failed,
        payment: Some(card.id),
        ..refund(&booking, 3, dec!(9), RefundDestination::Gateway, "c")
    };
    fixture.record_failed_refund(&failed, NOW).await.unwrap();

    let by_booking = fixture.refunded_by_booking(booking.id).await.unwrap();
    assert_eq!(by_booking, RefundSums { gateway: dec!(4), wallet: dec!(3.25) });
    assert_eq!(by_booking.total(), dec!(7.25));
    assert_eq!(fixture.booking(booking.id).await.unwrap().refunded, by_booking.total());
    assert_eq!(fixture.refunded_by_payment(card.id).await.unwrap(), by_booking);
    assert_eq!(fixture.refunded_by_payment(Uuid::from_u128(404)).await.unwrap(), RefundSums::default());
    let listed: Vec<Decimal> =
        fixture.booking_refunds(booking.id).await.unwrap().iter().map(|refund| refund.amount).collect();
    assert_eq!(listed, [dec!(4), dec!(3.25), dec!(9)], "oldest first, failed ones too");
}

async fn a_noted_entry_keeps_its_reason_and_an_expected_balance_pins_it(fixture: Fixture) {
    let customer = rider(4);
    fixture.insert_user(&customer).await.unwrap();
    let change = |entry_type: WalletEntryType, amount: Decimal, key: &str| WalletChange {
        user: customer.id,
        entry_type,
        amount,
        tx_ref: "AdminAdjust".into(),
        idempotency_key: key.into(),
        overdraw: true,
    };
    let credit = change(WalletEntryType::Credit, dec!(30), "adjust-1");
    let outcome = fixture.apply_wallet_noted(&credit, Some("Opening balance"), Some(dec!(0)), NOW).await.unwrap();
    assert_eq!((outcome.applied, outcome.balance), (true, dec!(30)));
    let stored = fixture.wallet_entry(customer.id, "adjust-1").await.unwrap().unwrap();
    assert_eq!(stored.entry.description.as_deref(), Some("Opening balance"));
    assert_eq!(fixture.wallet_entry(customer.id, "adjust-404").await.unwrap(), None);
    // The balance moved since it was read: nothing is written.
    let stale = change(WalletEntryType::Debit, dec!(10), "adjust-2");
    assert!(matches!(
        fixture.apply_wallet_noted(&stale, Some("Stale"), Some(dec!(25)), NOW + 1).await,
        Err(StorageError::Conflict)
    ));
    assert_eq!(fixture.wallet_entry(customer.id, "adjust-2").await.unwrap(), None);
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(30));
    // A repeat of an applied key changes nothing, whatever balance it expects.
    let repeat = fixture.apply_wallet_noted(&credit, Some("Opening balance"), Some(dec!(30)), NOW + 2).await.unwrap();
    assert_eq!((repeat.applied, repeat.balance), (false, dec!(30)));
    // A debit that may not overdraw stops at zero, noted or not.
    let too_much = WalletChange { overdraw: false, ..change(WalletEntryType::Debit, dec!(31), "debit-1") };
    assert!(matches!(
        fixture.apply_wallet_noted(&too_much, Some("Too much"), None, NOW + 3).await,
        Err(StorageError::InsufficientBalance)
    ));
    let debit = WalletChange { overdraw: false, ..change(WalletEntryType::Debit, dec!(12.5), "debit-2") };
    assert_eq!(fixture.apply_wallet_noted(&debit, Some("Damage"), None, NOW + 4).await.unwrap().balance, dec!(17.5));
    let history = fixture.wallet_history(customer.id, &PageRequest::first(10)).await.unwrap().items;
    let descriptions: Vec<Option<&str>> = history.iter().map(|record| record.entry.description.as_deref()).collect();
    assert_eq!(descriptions, [Some("Damage"), Some("Opening balance")]);
    // An entry without a description leaves it out of the JSON.
    let plain = WalletChange { idempotency_key: "plain".into(), ..credit };
    fixture.apply_wallet(&plain, NOW + 5).await.unwrap();
    let newest = &fixture.wallet_history(customer.id, &PageRequest::first(1)).await.unwrap().items[0];
    assert!(serde_json::to_value(newest).unwrap().get("description").is_none());
    assert!(fixture.audit().await.unwrap().wallet_mismatches.is_empty());
}
