//! Users: riders (the original's `customer`), drivers with their vehicle,
//! fleet admins with their drivers, and admins; with what other nodes keep
//! about them (`userRatings`, `savedAddresses`, `locations`, `cars`,
//! `userNotifications`).
//!
//! People sign in to Wayfare with their e-mail or mobile, so those are
//! stored as sign-in compares them (e-mail in lower case, the phone's digits
//! with its `+`). Each must be unique: a contact that another record of the
//! export already holds is cleared (the first record keeps it), and a record
//! whose contact a Wayfare user already has becomes that user.

use super::read::{self, Record, children, count_of, float_of, text_of};
use super::types::{Context, ImportedRecord, Mapped, UserRef};
use crate::ids::UserId;
use crate::model::{
    BookingStatus, LatLng, RatingDetail, Ratings, RegType, Role, SavedAddress, User, UserLang, UserPlatform,
};
use crate::money;
use crate::rules::contact::{proper_phone, validate_email};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const NODE: &str = "users";

/// The role of the original's `usertype`.
fn role_of(usertype: Option<&str>) -> Result<Option<Role>, ()> {
    match usertype.map(str::to_lowercase).as_deref() {
        None => Ok(None),
        Some(text) => Role::parse(text).map(Some).map_err(|_| ()),
    }
}

/// A deterministic referral code for a user who has none: five capital
/// letters from the key, then the next free one.
fn made_referral(key: &str, taken: &impl Fn(&str) -> bool) -> String {
    let mut seed = super::ids::original_id("referral", key).as_u128();
    loop {
        let code: String = (0..5).map(|index| char::from(b'A' + ((seed >> (index * 5)) % 26) as u8)).collect();
        if !taken(&code) {
            return code;
        }
        seed = seed.rotate_left(7).wrapping_add(1);
    }
}

/// Who a user is before the rest of the record is read: the id (their own,
/// or the Wayfare user's whose contact they share), role and contacts.
struct Identity {
    id: UserId,
    role: Role,
    email: String,
    mobile: String,
    referral: String,
}

/// First pass: ids, roles and unique contacts of every user, so the second
/// pass (and the bookings) can resolve any reference.
fn identities(context: &Context, value: &Value, mapped: &mut Mapped) -> BTreeMap<String, Identity> {
    let existing = context.existing;
    let mut identities: BTreeMap<String, Identity> = BTreeMap::new();
    let (mut emails, mut mobiles, mut referrals) = (HashMap::new(), HashMap::new(), HashMap::new());
    for (key, item) in children(value) {
        let path = format!("{NODE}/{key}");
        let Some(fields) = item.as_object() else { continue };
        let text = |field: &str| fields.get(field).and_then(|value| text_of(value).ok().flatten());
        let role = match role_of(text("usertype").as_deref()) {
            Ok(Some(role)) => role,
            Ok(None) => {
                mapped.report.adjust("user_without_usertype_made_rider", format!("{path}/usertype"));
                Role::Rider
            }
            Err(()) => continue,
        };
        let mut email = text("email").unwrap_or_default();
        if !email.is_empty() {
            match validate_email(&email) {
                Ok(valid) => email = valid,
                Err(_) => mapped.report.adjust("email_not_valid_kept_as_is", format!("{path}/email")),
            }
        }
        let mut mobile = text("mobile").unwrap_or_default();
        if !mobile.is_empty() {
            match proper_phone(&mobile) {
                Some(phone) => mobile = phone,
                None => mapped.report.adjust("mobile_not_valid_kept_as_is", format!("{path}/mobile")),
            }
        }
        let mut id = UserId(super::ids::original_id(NODE, &key));
        let by_email = (!email.is_empty()).then(|| existing.users_by_email.get(&email)).flatten();
        let by_mobile = (!mobile.is_empty()).then(|| existing.users_by_mobile.get(&mobile)).flatten();
        if let Some(other) = by_email.or(by_mobile) {
            if *other != id {
                mapped.report.adjust("same_contact_as_a_wayfare_user_merged", path.clone());
            }
            id = *other;
        }
        // A contact taken by another Wayfare user, or by an earlier record.
        if by_mobile.is_some_and(|other| *other != id) || mobiles.contains_key(&mobile) {
            mapped.report.adjust("mobile_taken_cleared", format!("{path}/mobile"));
            mobile.clear();
        }
        if by_email.is_some_and(|other| *other != id) || emails.contains_key(&email) {
            mapped.report.adjust("email_taken_cleared", format!("{path}/email"));
            email.clear();
        }
        let mut referral = text("referralId").unwrap_or_default();
        let referral_taken = |code: &str| {
            referrals.contains_key(code) || existing.users_by_referral.get(code).is_some_and(|other| *other != id)
        };
        if !referral.is_empty() && referral_taken(&referral) {
            mapped.report.adjust("referral_code_taken_replaced", format!("{path}/referralId"));
            referral.clear();
        }
        if referral.is_empty() {
            referral = made_referral(&key, &|code| {
                referrals.contains_key(code) || existing.users_by_referral.get(code).is_some_and(|other| *other != id)
            });
        }
        for (seen, value) in [(&mut emails, &email), (&mut mobiles, &mobile), (&mut referrals, &referral)] {
            if !value.is_empty() {
                seen.insert(value.clone(), key.clone());
            }
        }
        identities.insert(key, Identity { id, role, email, mobile, referral });
    }
    identities
}

