//! Every gateway of the spec (§3 `payment_settings`), one module each,
//! behind `crate::payments::gateway::Gateway`.

pub mod culqi;
pub mod liqpay;
pub mod payfast;
pub mod payulatam;
pub mod securepay;
pub mod stripe;
pub mod test;
pub mod wipay;

use super::gateway::Gateway;

/// Every gateway this server speaks, the built-in `test` one first.
pub static ALL: &[&dyn Gateway] = &[
    &test::Test,
    &culqi::Culqi,
    &liqpay::LiqPay,
    &payfast::PayFast,
    &payulatam::PayULatam,
    &securepay::SecurePay,
    &stripe::Stripe,
    &wipay::WiPay,
];

/// The gateway of a provider name (case as the spec writes it: lower).
pub fn find(name: &str) -> Option<&'static dyn Gateway> {
    ALL.iter().copied().find(|gateway| gateway.name() == name)
}
