//! The panel mends a booking (issue #34): an admin or the driver's fleet
//! admin closes an unpaid trip (marked paid, or settled in cash), completes a
//! paid one, and an admin refunds to the rider's wallet — the one change a
//! finished booking still takes.

use super::{GATEWAY_MANUAL, Step, refuse};
use crate::booking::refunds::{Refund, RefundStatus, refundable};
use crate::booking::{By, Effect, NoticeKey};
use crate::error::{DomainResult, ErrorKey};
use crate::model::{BookingStatus, PaymentMode};
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

    /// Money back to the rider, at most what they paid in all (the rules
    /// of `crate::refund`, checked again here against the booking as its one
    /// writer holds it): to the wallet a ledger credit, to the card nothing
    /// more than the record (the gateway has moved the money).
    pub(super) fn refund(&mut self, by: By, refund: Refund) -> DomainResult<()> {
        if !matches!(by, By::Admin(admin) if admin == refund.made_by) {
            return refuse(ErrorKey::NotAllowed);
        }
        self.require_status(&[BookingStatus::Paid, BookingStatus::Complete, BookingStatus::Cancelled])?;
        if refund.booking != self.booking.id
            || refund.user != self.booking.customer
            || refund.status != RefundStatus::Done
        {
            return refuse(ErrorKey::InvalidInput);
        }
        let amount = refund.amount;
        if amount <= Decimal::ZERO
            || amount != money::round_to(amount, self.context.settings)
            || amount > refundable(&self.booking)
        {
            return refuse(ErrorKey::InvalidAmount);
        }
        if refund.reason.trim().is_empty() || refund.idempotency_key.trim().is_empty() {
            return refuse(ErrorKey::SelectProper);
        }
        self.booking.refunded += amount;
        let ledger = refund.ledger_change(&self.booking.reference);
        self.effects.push(Effect::Refund(Box::new(refund)));
        if let Some(change) = ledger {
            self.effects.push(Effect::Wallet(change));
            self.notify_customer(NoticeKey::WalletUpdated);
        }
        Ok(())
    }
}
