//! Money: `walletHistory/{uid}/{key}` (or `users/{uid}/walletHistory` in
//! older versions) becomes ledger entries whose idempotency keys come from
//! the original keys, so importing again adds nothing; a wallet whose
//! history does not add up to its `walletBalance` gets one opening entry of
//! the difference, dated before its history, so every balance equals its
//! ledger (DESIGN.md invariant 4) and equals the original balance. Withdraw
//! requests come over as they were; the debit behind each is already in
//! the history (type `Withdraw`).

use super::read::{self, Record, children};
use super::report::WalletDifference;
use super::types::{Context, ImportedRecord, LedgerLine, Mapped, SOURCE};
use crate::ids::{UserId, WithdrawId};
use crate::model::{Millis, WalletEntry, WalletEntryType, WithdrawRequest};
use crate::money;
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};

/// txRef of the entry that opens a wallet whose history does not explain
/// its balance.
pub const TX_REF_IMPORT_OPENING: &str = "ImportOpening";

/// The opening entry of a wallet whose history adds up to `history` but
/// whose balance was `balance`: a credit or a debit of the difference, or
/// nothing when they agree. One per user whatever the export, so a later
/// export of the same city does not open the wallet twice.
pub fn opening_entry(
    user: UserId,
    user_key: &str,
    history: Decimal,
    balance: Decimal,
    date: Millis,
) -> Option<LedgerLine> {
    let key = format!("{}:opening:{user_key}", SOURCE);
    let description = "Opening balance imported from the original product";
    move_entry(user, key, balance - history, date, description)
}

/// The entry that brings a wallet found at `balance` after an import to the
/// original's `target` (a later export whose history explains its balance
/// differently). Its key names both amounts, so the same move is made once.
pub fn correction_entry(
    user: UserId,
    user_key: &str,
    balance: Decimal,
    target: Decimal,
    date: Millis,
) -> Option<LedgerLine> {
    let key = format!("{}:correction:{user_key}:{}:{}", SOURCE, balance.normalize(), target.normalize());
    move_entry(user, key, target - balance, date, "Balance corrected to the original product's at import")
}

fn move_entry(
    user: UserId,
    idempotency_key: String,
    difference: Decimal,
    date: Millis,
    description: &str,
) -> Option<LedgerLine> {
    if difference.is_zero() {
        return None;
    }
    let entry_type = if difference > Decimal::ZERO { WalletEntryType::Credit } else { WalletEntryType::Debit };
    Some(LedgerLine {
        id: super::ids::original_id("walletLedger", &idempotency_key),
        user,
        entry: WalletEntry {
            entry_type,
            amount: difference.abs(),
            date,
            txRef: TX_REF_IMPORT_OPENING.to_string(),
            description: Some(description.to_string()),
        },
        idempotency_key,
    })
}

pub(super) fn map(context: &Context, mapped: &mut Mapped) {
    let histories = histories(context, mapped);
    openings(context, mapped, &histories);
    withdraws(context, mapped);
}

/// Every history entry, by user key.
fn histories(context: &Context, mapped: &mut Mapped) -> HashMap<String, Vec<LedgerLine>> {
    let node = "walletHistory";
    let mut sources: Vec<(String, &serde_json::Value)> = Vec::new();
    if let Some(value) = context.node(node) {
        sources.extend(children(value));
    }
    if let Some(users) = context.node("users") {
        for (key, user) in children(users) {
            if let Some(history) = user.get("walletHistory").filter(|history| !history.is_null()) {
                sources.push((key, history));
            }
        }
    }
    let mut by_user: HashMap<String, Vec<LedgerLine>> = HashMap::new();
    // An entry under both homes (an export taken while the clients moved
    // from one to the other) is one entry: the first copy counts.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for (user_key, entries) in sources {
        for (key, entry) in children(entries) {
            let path = format!("{node}/{user_key}/{key}");
            if !seen.insert((user_key.clone(), key.clone())) {
                mapped
                    .report
                    .adjust("wallet_entry_in_both_histories_counted_once", format!("users/{user_key}/{node}/{key}"));
                continue;
            }
            mapped.report.read(node);
            let Some(user) = context.user(&user_key) else {
                mapped.report.skip(node, path, "the user is not in the export");
                continue;
            };
            let Some(mut record) = read::record(path.clone(), entry) else {
                mapped.report.skip(node, path, "not an object");
                continue;
            };
            match line(context, user.id, &user_key, &key, &mut record, mapped) {
                Ok(line) => {
                    let extra = record.finish(node, &mut mapped.report);
                    mapped.report.imported(node);
                    mapped.records.push(ImportedRecord {
                        node: node.into(),
                        key: format!("{user_key}/{key}"),
                        entity: Some(line.id),
                        extra,
                    });
                    by_user.entry(user_key.clone()).or_default().push(line);
                }
                Err((field, reason)) => mapped.report.skip(node, format!("{path}/{field}"), reason),
            }
        }
    }
    by_user
}

