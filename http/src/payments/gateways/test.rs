//! The built-in `test` gateway: a page of ours with "Pay" and "Fail" that
//! moves no money (`crate::routes::payments`). On only with
//! `payments.test_gateway` (which `--demo` sets).

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

/// Its provider name.
pub const NAME: &str = "test";

pub struct Test;

#[async_trait]
impl Gateway for Test {
    fn name(&self) -> &'static str {
        NAME
    }

    fn fields(&self) -> &'static [Field] {
        &[]
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        ""
    }

    async fn checkout(&self, _call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        Ok(Started { to: Start::Redirect(format!("/api/v1/payments/test/pay/{}", order.payment.id)), reference: None })
    }

    async fn notification(&self, _call: &Call<'_>, _incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        Err(GatewayError::Unsupported("the test gateway confirms on its own page"))
    }

    async fn returned(
        &self,
        _call: &Call<'_>,
        _payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        Ok(Verdict::Nothing)
    }

    async fn refund(
        &self,
        _call: &Call<'_>,
        _payment: &PaymentRecord,
        _amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        Ok(Refunded { reference: format!("test-refund-{key}") })
    }
}