pub(super) fn map(context: &mut Context, mapped: &mut Mapped) {
    let Some(value) = context.node(NODE) else {
        keep_per_user_nodes(context, mapped);
        return;
    };
    let identities = identities(context, value, mapped);
    for (key, identity) in &identities {
        context
            .users
            .insert(key.clone(), UserRef { id: identity.id, role: identity.role, referral: identity.referral.clone() });
    }
    let ratings = ratings_by_user(context, mapped);
    let mut addresses = addresses_by_user(context, mapped);
    let mut positions = positions_by_user(context, mapped);
    let cars = cars_by_driver(context, mapped);
    let mut seen_ids = BTreeSet::new();
    for (key, item) in children(value) {
        mapped.report.read(NODE);
        let path = format!("{NODE}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(NODE, path, "not an object");
            continue;
        };
        let Some(identity) = identities.get(&key) else {
            let usertype = record.text("usertype").unwrap_or_default();
            mapped.report.skip(NODE, format!("{path}/usertype"), format!("unknown user type {usertype:?}"));
            continue;
        };
        if !seen_ids.insert(identity.id) {
            mapped.report.skip(NODE, path, "the same person as an earlier record (same e-mail or mobile)");
            continue;
        }
        record.skip(&["usertype", "email", "mobile", "referralId", "uid", "id"]);
        let mut user = User::new(identity.id, identity.role, record.millis("createdAt").unwrap_or_default());
        user.email = identity.email.clone();
        user.mobile = identity.mobile.clone();
        user.referralId = identity.referral.clone();
        user.firstName = record.text_or_empty("firstName");
        user.lastName = record.text_or_empty("lastName");
        user.regType = match record.text("regType").map(|text| text.to_lowercase()).as_deref() {
            Some("email") => RegType::Email,
            Some("mobile") => RegType::Mobile,
            Some("social") => RegType::Social,
            Some("admin") => RegType::Admin,
            Some("registration") => RegType::Registration,
            Some(_) | None if !user.email.is_empty() && user.mobile.is_empty() => RegType::Email,
            _ => RegType::Mobile,
        };
        user.signupViaReferral = record.text("signupViaReferral").map(|referrer| {
            // The original keeps the referrer's uid; Wayfare the code they used.
            context.user(&referrer).map_or(referrer, |referrer| referrer.referral.clone())
        });
        user.approved = record.flag("approved").unwrap_or(match identity.role {
            Role::Driver => !context.settings.driver_approval,
            _ => true,
        });
        user.walletBalance = record.money("walletBalance", context.decimals);
        user.profile_image = record.text("profile_image");
        user.licenseImage = record.text("licenseImage");
        user.pushToken = record.text("pushToken");
        user.userPlatform = match record.text("userPlatform").map(|text| text.to_uppercase()).as_deref() {
            Some("IOS") => UserPlatform::Ios,
            Some("ANDROID") => UserPlatform::Android,
            _ => UserPlatform::Web,
        };
        user.lang = record.object("lang").and_then(|lang| {
            let text = |field: &str| lang.get(field).and_then(|value| text_of(value).ok().flatten());
            let locale = text("langLocale")?;
            Some(UserLang { dateLocale: text("dateLocale").unwrap_or_else(|| locale.clone()), langLocale: locale })
        });
        user.bankName = record.text_or_empty("bankName");
        user.bankCode = record.text_or_empty("bankCode");
        user.bankAccount = record.text_or_empty("bankAccount");
        if let Some(owner) = record.text("fleetadmin") {
            match context.user(&owner) {
                Some(fleet) if fleet.role == Role::Fleetadmin && identity.role == Role::Driver => {
                    user.fleetadmin = Some(fleet.id)
                }
                _ => mapped.report.adjust("fleet_admin_not_in_export_dropped", format!("{path}/fleetadmin")),
            }
        }
        user.ratings = match (own_ratings(&mut record, context), ratings.get(&key)) {
            (Some(mut own), Some(more)) => {
                own.details.extend(more.details.iter().cloned());
                own.userrating = average(&own.details).unwrap_or(own.userrating);
                Some(own)
            }
            (own, more) => own.or_else(|| more.cloned()),
        };
        user.savedAddresses = record.list("savedAddresses").into_iter().filter_map(saved_address).collect();
        user.savedAddresses.extend(addresses.remove(&key).unwrap_or_default());
        user.location = record.object("location").and_then(point_of).or_else(|| positions.remove(&key));
        user.vehicleMake = record.text_or_empty("vehicleMake");
        user.vehicleModel = record.text_or_empty("vehicleModel");
        user.vehicleNumber = record.text_or_empty("vehicleNumber");
        user.vehicleColor = record.text_or_empty("vehicleColor");
        user.vehicleYear = record.text_or_empty("vehicleYear");
        user.other_info = record.text_or_empty("other_info");
        user.carType = record.text("carType");
        if let Some(car) = cars.get(&key) {
            fill_vehicle(&mut user, car);
        }
        if record.flag("driverActiveStatus") == Some(true) {
            // Nobody is driving for Wayfare yet: drivers go online themselves.
            mapped.report.adjust("driver_set_offline", path.clone());
        }
        record.skip(&["queue", "rating", "walletHistory"]);
        let extra = record.finish(NODE, &mut mapped.report);
        mapped.report.imported(NODE);
        mapped.records.push(ImportedRecord { node: NODE.into(), key: key.clone(), entity: Some(user.id.0), extra });
        mapped.users.push(user);
    }
    keep_per_user_nodes(context, mapped);
}

