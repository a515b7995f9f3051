//! Bookings in every status. Finished ones (COMPLETE, CANCELLED) come over
//! as history; active ones get the timers Wayfare would have set, counted
//! from their original times, so a booking nobody took is given up on and a
//! paid one completes. Statuses of older versions are mapped.
//!
//! A booking whose rider or driver is not in the export (the account was
//! deleted) keeps their id as a reference, as Wayfare keeps it when an
//! account is deleted, so earnings and history stay whole; a trip still
//! under way with such a party cannot go on and is cancelled by the system.

use super::read::{self, Record, children, float_of, millis_of, text_of};
use super::types::{BookingRef, Context, ImportedRecord, Mapped};
use crate::booking::{AUTO_CANCEL_AFTER_MS, BOOK_LATER_DISPATCH_BEFORE_MS, PAYMENT_REMINDER_AFTER_MS};
use crate::ids::{BookingId, UserId};
use crate::model::{
    AmountType, AppCategory, Booking, BookingStatus, CancelledBy, Coord, DispatchState, LatLng, Millis, Otp,
    PaymentMode, Place, PricedChoice, PromoDetails, RequestedDrivers, Role, TimerKind, Timers,
};
use crate::money;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

const NODE: &str = "bookings";

/// Why the system cancelled an imported trip that cannot go on.
pub const REASON_PARTY_MISSING: &str = "Cancelled at import: the rider's or driver's account no longer exists";
pub const REASON_SECOND_TRIP: &str = "Cancelled at import: the driver was on another trip";

/// The Wayfare status of an original status, and whether it was a legacy
/// spelling. `None` for a status no version of the original wrote.
pub fn map_status(text: &str) -> Option<(BookingStatus, bool)> {
    let upper = text.trim().to_uppercase().replace([' ', '-'], "_");
    if let Some(status) = BookingStatus::parse(&upper) {
        return Some((status, upper != text));
    }
    let legacy = match upper.as_str() {
        "COMPLETED" | "FINISHED" | "DONE" => BookingStatus::Complete,
        "CANCELED" | "REJECTED" | "EXPIRED" | "TIMEOUT" | "CANCELLED_BY_CUSTOMER" | "CANCELLED_BY_DRIVER" => {
            BookingStatus::Cancelled
        }
        "START" | "ONGOING" | "IN_PROGRESS" => BookingStatus::Started,
        "END" | "ENDED" => BookingStatus::Reached,
        "ARRIVING" => BookingStatus::Arrived,
        "PAYMENTPENDING" | "AWAITING_PAYMENT" => BookingStatus::PaymentPending,
        _ => return None,
    };
    Some((legacy, true))
}

fn place_of(value: &Value) -> Option<Place> {
    let fields = value.as_object()?;
    let coordinate = |field: &str| fields.get(field).and_then(|value| float_of(value).ok().flatten());
    let point = LatLng::new(coordinate("lat")?, coordinate("lng")?);
    if !point.is_valid() {
        return None;
    }
    let add = ["add", "description", "address"]
        .iter()
        .find_map(|field| fields.get(*field).and_then(|value| text_of(value).ok().flatten()))
        .unwrap_or_default();
    Some(Place { lat: point.lat, lng: point.lng, add })
}

fn coord_of(value: &Value) -> Option<Coord> {
    let fields = value.as_object()?;
    let coordinate = |names: [&str; 2]| {
        names.iter().find_map(|field| fields.get(*field).and_then(|value| float_of(value).ok().flatten()))
    };
    let coord = Coord { latitude: coordinate(["latitude", "lat"])?, longitude: coordinate(["longitude", "lng"])? };
    LatLng::new(coord.latitude, coord.longitude).is_valid().then_some(coord)
}

fn choice_of(value: &Value, decimals: u32) -> Option<PricedChoice> {
    let fields = value.as_object()?;
    let description = fields.get("description").and_then(|value| text_of(value).ok().flatten())?;
    let amount = fields.get("amount").and_then(|value| read::decimal_of(value).ok().flatten()).unwrap_or_default();
    Some(PricedChoice { description, amount: money::round(amount, decimals) })
}

/// A clock time such as `10:4:59` (what the original writes in
/// `trip_start_time`) is left aside; milliseconds are read.
fn instant(record: &mut Record, field: &str) -> Option<Millis> {
    match record.peek(field).map(millis_of) {
        Some(Ok(Some(_))) => record.millis(field),
        _ => None,
    }
}

