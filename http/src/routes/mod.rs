//! The REST routes, one module per resource; each exposes `router()`, an
//! [`ApiRouter`] of its handlers registered with `utoipa_axum::routes!`, so
//! that serving a route and documenting it are one line. A handler's path,
//! method, documentation and refusals are all in its `#[utoipa::path]`
//! (see `crate::openapi::refusals`).

pub mod admin_catalog;
pub mod applications;
pub mod bookings;
pub mod catalog;
pub mod dashboard;
pub mod dispatch;
pub mod drivers;
pub mod files;
pub mod geo;
pub mod health;
pub mod kit;
pub mod languages;
pub mod mend;
pub mod notifications;
pub mod payment_gateways;
pub mod payments;
pub mod promos;
pub mod receipts;
pub mod refunds;
pub mod reports;
pub mod sos;
pub mod user_edit;
pub mod users;
pub mod wallet;
pub mod withdraws;

pub use kit::ApiRouter;
pub(crate) use kit::page_request;

/// Every route of the REST API (the documentation's own routes aside), with
/// the document's operations.
pub fn api() -> ApiRouter {
    ApiRouter::new()
        .merge(crate::auth::routes::router())
        .merge(catalog::router())
        .merge(bookings::router())
        .merge(dispatch::router())
        .merge(drivers::router())
        .merge(wallet::router())
        // admin panel: users, profile, car types, cancel reasons, settings, app info
        .merge(users::router())
        .merge(applications::router())
        .merge(admin_catalog::router())
        // money: withdraws and earnings reports
        .merge(withdraws::router())
        .merge(sos::router())
        .merge(mend::router())
        .merge(refunds::router())
        .merge(reports::router())
        .merge(receipts::router())
        .merge(dashboard::router())
        .merge(geo::router())
        .merge(health::router())
        // files and payments (issue 6)
        .merge(files::router())
        .merge(payments::router())
        .merge(payment_gateways::router())
        // promos, notifications, languages
        .merge(promos::router())
        .merge(notifications::router())
        .merge(languages::router())
        .merge(crate::metrics::router())
}