/// The average of ratings to one decimal, as the original and Wayfare show it.
fn average(details: &[RatingDetail]) -> Option<Decimal> {
    if details.is_empty() {
        return None;
    }
    let total: u64 = details.iter().map(|detail| u64::from(detail.rate)).sum();
    Some(money::round(Decimal::from(total) / Decimal::from(details.len() as u64), 1))
}

/// A rating of 1 to 5 by a user (a user not in the export keeps the id the
/// import gives their key, as a deleted account's would).
fn rating_detail(context: &Context, value: &Value) -> Option<RatingDetail> {
    let fields = value.as_object()?;
    let rate =
        fields.get("rate").and_then(|value| count_of(value).ok().flatten()).filter(|rate| (1..=5).contains(rate))?;
    let by = fields.get("user").and_then(|value| text_of(value).ok().flatten())?;
    let user = context.user(&by).map_or_else(|| UserId(super::ids::original_id(NODE, &by)), |user| user.id);
    Some(RatingDetail { user, rate: rate as u8 })
}

/// The ratings a user record holds itself: `ratings {userrating, details}`
/// (older versions) or only the average in `rating`.
fn own_ratings(record: &mut Record, context: &Context) -> Option<Ratings> {
    if let Some(ratings) = record.object("ratings") {
        let details: Vec<RatingDetail> = ratings
            .get("details")
            .map(read::list_of)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|detail| rating_detail(context, detail))
            .collect();
        let stored = ratings.get("userrating").and_then(|value| read::decimal_of(value).ok().flatten());
        let userrating = average(&details).or(stored).unwrap_or_default();
        return Some(Ratings { userrating: money::round(userrating, 1), details });
    }
    let rating = record.decimal("rating")?;
    Some(Ratings { userrating: money::round(rating, 1), details: Vec::new() })
}

