//! What an import did, node by node: how many records were read, imported,
//! kept aside or skipped; the keys Wayfare has no field for; the records
//! skipped as malformed, each with its path and the reason; what was changed
//! to make a record fit (an adjustment, counted by kind with the first
//! paths); and the wallets whose history did not add up to their balance.

use crate::ids::UserId;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::BTreeMap;

/// Paths kept as examples of one kind of adjustment.
pub const EXAMPLES_KEPT: usize = 10;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NodeCounts {
    /// Records found under the node.
    pub read: u64,
    /// Records that became Wayfare records.
    pub imported: u64,
    /// Records Wayfare has no entity for, kept as they were
    /// (`imported_records`).
    pub kept: u64,
    /// Records left out (malformed, or pointing at nothing).
    pub skipped: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// Where the record is in the export, e.g. `bookings/-Nabc/tripdate`.
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Adjustment {
    pub count: u64,
    /// The first few paths it happened at.
    pub examples: Vec<String>,
}

/// A wallet whose history does not add up to its balance: an opening entry
/// of the difference makes the ledger hold the balance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WalletDifference {
    pub user: UserId,
    /// `users/{key}`.
    pub path: String,
    /// The original's `walletBalance`, rounded.
    pub balance: Decimal,
    /// What its `walletHistory` adds up to.
    pub history: Decimal,
    /// `balance - history`: the opening entry.
    pub opening: Decimal,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub nodes: BTreeMap<String, NodeCounts>,
    /// Per node, each key Wayfare does not use and in how many records.
    pub unknown_keys: BTreeMap<String, BTreeMap<String, u64>>,
    pub malformed: Vec<Malformed>,
    /// What was changed to make records fit, by kind.
    pub adjustments: BTreeMap<String, Adjustment>,
    pub wallets: Vec<WalletDifference>,
}

impl Report {
    fn node(&mut self, node: &str) -> &mut NodeCounts {
        if !self.nodes.contains_key(node) {
            self.nodes.insert(node.to_string(), NodeCounts::default());
        }
        self.nodes.get_mut(node).expect("inserted above")
    }

    pub fn read(&mut self, node: &str) {
        self.node(node).read += 1;
    }

    pub fn imported(&mut self, node: &str) {
        self.node(node).imported += 1;
    }

    pub fn kept(&mut self, node: &str) {
        self.node(node).kept += 1;
    }

    /// A record left out, with its path and the reason.
    pub fn skip(&mut self, node: &str, path: impl Into<String>, reason: impl Into<String>) {
        self.node(node).skipped += 1;
        self.malformed.push(Malformed { path: path.into(), reason: reason.into() });
    }

    /// Something changed to make a record fit, e.g. `legacy_status_mapped`.
    pub fn adjust(&mut self, kind: &str, example: impl Into<String>) {
        if !self.adjustments.contains_key(kind) {
            self.adjustments.insert(kind.to_string(), Adjustment::default());
        }
        let adjustment = self.adjustments.get_mut(kind).expect("inserted above");
        adjustment.count += 1;
        if adjustment.examples.len() < EXAMPLES_KEPT {
            adjustment.examples.push(example.into());
        }
    }

    pub fn unknown_key(&mut self, node: &str, key: &str) {
        if !self.unknown_keys.contains_key(node) {
            self.unknown_keys.insert(node.to_string(), BTreeMap::new());
        }
        let keys = self.unknown_keys.get_mut(node).expect("inserted above");
        *keys.entry(key.to_string()).or_default() += 1;
    }

    /// How many records of a node became Wayfare records.
    pub fn imported_count(&self, node: &str) -> u64 {
        self.nodes.get(node).map_or(0, |counts| counts.imported)
    }

    pub fn adjusted_count(&self, kind: &str) -> u64 {
        self.adjustments.get(kind).map_or(0, |adjustment| adjustment.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_node_and_examples_stop_at_ten() {
        let mut report = Report::default();
        for index in 0..12 {
            report.read("bookings");
            if index == 3 {
                report.skip("bookings", "bookings/-N3/tripdate", "no trip date");
            } else {
                report.imported("bookings");
            }
            report.adjust("legacy_status_mapped", format!("bookings/-N{index}"));
        }
        assert_eq!(report.nodes["bookings"], NodeCounts { read: 12, imported: 11, kept: 0, skipped: 1 });
        assert_eq!(report.malformed[0].path, "bookings/-N3/tripdate");
        assert_eq!(report.adjusted_count("legacy_status_mapped"), 12);
        assert_eq!(report.adjustments["legacy_status_mapped"].examples.len(), EXAMPLES_KEPT);
    }
}
