//! What hangs off a booking: its tracking points, its chat, SOS alerts
//! raised on it; and complaints, which Wayfare has no entity for and keeps
//! as they were.

use super::bookings::map_status;
use super::read::{self, children, float_of, millis_of, text_of};
use super::types::{BookingRef, Context, ImportedChat, ImportedPoint, ImportedRecord, Mapped};
use crate::ids::{SosId, UserId};
use crate::model::{ChatMessage, LatLng, Millis, Role, TrackingPoint};
use crate::sos::{SosAlert, SosRaiser};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Note of an alert the original had marked processed.
pub const NOTE_PROCESSED: &str = "Processed in the original product";

pub(super) fn map(context: &Context, mapped: &mut Mapped) {
    tracking(context, mapped);
    chats(context, mapped);
    sos(context, mapped);
    complaints(context, mapped);
}

fn point_of(fields: &Map<String, Value>) -> Option<(Millis, Option<String>, LatLng)> {
    let number = |field: &str| fields.get(field).and_then(|value| float_of(value).ok().flatten());
    let point = LatLng::new(number("lat")?, number("lng")?);
    let at = fields.get("at").and_then(|value| millis_of(value).ok().flatten())?;
    let status = fields.get("status").and_then(|value| text_of(value).ok().flatten());
    point.is_valid().then_some((at, status, point))
}

/// `tracking/{booking}/{key}`: `{at, status, lat, lng}`.
fn tracking(context: &Context, mapped: &mut Mapped) {
    let node = "tracking";
    let Some(value) = context.node(node) else { return };
    for (booking_key, points) in children(value) {
        let booking = context.bookings.get(&booking_key);
        for (key, point) in children(points) {
            mapped.report.read(node);
            let path = format!("{node}/{booking_key}/{key}");
            let Some(booking) = booking else {
                mapped.report.skip(node, path, "the booking is not in the export");
                continue;
            };
            let Some(fields) = point.as_object() else {
                mapped.report.skip(node, path, "not an object");
                continue;
            };
            let Some((at, status, position)) = point_of(fields) else {
                mapped.report.skip(node, path, "a tracking point needs at, lat and lng");
                continue;
            };
            let Some((status, _)) = status.as_deref().and_then(map_status) else {
                mapped.report.skip(node, format!("{path}/status"), "unknown status");
                continue;
            };
            for field in fields.keys().filter(|field| !["at", "status", "lat", "lng"].contains(&field.as_str())) {
                mapped.report.unknown_key(node, field);
            }
            mapped.report.imported(node);
            mapped.tracking.push(ImportedPoint {
                booking: booking.id,
                point: TrackingPoint { at, status, lat: position.lat, lng: position.lng },
            });
        }
    }
}

/// `MM:DD:YYYY` and `HH:MM` as the original writes a message's date and
/// time (the sender's local time, taken as UTC).
fn message_time(date: &str, time: &str) -> Option<Millis> {
    let mut date = date.split(':').map(|part| part.trim().parse::<u32>().ok());
    let (month, day, year) = (date.next()??, date.next()??, date.next()??);
    let mut time = time.split(':').map(|part| part.trim().parse::<u32>().ok());
    let (hour, minute) = (time.next()??, time.next()??);
    let day = chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    Some(day.and_hms_opt(hour, minute, 0)?.and_utc().timestamp_millis())
}

/// `chats/{booking}/messages/{customer,driver}/{key}` (older versions
/// without the middle level).
fn chats(context: &Context, mapped: &mut Mapped) {
    let node = "chats";
    let Some(value) = context.node(node) else { return };
    for (booking_key, chat) in children(value) {
        let booking = context.bookings.get(&booking_key);
        let messages = chat.get("messages").unwrap_or(chat);
        let mut found: Vec<(String, &Value)> = Vec::new();
        for (key, child) in children(messages) {
            if child.get("message").is_some() {
                found.push((key, child));
            } else {
                found.extend(children(child).into_iter().map(|(inner, message)| (format!("{key}/{inner}"), message)));
            }
        }
        for (key, message) in found {
            mapped.report.read(node);
            let path = format!("{node}/{booking_key}/messages/{key}");
            let Some(booking) = booking else {
                mapped.report.skip(node, path, "the booking is not in the export");
                continue;
            };
            let Some(mut record) = read::record(path.clone(), message) else {
                mapped.report.skip(node, path, "not an object");
                continue;
            };
            match chat_message(context, booking, &mut record) {
                Some(message) => {
                    let id = super::ids::original_id(node, &format!("{booking_key}/{key}"));
                    let read_at = booking.finished.then_some(message.createdAt);
                    let extra = record.finish(node, &mut mapped.report);
                    mapped.report.imported(node);
                    mapped.records.push(ImportedRecord {
                        node: node.into(),
                        key: format!("{booking_key}/{key}"),
                        entity: Some(id),
                        extra,
                    });
                    mapped.chats.push(ImportedChat { id, booking: booking.id, message, read_at });
                }
                None => mapped.report.skip(node, format!("{path}/message"), "a message needs its text and sender"),
            }
        }
    }
}