/// `userRatings/{driver}/{key}`: `{user, rate, bookingId}`.
fn ratings_by_user(context: &Context, mapped: &mut Mapped) -> HashMap<String, Ratings> {
    let node = "userRatings";
    let mut by_user = HashMap::new();
    let Some(value) = context.node(node) else { return by_user };
    for (user_key, entries) in children(value) {
        let mut details = Vec::new();
        for (key, entry) in children(entries) {
            mapped.report.read(node);
            let path = format!("{node}/{user_key}/{key}");
            if context.user(&user_key).is_none() {
                mapped.report.skip(node, path, "the rated user is not in the export");
                continue;
            }
            match rating_detail(context, entry) {
                Some(detail) => {
                    mapped.report.imported(node);
                    details.push(detail);
                }
                None => mapped.report.skip(node, format!("{path}/rate"), "a rating needs a user and a rate of 1 to 5"),
            }
        }
        if let Some(userrating) = average(&details) {
            by_user.insert(user_key, Ratings { userrating, details });
        }
    }
    by_user
}

fn point_of(fields: &Map<String, Value>) -> Option<LatLng> {
    let coordinate = |field: &str| fields.get(field).and_then(|value| float_of(value).ok().flatten());
    let point = LatLng::new(coordinate("lat")?, coordinate("lng")?);
    point.is_valid().then_some(point)
}

fn saved_address(value: &Value) -> Option<SavedAddress> {
    let fields = value.as_object()?;
    let point = point_of(fields)?;
    let text = |field: &str| fields.get(field).and_then(|value| text_of(value).ok().flatten());
    let description = text("description").or_else(|| text("add")).or_else(|| text("name")).unwrap_or_default();
    let count = fields.get("count").and_then(|value| count_of(value).ok().flatten()).unwrap_or(1).max(1);
    Some(SavedAddress { description, lat: point.lat, lng: point.lng, count: count.min(u64::from(u32::MAX)) as u32 })
}

/// A saved address of the `savedAddresses` node: `{description, lat, lng,
/// count}`, or in newer clients `{description, lat, lng, name}`.
fn saved_address_of(record: &mut Record) -> Option<SavedAddress> {
    let point = LatLng::new(record.float("lat")?, record.float("lng")?);
    if !point.is_valid() {
        return None;
    }
    let description =
        record.text("description").or_else(|| record.text("add")).or_else(|| record.text("name")).unwrap_or_default();
    let count = record.count("count").unwrap_or(1).clamp(1, u64::from(u32::MAX)) as u32;
    Some(SavedAddress { description, lat: point.lat, lng: point.lng, count })
}

/// `savedAddresses/{uid}/{key}` (the newer versions' home of them).
fn addresses_by_user(context: &Context, mapped: &mut Mapped) -> HashMap<String, Vec<SavedAddress>> {
    let node = "savedAddresses";
    let mut by_user: HashMap<String, Vec<SavedAddress>> = HashMap::new();
    let Some(value) = context.node(node) else { return by_user };
    for (user_key, entries) in children(value) {
        for (key, entry) in children(entries) {
            mapped.report.read(node);
            let path = format!("{node}/{user_key}/{key}");
            let Some(user) = context.user(&user_key) else {
                mapped.report.skip(node, path, "the user is not in the export");
                continue;
            };
            let Some(mut record) = read::record(path.clone(), entry) else {
                mapped.report.skip(node, path, "not an object");
                continue;
            };
            match saved_address_of(&mut record) {
                Some(address) => {
                    // The newer clients' `name` (home, work or the rider's
                    // own) has no field in Wayfare: kept beside the user.
                    let extra = record.finish(node, &mut mapped.report);
                    mapped.report.imported(node);
                    mapped.records.push(ImportedRecord {
                        node: node.into(),
                        key: format!("{user_key}/{key}"),
                        entity: Some(user.id.0),
                        extra,
                    });
                    by_user.entry(user_key.clone()).or_default().push(address);
                }
                None => mapped.report.skip(node, path, "an address needs a latitude and a longitude"),
            }
        }
    }
    by_user
}

