//! Every gateway of the spec (§3 `payment_settings`), one module each,
//! behind `crate::payments::gateway::Gateway`.

pub mod braintree;
pub mod culqi;
pub mod flutterwave;
pub mod iyzico;
pub mod liqpay;
pub mod mercadopago;
pub mod payfast;
pub mod paymongo;
pub mod paypal;
pub mod paystack;
pub mod payulatam;
pub mod razorpay;
pub mod securepay;
pub mod slickpay;
pub mod squareup;
pub mod stripe;
pub mod tap;
pub mod test;
pub mod wipay;
pub mod xendit;

use super::gateway::Gateway;

/// Every gateway this server speaks, the built-in `test` one first, then in
/// the order of the issue that asked for them.
pub static ALL: &[&dyn Gateway] = &[
    &test::Test,
    &braintree::Braintree,
    &culqi::Culqi,
    &flutterwave::Flutterwave,
    &liqpay::LiqPay,
    &mercadopago::MercadoPago,
    &payfast::PayFast,
    &paypal::PayPal,
    &paystack::Paystack,
    &payulatam::PayULatam,
    &securepay::SecurePay,
    &stripe::Stripe,
    &squareup::Squareup,
    &wipay::WiPay,
    &razorpay::Razorpay,
    &paymongo::Paymongo,
    &iyzico::Iyzico,
    &slickpay::Slickpay,
    &xendit::Xendit,
    &tap::Tap,
];

/// The gateway of a provider name (case as the spec writes it: lower).
pub fn find(name: &str) -> Option<&'static dyn Gateway> {
    ALL.iter().copied().find(|gateway| gateway.name() == name)
}