/// When the winning driver accepted: the booking's ACCEPTED tracking point.
fn accepted_at(context: &Context, key: &str) -> Option<Millis> {
    let points = context.node("tracking")?.get(key)?;
    read::list_of(points).into_iter().find_map(|point| {
        let fields = point.as_object()?;
        let status = fields.get("status").and_then(|value| text_of(value).ok().flatten())?;
        (map_status(&status)?.0 == BookingStatus::Accepted)
            .then(|| fields.get("at").and_then(|value| millis_of(value).ok().flatten()))
            .flatten()
    })
}

/// A party of a booking: the user's id when they are in the export, else
/// the id their key would have had (the reference is kept), and whether
/// they are there.
fn party(context: &Context, key: &str) -> (UserId, bool) {
    match context.user(key) {
        Some(user) => (user.id, true),
        None => (UserId(super::ids::original_id("users", key)), false),
    }
}

/// Cancels an imported trip that cannot go on, by the system.
fn cancel(booking: &mut Booking, reason: &str) {
    booking.status = BookingStatus::Cancelled;
    booking.cancelledBy = Some(CancelledBy::System);
    booking.reason = reason.to_string();
    booking.requestedDrivers = RequestedDrivers::default();
    booking.timers = Timers::default();
    booking.searchingSince = None;
}

/// The timers Wayfare keeps for a booking in this status, from its own
/// times where the rule counts from them (a Book Now booking gives up
/// `noDriverCancelMinutes` after it was made), else from the import.
pub(super) fn arm_timers(booking: &mut Booking, settings: &crate::model::Settings, now: Millis) {
    booking.timers = Timers::default();
    booking.searchingSince = None;
    match booking.status {
        BookingStatus::PaymentPending => {
            booking.timers.set(TimerKind::AutoCancel, booking.tripdate + AUTO_CANCEL_AFTER_MS);
        }
        BookingStatus::New => {
            let give_up = if booking.bookLater {
                booking.tripdate + AUTO_CANCEL_AFTER_MS
            } else {
                booking.bookingDate + settings.no_driver_cancel_ms()
            };
            booking.timers.set(TimerKind::AutoCancel, give_up);
            let dispatch_at = booking.tripdate - BOOK_LATER_DISPATCH_BEFORE_MS;
            if !booking.bookLater || dispatch_at <= now {
                booking.searchingSince = Some(if booking.bookLater { dispatch_at } else { booking.bookingDate });
            }
            if settings.autoDispatch {
                if booking.bookLater && dispatch_at > now {
                    booking.timers.set(TimerKind::BookLaterDispatch, dispatch_at);
                } else {
                    booking.timers.set(TimerKind::DispatchRetry, now);
                }
            }
        }
        BookingStatus::Pending => {
            booking.timers.set(TimerKind::PaymentReminder, now + PAYMENT_REMINDER_AFTER_MS);
        }
        BookingStatus::Paid => {
            booking.timers.set(TimerKind::AutoComplete, now + settings.auto_complete_ms());
        }
        _ => {}
    }
}

pub(super) fn map(context: &mut Context, mapped: &mut Mapped) {
    let Some(value) = context.node(NODE) else { return };
    let mut promo_uses = BTreeSet::new();
    for (key, item) in children(value) {
        mapped.report.read(NODE);
        let path = format!("{NODE}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(NODE, path, "not an object");
            continue;
        };
        let booking = match booking(context, &key, &mut record, mapped) {
            Ok(booking) => booking,
            Err((field, reason)) => {
                mapped.report.skip(NODE, format!("{path}/{field}"), reason);
                continue;
            }
        };
        if booking.promo_applied
            && let Some(details) = &booking.promo_details
        {
            promo_uses.insert((details.promo_name.clone(), booking.customer));
        }
        let extra = record.finish(NODE, &mut mapped.report);
        mapped.report.imported(NODE);
        mapped.records.push(ImportedRecord { node: NODE.into(), key: key.clone(), entity: Some(booking.id.0), extra });
        context.bookings.insert(
            key,
            BookingRef {
                id: booking.id,
                reference: booking.reference.clone(),
                customer: booking.customer,
                driver: booking.driver,
                fleetadmin: booking.fleetadmin,
                customer_name: booking.customer_name.clone(),
                driver_name: booking.driver_name.clone(),
                pickup: booking.pickup.point(),
                finished: !booking.status.is_active(),
            },
        );
        mapped.bookings.push(booking);
    }
    one_trip_per_driver(context, mapped);
    mapped.promo_uses = promo_uses.into_iter().collect();
}

