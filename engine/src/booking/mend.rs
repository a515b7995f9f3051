//! The panel mends a booking (issue #34): an admin or the driver's fleet
//! admin closes an unpaid trip (marked paid, or settled in cash), completes a
//! paid one, and an admin refunds to the rider's wallet — the one change a
//! finished booking still takes.

use super::{GATEWAY_MANUAL, Step, TX_REF_REFUND, refuse};
use crate::booking::{By, Effect, NoticeKey, WalletChange, booking_idempotency_key};
use crate::error::{DomainResult, ErrorKey};
use crate::model::{BookingStatus, PaymentMode, WalletEntryType};
use crate::money;
use rust_decimal::Decimal;

impl Step<'_> {
    /// The panel's "complete": a PAID booking closed without a rating.
    pub(super) fn complete(&mut self, by: By) -> DomainResult<()> {
        self.require_manager(by)?;
        self.require_status(&[BookingStatus::Paid])?;
        self.finish_complete();
        Ok(())
    }

    /// An admin, or the fleet admin of the booking's driver.
    fn require_manager(&self, by: By) -> DomainResult<()> {
        match by {
            By::Admin(_) => Ok(()),
            By::Fleetadmin(fleet) if self.booking.fleetadmin == Some(fleet) => Ok(()),
            By::Fleetadmin(_) => refuse(ErrorKey::NotFound),
            _ => refuse(ErrorKey::NotAllowed),
        }
    }

    /// The panel closes an unpaid trip: marked paid by card (paid outside
    /// the app) or settled in cash with the driver.
    pub(super) fn settle(&mut self, by: By, mode: PaymentMode) -> DomainResult<()> {
        self.require_manager(by)?;
        self.require_status(&[BookingStatus::Reached, BookingStatus::Pending])?;
        if !self.booking.prepaid {
            let payable = self.booking.payableAmount;
            let booking = &mut self.booking;
            match mode {
                PaymentMode::Cash => {
                    booking.payment_mode = Some(PaymentMode::Cash);
                    booking.cashPaymentAmount = payable;
                }
                PaymentMode::Card => {
                    booking.payment_mode = Some(PaymentMode::Card);
                    booking.gateway = Some(GATEWAY_MANUAL.to_string());
                    booking.cardPaymentAmount = payable;
                }
                PaymentMode::Wallet => return refuse(ErrorKey::NotAllowed),
            }
            booking.customer_paid = payable;
        }
        self.mark_paid();
        Ok(())
    }

    /// Money back to the rider's wallet, at most what they paid in all.
    pub(super) fn refund(&mut self, by: By, amount: Decimal, reason: String, key: String) -> DomainResult<()> {
        if !matches!(by, By::Admin(_)) {
            return refuse(ErrorKey::NotAllowed);
        }
        self.require_status(&[BookingStatus::Paid, BookingStatus::Complete, BookingStatus::Cancelled])?;
        let amount = money::round_to(amount, self.context.settings);
        let left = self.booking.customer_paid + self.booking.cancellationFee
            - self.booking.cancellationFeeOwed
            - self.booking.refunded
            - self.prepaid_refund();
        if amount <= Decimal::ZERO || amount > left {
            return refuse(ErrorKey::InvalidAmount);
        }
        if reason.trim().is_empty() || key.trim().is_empty() {
            return refuse(ErrorKey::SelectProper);
        }
        self.booking.refunded += amount;
        let customer = self.booking.customer;
        self.effects.push(Effect::Wallet(WalletChange {
            user: customer,
            entry_type: WalletEntryType::Credit,
            amount,
            tx_ref: format!("{TX_REF_REFUND}:{}", self.booking.reference),
            idempotency_key: booking_idempotency_key(self.booking.id, &format!("admin_refund:{}", key.trim())),
            overdraw: false,
        }));
        self.notify_customer(NoticeKey::WalletUpdated);
        Ok(())
    }

    /// What the cancellation of a prepaid booking already gave back.
    fn prepaid_refund(&self) -> Decimal {
        if self.booking.status == BookingStatus::Cancelled && self.booking.prepaid {
            self.booking.customer_paid
        } else {
            Decimal::ZERO
        }
    }
}
