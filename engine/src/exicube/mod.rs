//! Reading an export of the original product (issue #38): the JSON tree of
//! its Realtime Database (spec §3 entities, §7 paths) turned into Wayfare
//! records, with a report of what happened to every node.
//!
//! Pure: the caller parses the file, hands over the tree, the time and what
//! Wayfare already holds ([`Existing`]: the settings, users by contact, car
//! types, promos and languages, so an import merges into them instead of
//! colliding), and writes what comes back ([`Mapped`]). Nothing here reads a
//! file or a database.
//!
//! The rules, one module each: `read` (tolerant readers: numbers as text,
//! lists as objects, dates as text), `ids` (each original key becomes a
//! name-based UUID, so references hold and a second import updates the
//! first), `catalogue` (settings, car types, promos, cancellation reasons,
//! notifications, languages, payment settings), `users` (riders, drivers,
//! fleet admins and admins with their ratings, saved addresses, vehicles and
//! positions), `bookings` (every status, legacy ones mapped), `trips`
//! (tracking, chats, SOS, complaints), `wallet` (the ledger from
//! `walletHistory`, opening entries, withdraws), `files` (the Storage files
//! records point at) and `report`.

mod bookings;
mod catalogue;
mod files;
pub mod ids;
mod read;
pub mod report;
mod trips;
mod types;
mod users;
mod wallet;

#[cfg(test)]
mod tests;

pub use bookings::{REASON_PARTY_MISSING, REASON_SECOND_TRIP, map_status};
pub use report::{Malformed, NodeCounts, Report, WalletDifference};
pub use trips::NOTE_PROCESSED;
pub use types::*;
pub use wallet::{TX_REF_IMPORT_OPENING, correction_entry, opening_entry};

use serde_json::{Map, Value};
use std::collections::HashMap;

/// Nodes the import does not bring over and why (credentials belong in
/// `wayfare.toml`; the rest is state of the old servers).
const NOT_IMPORTED: [(&str, &str); 5] = [
    ("smtpdata", "mail server credentials: set [delivery] in wayfare.toml"),
    ("smsConfig", "SMS gateway credentials: set [delivery] in wayfare.toml"),
    ("otp_auth_requests", "pending sign-in codes of the old servers"),
    ("ipList", "the old servers' rate limiting counters"),
    ("blocklist", "the old servers' blocked addresses"),
];

/// Nodes read by the mappers (anything else is kept record by record).
const MAPPED_NODES: [&str; 20] = [
    "settings",
    "cancel_reason",
    "cartypes",
    "promos",
    "notifications",
    "languages",
    "payment_settings",
    "users",
    "cars",
    "locations",
    "userRatings",
    "savedAddresses",
    "bookings",
    "tracking",
    "chats",
    "sos",
    "complain",
    "walletHistory",
    "withdraws",
    "userNotifications",
];

/// Turns an export into Wayfare records. `root` is the whole tree (the
/// object whose keys are `users`, `bookings`, …).
pub fn map_export(root: &Value, options: Options, existing: &Existing) -> Mapped {
    let mut mapped = Mapped::default();
    let empty = Map::new();
    let root = match root.as_object() {
        Some(root) => root,
        None => {
            mapped.report.skip("(root)", "", "the export is not a JSON object of nodes");
            &empty
        }
    };
    let base = existing.settings.clone().unwrap_or_default();
    let settings = catalogue::settings(root.get("settings"), &base, &mut mapped);
    let decimals = settings.decimal;
    let mut context = Context {
        root,
        options,
        existing,
        decimals,
        settings,
        users: HashMap::new(),
        bookings: HashMap::new(),
        promo_names: HashMap::new(),
    };
    catalogue::map(&mut context, &mut mapped);
    users::map(&mut context, &mut mapped);
    bookings::map(&mut context, &mut mapped);
    users::settle_busy_flags(&mut mapped);
    trips::map(&context, &mut mapped);
    wallet::map(&context, &mut mapped);
    files::collect(&mut mapped);
    keep_other_nodes(root, &mut mapped);
    mapped
}

/// Nodes no mapper reads: left out with the reason when they hold
/// credentials or the old servers' state, else kept record by record.
fn keep_other_nodes(root: &Map<String, Value>, mapped: &mut Mapped) {
    for (node, value) in root {
        if MAPPED_NODES.contains(&node.as_str()) || value.is_null() {
            continue;
        }
        if let Some((_, why)) = NOT_IMPORTED.iter().find(|(name, _)| name == node) {
            mapped.report.read(node);
            mapped.report.skip(node, node.clone(), format!("not imported: {why}"));
            continue;
        }
        for (key, child) in read::children(value) {
            mapped.report.read(node);
            mapped.report.kept(node);
            let extra = match child {
                Value::Object(fields) => fields.clone(),
                other => Map::from_iter([("value".to_string(), other.clone())]),
            };
            mapped.records.push(ImportedRecord { node: node.clone(), key, entity: None, extra });
        }
    }
}