/// A driver holds one trip at a time in Wayfare: when the export has a
/// driver on several (ACCEPTED to REACHED), the latest stays and the others
/// are cancelled by the system.
fn one_trip_per_driver(context: &Context, mapped: &mut Mapped) {
    let holding = [BookingStatus::Accepted, BookingStatus::Arrived, BookingStatus::Started, BookingStatus::Reached];
    let mut by_driver: BTreeMap<UserId, Vec<usize>> = BTreeMap::new();
    for (index, booking) in mapped.bookings.iter().enumerate() {
        if let (Some(driver), true) = (booking.driver, holding.contains(&booking.status)) {
            by_driver.entry(driver).or_default().push(index);
        }
    }
    for (_, mut trips) in by_driver.into_iter().filter(|(_, trips)| trips.len() > 1) {
        trips.sort_by_key(|index| (mapped.bookings[*index].tripdate, mapped.bookings[*index].id));
        trips.pop();
        for index in trips {
            let booking = &mut mapped.bookings[index];
            cancel(booking, REASON_SECOND_TRIP);
            let key = context.bookings.iter().find(|(_, other)| other.id == booking.id).map(|(key, _)| key.clone());
            mapped.report.adjust("second_trip_of_a_driver_cancelled", format!("{NODE}/{}", key.unwrap_or_default()));
        }
    }
}