/// `locations/{uid}`: a driver's last position (newer versions).
fn positions_by_user(context: &Context, mapped: &mut Mapped) -> HashMap<String, LatLng> {
    let node = "locations";
    let mut by_user = HashMap::new();
    let Some(value) = context.node(node) else { return by_user };
    for (user_key, entry) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{user_key}");
        match (context.user(&user_key), entry.as_object().and_then(point_of)) {
            (Some(_), Some(point)) => {
                mapped.report.imported(node);
                by_user.insert(user_key, point);
            }
            (None, _) => mapped.report.skip(node, path, "the user is not in the export"),
            (_, None) => mapped.report.skip(node, path, "a position needs a latitude and a longitude"),
        }
    }
    by_user
}

/// A driver's car from `cars` (newer versions keep vehicles apart): the
/// active one, else the first. Every car is kept as it was.
fn cars_by_driver<'a>(context: &'a Context, mapped: &mut Mapped) -> HashMap<String, &'a Map<String, Value>> {
    let node = "cars";
    let mut by_driver: HashMap<String, &Map<String, Value>> = HashMap::new();
    let Some(value) = context.node(node) else { return by_driver };
    for (key, car) in children(value) {
        mapped.report.read(node);
        let Some(fields) = car.as_object() else {
            mapped.report.skip(node, format!("{node}/{key}"), "not an object");
            continue;
        };
        let driver_key = fields.get("driver").and_then(|value| text_of(value).ok().flatten());
        let driver = driver_key.as_deref().and_then(|driver| context.user(driver));
        mapped.report.kept(node);
        mapped.records.push(ImportedRecord {
            node: node.into(),
            key,
            entity: driver.map(|driver| driver.id.0),
            extra: fields.clone(),
        });
        if let Some(driver_key) = driver_key.filter(|_| driver.is_some()) {
            let active = fields.get("active").and_then(|value| read::flag_of(value).ok().flatten()).unwrap_or(false);
            if active || !by_driver.contains_key(&driver_key) {
                by_driver.insert(driver_key, fields);
            }
        }
    }
    by_driver
}

/// Fills the vehicle fields a driver record leaves empty from their car.
fn fill_vehicle(user: &mut User, car: &Map<String, Value>) {
    let text = |field: &str| car.get(field).and_then(|value| text_of(value).ok().flatten()).unwrap_or_default();
    for (slot, field) in [
        (&mut user.vehicleMake, "vehicleMake"),
        (&mut user.vehicleModel, "vehicleModel"),
        (&mut user.vehicleNumber, "vehicleNumber"),
        (&mut user.other_info, "other_info"),
    ] {
        if slot.is_empty() {
            *slot = text(field);
        }
    }
    if user.carType.is_none() {
        user.carType = Some(text("carType")).filter(|name| !name.is_empty());
    }
}

/// `userNotifications/{uid}/{key}`: the pushes a user was sent. Wayfare's
/// notices are not a stored inbox, so they are kept as they were.
fn keep_per_user_nodes(context: &Context, mapped: &mut Mapped) {
    let node = "userNotifications";
    let Some(value) = context.node(node) else { return };
    for (user_key, entries) in children(value) {
        let user = context.user(&user_key).map(|user| user.id.0);
        for (key, entry) in children(entries) {
            mapped.report.read(node);
            mapped.report.kept(node);
            let extra = entry.as_object().cloned().unwrap_or_default();
            mapped.records.push(ImportedRecord {
                node: node.into(),
                key: format!("{user_key}/{key}"),
                entity: user,
                extra,
            });
        }
    }
}

/// Drivers are busy (`queue`) exactly when they hold a trip (ACCEPTED to
/// REACHED), as Wayfare's audit expects; the original's flag is not trusted.
pub(super) fn settle_busy_flags(mapped: &mut Mapped) {
    let holding = [BookingStatus::Accepted, BookingStatus::Arrived, BookingStatus::Started, BookingStatus::Reached];
    let busy: BTreeSet<UserId> = mapped
        .bookings
        .iter()
        .filter(|booking| holding.contains(&booking.status))
        .filter_map(|booking| booking.driver)
        .collect();
    for user in &mut mapped.users {
        user.queue = user.usertype == Role::Driver && busy.contains(&user.id);
    }
}
