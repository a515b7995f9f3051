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
//! It also holds the input rules of spec §5 "Wallet and withdraw": an admin
//! credit names a user and an amount above zero, a withdraw stays within the
//! balance. Who may make an entry is `permissions`' business.
//!
//! An admin may also take money out (issue #37): a debit (txRef
//! `AdminDebit`) or an adjustment that sets the balance to a given amount by
//! one credit or debit of the difference (txRef `AdminAdjust`), each with a
//! reason kept on the ledger entry. Neither takes a balance below zero unless
//! `negativeBalance` allows negative balances, as for any other debit: an
//! admin's tool obeys the floor the platform set.

use crate::booking::WalletChange;
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{UserId, WithdrawId};
use crate::model::{
    Millis, TX_REF_ADMIN_ADJUST, TX_REF_ADMIN_CREDIT, TX_REF_ADMIN_DEBIT, User, WalletEntryType, WithdrawRequest,
};
use crate::money::{self, parse_amount};
use crate::rules::fail;
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

/// An admin top-up that passed (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletCredit {
    pub user: UserId,
    /// Rounded to `settings.decimal`.
    pub amount: Decimal,
}

/// Add to wallet needs a selected user and an amount above 0, else
/// `no_details_error` (spec §5). The amount is parsed as a decimal and
/// rounded to `decimals` before the check, so `0.001` at 2 places is refused
/// rather than credited as nothing.
pub fn validate_wallet_credit(user: Option<UserId>, amount: &str, decimals: u32) -> DomainResult<WalletCredit> {
    let Some(user) = user else {
        return fail(ErrorKey::NoDetailsError, "user");
    };
    match parse_amount(amount).map(|amount| money::round(amount, decimals)) {
        Some(amount) if amount > Decimal::ZERO => Ok(WalletCredit { user, amount }),
        _ => fail(ErrorKey::NoDetailsError, "amount"),
    }
}

