//! Every gateway of the spec (§3 `payment_settings`), one module each,
//! behind `crate::payments::gateway::Gateway`.

pub mod braintree;
pub mod iyzico;
pub mod mercadopago;
pub mod paypal;
pub mod slickpay;
pub mod squareup;
pub mod stripe;
pub mod test;

use super::gateway::Gateway;

/// Every gateway this server speaks, the built-in `test` one first.
pub static ALL: &[&dyn Gateway] = &[
    &test::Test,
    &braintree::Braintree,
    &mercadopago::MercadoPago,
    &paypal::PayPal,
    &stripe::Stripe,
    &squareup::Squareup,
    &iyzico::Iyzico,
    &slickpay::Slickpay,
];

/// The gateway of a provider name (case as the spec writes it: lower).
pub fn find(name: &str) -> Option<&'static dyn Gateway> {
    ALL.iter().copied().find(|gateway| gateway.name() == name)
}