type Refusal = (&'static str, String);

fn booking(context: &Context, key: &str, record: &mut Record, mapped: &mut Mapped) -> Result<Booking, Refusal> {
    let decimals = context.decimals;
    let path = record.path.clone();
    let status_text = record.text("status").ok_or(("status", "a booking needs a status".to_string()))?;
    let (status, legacy) = map_status(&status_text).ok_or(("status", format!("unknown status {status_text:?}")))?;
    if legacy {
        mapped.report.adjust("legacy_status_mapped", format!("{path}/status: {status_text} → {}", status.as_str()));
    }
    let customer_key = record.text("customer").ok_or(("customer", "a booking needs a rider".to_string()))?;
    let (customer, customer_here) = party(context, &customer_key);
    if !customer_here {
        mapped.report.adjust("rider_not_in_export_kept_as_reference", format!("{path}/customer"));
    }
    let pickup = record.value("pickup").and_then(place_of).ok_or(("pickup", "no pickup coordinates".to_string()))?;
    let drop = record.value("drop").and_then(place_of).ok_or(("drop", "no drop coordinates".to_string()))?;
    let trip_date = record.millis("tripdate");
    let booking_date = record.millis("bookingDate");
    let (Some(tripdate), Some(booking_date)) = (trip_date.or(booking_date), booking_date.or(trip_date)) else {
        return Err(("tripdate", "no trip date nor booking date".to_string()));
    };
    let driver_key = record.text("driver");
    let driver = driver_key.as_deref().map(|driver| party(context, driver));
    let needs_driver = matches!(status, BookingStatus::Paid | BookingStatus::Complete);
    if needs_driver && driver.is_none() {
        return Err(("driver", format!("a {} trip without a driver", status.as_str())));
    }
    let trip_cost = record.money("trip_cost", decimals);
    let discount_amount = record.money("discount_amount", decimals);
    let mut booking = Booking {
        id: BookingId(super::ids::original_id(NODE, key)),
        version: 0,
        reference: record.text("reference").unwrap_or_else(|| {
            mapped.report.adjust("reference_made", format!("{path}/reference"));
            made_reference(key)
        }),
        appcat: context.settings.appcat,
        carType: record.text_or_empty("carType"),
        carImage: record.text_or_empty("carImage"),
        customer,
        customer_name: record.text_or_empty("customer_name"),
        customer_contact: record.text_or_empty("customer_contact"),
        customer_email: record.text_or_empty("customer_email"),
        customer_token: record.text_or_empty("customer_token"),
        customer_image: record.text_or_empty("customer_image"),
        pickupAddress: record.text("pickupAddress").unwrap_or_else(|| pickup.add.clone()),
        dropAddress: record.text("dropAddress").unwrap_or_else(|| drop.add.clone()),
        pickup,
        drop,
        actualDrop: None,
        estimate: record.money("estimate", decimals),
        estimateDistance: record.float("estimateDistance").unwrap_or_default(),
        distance: record.float("distance").unwrap_or_default(),
        estimateTime: record.count("estimateTime").unwrap_or_default(),
        status,
        bookLater: record.flag("bookLater").unwrap_or(false),
        tripdate,
        bookingDate: booking_date,
        otp: Otp(record.count("otp").filter(|code| *code > 0 && *code <= u64::from(u32::MAX)).map(|code| code as u32)),
        booking_type_admin: record.flag("booking_type_admin").unwrap_or(false),
        coords: record.list("coords").into_iter().filter_map(coord_of).collect(),
        waypoints: record.list("waypoints").into_iter().filter_map(place_of).collect(),
        trip_cost,
        convenience_fees: record.money("convenience_fees", decimals),
        driver_share: record.money("driver_share", decimals),
        paymentPacket: record.typed("paymentPacket"),
        requestedDrivers: RequestedDrivers::default(),
        driver: None,
        driver_image: record.text_or_empty("driver_image"),
        driver_name: record.text_or_empty("driver_name"),
        driver_contact: record.text_or_empty("driver_contact"),
        driver_token: record.text_or_empty("driver_token"),
        driverRating: record.decimal("driverRating").map(|rating| money::round(rating, 1)).unwrap_or_default(),
        vehicle_number: record.text_or_empty("vehicle_number"),
        fleetadmin: None,
        discount_amount,
        discount: record.money("discount", decimals),
        cashPaymentAmount: record.money("cashPaymentAmount", decimals),
        cardPaymentAmount: record.money("cardPaymentAmount", decimals),
        usedWalletMoney: record.money("usedWalletMoney", decimals),
        payableAmount: record.decimal("payableAmount").map_or(trip_cost, |amount| money::round(amount, decimals)),
        customer_paid: record.money("customer_paid", decimals),
        cancellationFee: record.money("cancellationFee", decimals),
        cancellationFeeOwed: Default::default(),
        refunded: Default::default(),
        reason: record.text_or_empty("reason"),
        cancelledBy: None,
        rating: record.count("rating").filter(|rating| (1..=5).contains(rating)).map(|rating| rating as u8),
        payment_mode: None,
        gateway: record.text("gateway"),
        prepaid: record.flag("prepaid").unwrap_or(false),
        promo_applied: record.flag("promo_applied").unwrap_or(false),
        promo_details: None,
        acceptedAt: accepted_at(context, key),
        driver_arrive_time: instant(record, "driver_arrive_time"),
        trip_start_time: instant(record, "trip_start_time"),
        startTime: record.millis("startTime"),
        trip_end_time: instant(record, "trip_end_time"),
        endTime: record.millis("endTime"),
        total_trip_time: record.count("total_trip_time").unwrap_or_default(),
        pickup_image: record.text("pickup_image"),
        deliver_image: record.text("deliver_image"),
        parcelTypeSelected: record.value("parcelTypeSelected").and_then(|value| choice_of(value, decimals)),
        optionSelected: record.value("optionSelected").and_then(|value| choice_of(value, decimals)),
        parcelTypeIndex: record.count("parcelTypeIndex").map(|index| index as usize),
        optionIndex: record.count("optionIndex").map(|index| index as usize),
        deliveryPerson: record.text_or_empty("deliveryPerson"),
        deliveryPersonPhone: record.text_or_empty("deliveryPersonPhone"),
        pickUpInstructions: record.text_or_empty("pickUpInstructions"),
        deliveryInstructions: record.text_or_empty("deliveryInstructions"),
        searchingSince: None,
        demo: false,
        dispatch: DispatchState::default(),
        timers: Timers::default(),
        updatedAt: context.options.now,
    };
    record.skip(&["id", "key"]);
    if booking.trip_start_time.is_none() {
        booking.trip_start_time = booking.startTime;
    }
    if booking.trip_end_time.is_none() {
        booking.trip_end_time = booking.endTime;
    }
    if booking.parcelTypeSelected.is_some() || !booking.deliveryPerson.is_empty() {
        booking.appcat = AppCategory::Delivery;
    }
    booking.payment_mode = match record.text("payment_mode").map(|mode| mode.to_lowercase()).as_deref() {
        None => None,
        Some("cash") => Some(PaymentMode::Cash),
        Some("wallet") => Some(PaymentMode::Wallet),
        Some("card") => Some(PaymentMode::Card),
        Some(_) => {
            mapped.report.adjust("payment_mode_read_as_card", format!("{path}/payment_mode"));
            Some(PaymentMode::Card)
        }
    };
    booking.cancelledBy = match record.text("cancelledBy").map(|by| by.to_lowercase()).as_deref() {
        None => None,
        Some("customer") | Some("rider") => Some(CancelledBy::Rider),
        Some("driver") => Some(CancelledBy::Driver),
        Some("admin") => Some(CancelledBy::Admin),
        Some("fleetadmin") => Some(CancelledBy::Fleetadmin),
        Some(_) => Some(CancelledBy::System),
    };
    booking.promo_details = record.object("promo_details").and_then(|details| promo_details(context, details));
    if let Some(owner) = record.text("fleetadmin") {
        match context.user(&owner) {
            Some(fleet) if fleet.role == Role::Fleetadmin => booking.fleetadmin = Some(fleet.id),
            _ => mapped.report.adjust("fleet_admin_not_in_export_dropped", format!("{path}/fleetadmin")),
        }
    }
    // Offers: only a NEW booking holds them, and only to drivers in the export.
    let offered: Vec<String> = record
        .object("requestedDrivers")
        .map(|drivers| {
            drivers
                .iter()
                .filter(|(_, on)| read::flag_of(on).ok().flatten() != Some(false))
                .map(|(driver, _)| driver.clone())
                .collect()
        })
        .unwrap_or_default();
    for driver_key in offered {
        match context.user(&driver_key) {
            Some(driver) if driver.role == Role::Driver && status == BookingStatus::New => {
                booking.requestedDrivers.0.insert(driver.id);
            }
            Some(_) if status != BookingStatus::New => mapped
                .report
                .adjust("offer_on_a_booking_no_longer_new_dropped", format!("{path}/requestedDrivers/{driver_key}")),
            _ => mapped
                .report
                .adjust("offer_to_a_driver_not_in_export_dropped", format!("{path}/requestedDrivers/{driver_key}")),
        }
    }
    arm_timers(&mut booking, &context.settings, context.options.now);
    if let Some((driver, here)) = driver {
        if status.is_active() && matches!(status, BookingStatus::New | BookingStatus::PaymentPending) {
            // Not assigned yet: a driver field on a waiting booking is stale.
            if !here {
                mapped.report.adjust("driver_not_in_export_dropped", format!("{path}/driver"));
            } else {
                booking.driver = Some(driver);
            }
        } else {
            booking.driver = Some(driver);
            if !here {
                mapped.report.adjust("driver_not_in_export_kept_as_reference", format!("{path}/driver"));
            }
        }
    }
    // A booking waiting for a driver needs its rider; a trip under way needs
    // both parties. Without them it cannot go on.
    let waiting = matches!(status, BookingStatus::New | BookingStatus::PaymentPending);
    let under_way = matches!(
        status,
        BookingStatus::Accepted
            | BookingStatus::Arrived
            | BookingStatus::Started
            | BookingStatus::Reached
            | BookingStatus::Pending
    );
    let party_missing = !customer_here || (under_way && driver.is_none_or(|(_, here)| !here));
    if (waiting || under_way) && party_missing {
        cancel(&mut booking, REASON_PARTY_MISSING);
        mapped.report.adjust("trip_of_a_missing_party_cancelled", path.clone());
    }
    Ok(booking)
}

/// What a booking's promo promised, by the promo's Wayfare name.
fn promo_details(context: &Context, details: &Map<String, Value>) -> Option<PromoDetails> {
    let text = |field: &str| details.get(field).and_then(|value| text_of(value).ok().flatten());
    let amount = |field: &str| details.get(field).and_then(|value| read::decimal_of(value).ok().flatten());
    let original = text("promo_code").or_else(|| text("promo_name"))?;
    let name = context
        .promo_names
        .get(&original)
        .cloned()
        .unwrap_or_else(|| super::catalogue::promo_code(text("promo_code").as_deref(), &original));
    Some(PromoDetails {
        promo_name: name,
        promo_discount_type: match text("promo_discount_type").map(|kind| kind.to_lowercase()).as_deref() {
            Some("percentage") => AmountType::Percentage,
            _ => AmountType::Flat,
        },
        promo_discount_value: amount("promo_discount_value").unwrap_or_default(),
        max_promo_discount_value: amount("max_promo_discount_value").unwrap_or_default(),
    })
}

/// A deterministic 6-letter reference for a booking that has none.
fn made_reference(key: &str) -> String {
    let seed = super::ids::original_id("reference", key).as_u128();
    (0..6).map(|index| char::from(b'A' + ((seed >> (index * 5)) % 26) as u8)).collect()
}
