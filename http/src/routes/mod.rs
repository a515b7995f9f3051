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
pub mod languages;
pub mod mend;
pub mod notifications;
pub mod payments;
pub mod promos;
pub mod reports;
pub mod sos;
pub mod users;
pub mod wallet;
pub mod withdraws;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use wayfare_engine::ErrorKey;
use wayfare_storage::PageRequest;

/// Routes and the OpenAPI operations of their handlers, built together.
pub type ApiRouter = utoipa_axum::router::OpenApiRouter<AppState>;

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
        .merge(reports::router())
        .merge(dashboard::router())
        .merge(geo::router())
        .merge(health::router())
        // files and payments (issue 6)
        .merge(files::router())
        .merge(payments::router())
        // promos, notifications, languages
        .merge(promos::router())
        .merge(notifications::router())
        .merge(languages::router())
        .merge(crate::metrics::router())
}

/// A list's page from its `limit` (default 50) and `after` query parameters.
/// A page size outside 1 to [`PageRequest::MAX_LIMIT`] is `invalid_input` on
/// `limit`, as the document says, rather than quietly clamped. (The document
/// gives `after` the pattern `^[0-9a-fA-F]{48}$`, the cursors storage
/// writes; storage refuses any other with `invalid_input` on `cursor`.)
pub(crate) fn page_request(limit: Option<u32>, after: Option<String>) -> ApiResult<PageRequest> {
    let limit = limit.unwrap_or(50);
    if !(1..=PageRequest::MAX_LIMIT).contains(&limit) {
        return Err(ApiError::field(ErrorKey::InvalidInput, "limit"));
    }
    Ok(PageRequest { limit, after })
}