fn chat_message(context: &Context, booking: &BookingRef, record: &mut read::Record) -> Option<ChatMessage> {
    let text = record.text("message")?;
    let from_key = record.text("from")?;
    let from =
        context.user(&from_key).map_or_else(|| UserId(super::ids::original_id("users", &from_key)), |user| user.id);
    let source = match record.text("source").map(|source| source.to_lowercase()).as_deref() {
        Some("driver") => Role::Driver,
        Some("customer") | Some("rider") => Role::Rider,
        _ if from == booking.customer => Role::Rider,
        _ => Role::Driver,
    };
    let date = record.text_or_empty("msgDate");
    let time = record.text_or_empty("msgTime");
    let created = record.millis("createdAt").or_else(|| message_time(&date, &time)).unwrap_or_default();
    record.skip(&["smsId"]);
    Some(ChatMessage {
        message: text,
        from,
        message_type: record.text("type").unwrap_or_else(|| "msg".into()),
        msgDate: date,
        msgTime: time,
        source,
        smsId: None,
        createdAt: created,
    })
}

/// The position of a booking's last tracking point at or before `at`.
fn position_at(context: &Context, booking_key: &str, at: Millis) -> Option<LatLng> {
    let points = context.node("tracking")?.get(booking_key)?;
    read::list_of(points)
        .into_iter()
        .filter_map(|point| point.as_object().and_then(point_of))
        .filter(|(point_at, _, _)| *point_at <= at)
        .max_by_key(|(point_at, _, _)| *point_at)
        .map(|(_, _, position)| position)
}

/// `sos/{key}`: `{bookingId, complainDate, user_name, contact, user_type}`;
/// the position is the trip's last tracked one then (else its pickup).
fn sos(context: &Context, mapped: &mut Mapped) {
    let node = "sos";
    let Some(value) = context.node(node) else { return };
    let mut open: BTreeSet<(crate::ids::BookingId, UserId)> = BTreeSet::new();
    let mut alerts: Vec<SosAlert> = Vec::new();
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let booking_key = record.text("bookingId").unwrap_or_default();
        let Some(booking) = context.bookings.get(&booking_key) else {
            mapped.report.skip(node, format!("{path}/bookingId"), "the booking is not in the export");
            continue;
        };
        let by_driver = record.text("user_type").is_some_and(|kind| kind.eq_ignore_ascii_case("driver"));
        let (raiser, role, name) = match (by_driver, booking.driver) {
            (true, Some(driver)) => (driver, SosRaiser::Driver, booking.driver_name.clone()),
            _ => (booking.customer, SosRaiser::Rider, booking.customer_name.clone()),
        };
        let created = record.millis("complainDate").or_else(|| record.millis("date")).unwrap_or_default();
        let position = position_at(context, &booking_key, created).unwrap_or(booking.pickup);
        let processed = record.flag("processed").unwrap_or(false);
        let processed_at = record.millis("processDate").or_else(|| record.millis("procesDate"));
        let resolved = (processed || processed_at.is_some()).then(|| processed_at.unwrap_or(created));
        let alert = SosAlert {
            id: SosId(super::ids::original_id(node, &key)),
            booking: booking.id,
            reference: booking.reference.clone(),
            raised_by: raiser,
            raised_by_role: role,
            raised_by_name: record.text("user_name").unwrap_or(name),
            lat: position.lat,
            lng: position.lng,
            created_at: created,
            fleetadmin: booking.fleetadmin,
            taken_by: None,
            taken_by_name: String::new(),
            taken_at: resolved,
            resolved_by: None,
            resolved_by_name: String::new(),
            resolved_at: resolved,
            note: if resolved.is_some() { NOTE_PROCESSED.to_string() } else { String::new() },
        };
        record.skip(&["contact"]);
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(alert.id.0), extra });
        alerts.push(alert);
    }
    // One open alert per person and booking: the newest stays open.
    alerts.sort_by_key(|alert| std::cmp::Reverse((alert.created_at, alert.id)));
    for alert in &mut alerts {
        if alert.resolved_at.is_none() && !open.insert((alert.booking, alert.raised_by)) {
            alert.taken_at = Some(alert.created_at);
            alert.resolved_at = Some(alert.created_at);
            alert.note = "Superseded at import by a later alert on the same trip".into();
            mapped.report.adjust("older_open_sos_closed", format!("sos/{}", alert.id));
        }
    }
    alerts.reverse();
    mapped.sos = alerts;
}

/// `complain/{key}`: kept as they were, beside their user.
fn complaints(context: &Context, mapped: &mut Mapped) {
    let node = "complain";
    let Some(value) = context.node(node) else { return };
    for (key, item) in children(value) {
        mapped.report.read(node);
        let Some(fields) = item.as_object() else {
            mapped.report.skip(node, format!("{node}/{key}"), "not an object");
            continue;
        };
        let user = fields
            .get("uid")
            .and_then(|value| text_of(value).ok().flatten())
            .and_then(|uid| context.user(&uid).map(|user| user.id.0));
        mapped.report.kept(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: user, extra: fields.clone() });
    }
}