fn line(
    context: &Context,
    user: UserId,
    user_key: &str,
    key: &str,
    record: &mut Record,
    mapped: &mut Mapped,
) -> Result<LedgerLine, (&'static str, &'static str)> {
    let mut entry_type = match record.text("type").map(|kind| kind.to_lowercase()).as_deref() {
        Some("credit") => WalletEntryType::Credit,
        Some("debit") => WalletEntryType::Debit,
        Some("withdraw") => WalletEntryType::Withdraw,
        _ => return Err(("type", "an entry is a Credit, a Debit or a Withdraw")),
    };
    let amount = record.decimal("amount").ok_or(("amount", "an entry needs an amount"))?;
    let mut amount = money::round(amount, context.decimals);
    if amount < Decimal::ZERO {
        // A negative credit took money out: the ledger writes it as a debit.
        amount = -amount;
        entry_type =
            if entry_type == WalletEntryType::Credit { WalletEntryType::Debit } else { WalletEntryType::Credit };
        mapped.report.adjust("negative_amount_written_as_its_opposite", record.path.clone());
    }
    let date = record.millis("date").unwrap_or_else(|| {
        mapped.report.adjust("wallet_entry_without_date", record.path.clone());
        0
    });
    // The original's txRef of a booking's entry is the booking's key.
    let tx_ref = record.text_or_empty("txRef");
    let tx_ref = context.bookings.get(&tx_ref).map_or(tx_ref, |booking| booking.reference.clone());
    let description = record.text("description");
    Ok(LedgerLine {
        id: super::ids::original_id("walletHistory", &format!("{user_key}/{key}")),
        user,
        entry: WalletEntry { entry_type, amount, date, txRef: tx_ref, description },
        idempotency_key: format!("{}:{user_key}:{key}", SOURCE),
    })
}

/// The history of every imported user, and an opening entry where it does
/// not add up to the balance.
fn openings(context: &Context, mapped: &mut Mapped, histories: &HashMap<String, Vec<LedgerLine>>) {
    let keys: HashMap<UserId, &String> = context.users.iter().map(|(key, user)| (user.id, key)).collect();
    let mut lines = Vec::new();
    for user in &mapped.users {
        let Some(key) = keys.get(&user.id) else { continue };
        let history = histories.get(*key).map(Vec::as_slice).unwrap_or_default();
        let total: Decimal = history.iter().map(LedgerLine::signed_amount).sum();
        let first = history.iter().map(|line| line.entry.date).min();
        // Before the history, so the running balance reads right from the start.
        let date = first.map_or(user.createdAt, |first| first - 1).max(0);
        if let Some(opening) = opening_entry(user.id, key, total, user.walletBalance, date) {
            mapped.report.wallets.push(WalletDifference {
                user: user.id,
                path: format!("users/{key}"),
                balance: user.walletBalance,
                history: total,
                opening: user.walletBalance - total,
            });
            lines.push(opening);
        }
        lines.extend(history.iter().cloned());
    }
    mapped.ledger = lines;
}

/// `withdraws/{key}`: `{uid, name, amount, date, bank…, processed, processDate}`.
fn withdraws(context: &Context, mapped: &mut Mapped) {
    let node = "withdraws";
    let Some(value) = context.node(node) else { return };
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let Some(uid) = record.text("uid") else {
            mapped.report.skip(node, format!("{path}/uid"), "a withdraw needs its user");
            continue;
        };
        let Some(amount) = record.decimal("amount") else {
            mapped.report.skip(node, format!("{path}/amount"), "a withdraw needs an amount");
            continue;
        };
        let user = context.user(&uid).map(|user| user.id);
        if user.is_none() {
            mapped.report.adjust("withdraw_of_a_user_not_in_export_kept", path.clone());
        }
        let processed_at = record.millis("processDate").or_else(|| record.millis("procesDate"));
        let processed = record.flag("processed").unwrap_or(processed_at.is_some());
        let request = WithdrawRequest {
            id: WithdrawId(super::ids::original_id(node, &key)),
            uid: user.unwrap_or_else(|| UserId(super::ids::original_id("users", &uid))),
            name: record.text_or_empty("name"),
            amount: money::round(amount.abs(), context.decimals),
            date: record.millis("date").unwrap_or_default(),
            bankName: record.text_or_empty("bankName"),
            bankCode: record.text_or_empty("bankCode"),
            bankAccount: record.text_or_empty("bankAccount"),
            processed,
            procesDate: if processed { processed_at } else { None },
        };
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(request.id.0), extra });
        mapped.withdraws.push(request);
    }
}
