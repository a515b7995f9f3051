//! The ledger entries the wallet tools write (spec §3 "Wallet history entry",
//! "Withdraw request"; §5 "Wallet and withdraw"; DESIGN.md invariant 4): an
//! admin's credit and the debit behind a withdraw request, each with the
//! idempotency key that makes a retried request move money once.
//!
//! The keys are namespaced by purpose, so an admin credit can never collide
//! with a booking's entries (`booking:…`) or a withdraw. A client may send its
//! own key (the `Idempotency-Key` header): it is checked here and used inside
//! the namespace; without one the caller passes a fresh unique id, which makes
//! every request count.
//!
//! This module builds entries; it does not decide who may make them
//! (`permissions`) nor whether the amount is acceptable (`validation`).

use crate::booking::WalletChange;
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{UserId, WithdrawId};
use crate::model::{Millis, TX_REF_ADMIN_CREDIT, User, WalletEntryType, WithdrawRequest};
use crate::validation::WalletCredit;
use rust_decimal::Decimal;

/// Longest client idempotency key we accept.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 128;

/// The largest amount one admin credit or one withdraw may move. Far above
/// any real top-up or payout, and far below what the ledger can hold, so a
/// typo of a few extra digits is refused instead of minting money.
pub const MAX_WALLET_MOVE: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// A client's `Idempotency-Key`: 1 to [`MAX_IDEMPOTENCY_KEY_LEN`] visible
/// ASCII characters, else `invalid_input` on the header.
pub fn validate_idempotency_key(key: &str) -> DomainResult<&str> {
    let acceptable =
        !key.is_empty() && key.len() <= MAX_IDEMPOTENCY_KEY_LEN && key.bytes().all(|byte| byte.is_ascii_graphic());
    if acceptable { Ok(key) } else { Err(DomainError::on_field(ErrorKey::InvalidInput, "Idempotency-Key")) }
}

/// Refuses an amount above [`MAX_WALLET_MOVE`] with `invalid_amount`.
pub fn check_within_limit(amount: Decimal) -> DomainResult<Decimal> {
    if amount > MAX_WALLET_MOVE {
        return Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount"));
    }
    Ok(amount)
}

/// The ledger key of an admin credit. `request_key` is the client's
/// idempotency key or a fresh unique id. The crediting admin is part of the
/// key, so two admins' keys never collide.
pub fn admin_credit_key(admin: UserId, request_key: &str) -> String {
    format!("admin-credit:{admin}:{request_key}")
}

/// An admin top-up (spec §3: txRef `AdminCredit`).
pub fn admin_credit(credit: WalletCredit, idempotency_key: String) -> WalletChange {
    WalletChange {
        user: credit.user,
        entry_type: WalletEntryType::Credit,
        amount: credit.amount,
        tx_ref: TX_REF_ADMIN_CREDIT.to_string(),
        idempotency_key,
        overdraw: false,
    }
}

/// The ledger key of a withdraw request's debit. `request_key` is the
/// client's idempotency key or the request's own id.
pub fn withdraw_key(request_key: &str) -> String {
    format!("withdraw:{request_key}")
}

/// A new withdraw request of `user` (spec §3): the name is first and last
/// joined, the bank fields come from the profile (empty text when missing),
/// `processed` is false and `procesDate` unset.
pub fn withdraw_request(id: WithdrawId, user: &User, amount: Decimal, now: Millis) -> WithdrawRequest {
    WithdrawRequest {
        id,
        uid: user.id,
        name: user.full_name(),
        amount,
        date: now,
        bankName: user.bankName.trim().to_string(),
        bankCode: user.bankCode.trim().to_string(),
        bankAccount: user.bankAccount.trim().to_string(),
        processed: false,
        procesDate: None,
    }
}

/// The debit behind a withdraw request: a `Withdraw` entry of its amount,
/// whose txRef is the request's id so the history links to it. `overdraw`
/// is `settings.negativeBalance`.
pub fn withdraw_debit(request: &WithdrawRequest, idempotency_key: String, overdraw: bool) -> WalletChange {
    WalletChange {
        user: request.uid,
        entry_type: WalletEntryType::Withdraw,
        amount: request.amount,
        tx_ref: request.id.to_string(),
        idempotency_key,
        overdraw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;
    use rust_decimal_macros::dec;

    #[test]
    fn idempotency_keys_are_short_visible_ascii() {
        assert_eq!(validate_idempotency_key("retry-7f3a").unwrap(), "retry-7f3a");
        assert_eq!(validate_idempotency_key(&"k".repeat(128)).unwrap().len(), 128);
        for bad in ["", " ", "with space", "tab\there", "é", &"k".repeat(129)] {
            let error = validate_idempotency_key(bad).unwrap_err();
            assert_eq!((error.key, error.field), (ErrorKey::InvalidInput, Some("Idempotency-Key")), "{bad:?}");
        }
    }

    #[test]
    fn amounts_above_the_limit_are_invalid() {
        assert_eq!(check_within_limit(dec!(1000000)).unwrap(), dec!(1000000));
        let error = check_within_limit(dec!(1000000.01)).unwrap_err();
        assert_eq!((error.key, error.field), (ErrorKey::InvalidAmount, Some("amount")));
    }

    #[test]
    fn an_admin_credit_is_a_credit_with_tx_ref_admin_credit() {
        // spec §3: txRef AdminCredit when an admin tops up
        let user = UserId::from_u128(7);
        let admin = UserId::from_u128(9);
        let key = admin_credit_key(admin, "abc");
        let change = admin_credit(WalletCredit { user, amount: dec!(12.5) }, key.clone());
        assert_eq!(change.user, user);
        assert_eq!(change.entry_type, WalletEntryType::Credit);
        assert_eq!(change.amount, dec!(12.5));
        assert_eq!(change.tx_ref, "AdminCredit");
        assert_eq!(change.idempotency_key, key);
        assert!(key.starts_with("admin-credit:") && key.ends_with(":abc"));
        assert_ne!(admin_credit_key(UserId::from_u128(10), "abc"), key, "keys are per admin");
        assert_ne!(withdraw_key("abc"), key);
    }

    #[test]
    fn a_withdraw_request_takes_the_name_and_bank_from_the_profile_and_starts_unprocessed() {
        // spec §3 Withdraw request; §4 Withdraw: created with processed false
        let mut user = User::new(UserId::from_u128(3), Role::Driver, 0);
        user.firstName = "Dana".into();
        user.lastName = " Driver ".into();
        user.bankName = "First Bank".into();
        let request = withdraw_request(WithdrawId::from_u128(1), &user, dec!(40), 1_000);
        assert_eq!(request.name, "Dana Driver");
        assert_eq!(
            (request.bankName.as_str(), request.bankCode.as_str(), request.bankAccount.as_str()),
            ("First Bank", "", "")
        );
        assert_eq!(
            (request.amount, request.date, request.processed, request.procesDate),
            (dec!(40), 1_000, false, None)
        );

        let debit = withdraw_debit(&request, withdraw_key("k"), false);
        assert_eq!(debit.user, user.id);
        assert_eq!(debit.entry_type, WalletEntryType::Withdraw);
        assert_eq!(debit.signed_amount(), dec!(-40));
        assert_eq!(debit.tx_ref, request.id.to_string());
        assert_eq!(debit.idempotency_key, "withdraw:k");
    }
}