/// A withdraw amount: above 0 once rounded to `decimals` (`invalid_amount`),
/// and not more than the balance (`insufficient_wallet_balance`) unless the
/// platform allows negative balances. Returns the rounded amount.
pub fn validate_withdraw_amount(
    amount: Decimal,
    balance: Decimal,
    negative_balance: bool,
    decimals: u32,
) -> DomainResult<Decimal> {
    let amount = money::round(amount, decimals);
    if amount <= Decimal::ZERO {
        return fail(ErrorKey::InvalidAmount, "amount");
    }
    if amount > balance && !negative_balance {
        return fail(ErrorKey::InsufficientWalletBalance, "amount");
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

/// The ledger key of an admin debit, per admin as [`admin_credit_key`].
pub fn admin_debit_key(admin: UserId, request_key: &str) -> String {
    format!("admin-debit:{admin}:{request_key}")
}

/// The ledger key of an admin adjustment, per admin as [`admin_credit_key`].
pub fn admin_adjust_key(admin: UserId, request_key: &str) -> String {
    format!("admin-adjust:{admin}:{request_key}")
}

/// An admin's debit of `amount` (text as the credit takes it) from a wallet
/// holding `balance`: above 0 once rounded (`no_details_error`), at most
/// [`MAX_WALLET_MOVE`] (`invalid_amount`), and within the balance
/// (`insufficient_wallet_balance`) unless `negative_balance`. Storage checks
/// the floor again in the statement that moves the balance.
pub fn admin_debit(
    user: UserId,
    amount: &str,
    balance: Decimal,
    settings: &crate::model::Settings,
    idempotency_key: String,
) -> DomainResult<WalletChange> {
    let debit = validate_wallet_credit(Some(user), amount, settings.decimal)?;
    check_within_limit(debit.amount)?;
    let amount = validate_withdraw_amount(debit.amount, balance, settings.negativeBalance, settings.decimal)?;
    Ok(WalletChange {
        user,
        entry_type: WalletEntryType::Debit,
        amount,
        tx_ref: TX_REF_ADMIN_DEBIT.to_string(),
        idempotency_key,
        overdraw: settings.negativeBalance,
    })
}

/// An admin's adjustment of a wallet holding `balance` to `target` (text
/// as the credit takes it): one credit or debit of the difference. The
/// target is rounded to `settings.decimal`; below zero only when
/// `negativeBalance` allows it (`insufficient_wallet_balance`); the same as
/// the balance moves nothing (`invalid_amount` on `balance`); the difference
/// at most [`MAX_WALLET_MOVE`]. The caller writes it only if the balance is
/// still `balance` (storage's guard), so the result is exactly the target.
pub fn admin_adjust(
    user: UserId,
    target: &str,
    balance: Decimal,
    settings: &crate::model::Settings,
    idempotency_key: String,
) -> DomainResult<WalletChange> {
    let Some(target) = parse_amount(target).map(|target| money::round(target, settings.decimal)) else {
        return fail(ErrorKey::NoDetailsError, "balance");
    };
    if target < Decimal::ZERO && !settings.negativeBalance {
        return fail(ErrorKey::InsufficientWalletBalance, "balance");
    }
    let difference = target - balance;
    if difference.is_zero() {
        return fail(ErrorKey::InvalidAmount, "balance");
    }
    check_within_limit(difference.abs()).map_err(|_| DomainError::on_field(ErrorKey::InvalidAmount, "balance"))?;
    let entry_type = if difference > Decimal::ZERO { WalletEntryType::Credit } else { WalletEntryType::Debit };
    Ok(WalletChange {
        user,
        entry_type,
        amount: difference.abs(),
        tx_ref: TX_REF_ADMIN_ADJUST.to_string(),
        idempotency_key,
        // The target passed the floor above, and the write is pinned to the
        // balance read, so the debit lands exactly on an allowed balance.
        overdraw: true,
    })
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
    use crate::rules::test_support::{failure, key_of};
    use proptest::prelude::*;
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

    #[test]
    fn add_to_wallet_needs_a_user_and_an_amount_above_zero() {
        // spec §5 Wallet: needs a selected user and an amount above 0, else 'no_details_error'
        let user = UserId::from_u128(3);
        assert_eq!(
            validate_wallet_credit(Some(user), "10.005", 2).unwrap(),
            WalletCredit { user, amount: dec!(10.01) }
        );
        assert_eq!(failure(validate_wallet_credit(None, "10", 2)), (ErrorKey::NoDetailsError, Some("user")));
        for amount in ["", "0", "-5", "0.001", "abc"] {
            assert_eq!(
                failure(validate_wallet_credit(Some(user), amount, 2)),
                (ErrorKey::NoDetailsError, Some("amount")),
                "{amount:?}"
            );
        }
    }

    #[test]
    fn a_withdraw_is_above_zero_and_within_the_balance() {
        // spec §5 Wallet and withdraw; negativeBalance lets a wallet go below zero
        assert_eq!(validate_withdraw_amount(dec!(20), dec!(20), false, 2).unwrap(), dec!(20));
        assert_eq!(
            failure(validate_withdraw_amount(dec!(0), dec!(20), false, 2)),
            (ErrorKey::InvalidAmount, Some("amount"))
        );
        assert_eq!(key_of(validate_withdraw_amount(dec!(-1), dec!(20), true, 2)), ErrorKey::InvalidAmount);
        assert_eq!(key_of(validate_withdraw_amount(dec!(0.004), dec!(20), false, 2)), ErrorKey::InvalidAmount);
        assert_eq!(
            failure(validate_withdraw_amount(dec!(20.01), dec!(20), false, 2)),
            (ErrorKey::InsufficientWalletBalance, Some("amount"))
        );
        assert_eq!(validate_withdraw_amount(dec!(50), dec!(20), true, 2).unwrap(), dec!(50));
    }

    #[test]
    fn an_admin_debit_stays_within_the_balance_unless_negative_balances_are_allowed() {
        let user = UserId::from_u128(3);
        let mut settings = crate::model::Settings { negativeBalance: false, ..Default::default() };
        let key = admin_debit_key(UserId::from_u128(9), "k");
        let debit = admin_debit(user, "7.5", dec!(10), &settings, key.clone()).unwrap();
        assert_eq!((debit.entry_type, debit.signed_amount()), (WalletEntryType::Debit, dec!(-7.5)));
        assert_eq!((debit.tx_ref.as_str(), debit.overdraw), ("AdminDebit", false));
        assert!(key.starts_with("admin-debit:") && key != admin_credit_key(UserId::from_u128(9), "k"));
        assert_eq!(
            failure(admin_debit(user, "10.01", dec!(10), &settings, key.clone())),
            (ErrorKey::InsufficientWalletBalance, Some("amount"))
        );
        for bad in ["", "0", "-1", "abc"] {
            assert_eq!(failure(admin_debit(user, bad, dec!(10), &settings, key.clone())).0, ErrorKey::NoDetailsError);
        }
        settings.negativeBalance = true;
        let overdrawn = admin_debit(user, "15", dec!(10), &settings, key).unwrap();
        assert!(overdrawn.overdraw);
    }

    #[test]
    fn an_adjustment_is_one_credit_or_debit_of_the_difference() {
        let user = UserId::from_u128(3);
        let mut settings = crate::model::Settings { negativeBalance: false, ..Default::default() };
        let key = || admin_adjust_key(UserId::from_u128(9), "k");
        let up = admin_adjust(user, "25", dec!(10), &settings, key()).unwrap();
        assert_eq!((up.entry_type, up.amount, up.tx_ref.as_str()), (WalletEntryType::Credit, dec!(15), "AdminAdjust"));
        let down = admin_adjust(user, "0", dec!(10), &settings, key()).unwrap();
        assert_eq!((down.entry_type, down.signed_amount()), (WalletEntryType::Debit, dec!(-10)));
        assert_eq!(
            failure(admin_adjust(user, "10", dec!(10), &settings, key())),
            (ErrorKey::InvalidAmount, Some("balance"))
        );
        assert_eq!(
            failure(admin_adjust(user, "-1", dec!(10), &settings, key())),
            (ErrorKey::InsufficientWalletBalance, Some("balance"))
        );
        assert_eq!(
            failure(admin_adjust(user, "x", dec!(10), &settings, key())),
            (ErrorKey::NoDetailsError, Some("balance"))
        );
        settings.negativeBalance = true;
        let below = admin_adjust(user, "-5", dec!(10), &settings, key()).unwrap();
        assert_eq!(below.signed_amount(), dec!(-15));
    }

    proptest! {
        #[test]
        fn an_adjustment_lands_exactly_on_the_rounded_target(
            balance in -1000i64..100_000, target in 0i64..100_000, decimals in 0u32..3,
        ) {
            let balance = Decimal::new(balance, 2);
            let settings = crate::model::Settings { decimal: decimals, negativeBalance: false, ..Default::default() };
            let rounded = money::round(Decimal::new(target, 2), decimals);
            if let Ok(change) = admin_adjust(UserId::from_u128(1), &Decimal::new(target, 2).to_string(), balance, &settings, "k".into()) {
                prop_assert_eq!(balance + change.signed_amount(), rounded);
                prop_assert!(change.amount > Decimal::ZERO);
            }
        }

        #[test]
        fn a_credit_typed_as_any_text_never_panics(text in any::<String>()) {
            let _ = validate_wallet_credit(Some(UserId::from_u128(1)), &text, 2);
        }

        #[test]
        fn a_credited_amount_is_always_positive_and_rounded(amount in "-?[0-9]{0,6}(\\.[0-9]{0,4})?", decimals in 0u32..4) {
            // spec §5: amount above 0; §9 rounded to settings.decimal
            if let Ok(credit) = validate_wallet_credit(Some(UserId::from_u128(1)), &amount, decimals) {
                prop_assert!(credit.amount > Decimal::ZERO);
                prop_assert!(money::is_rounded(credit.amount, decimals));
            }
        }
    }
}
