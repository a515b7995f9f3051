//! The REST routes, one module per resource; each exposes `router()`.

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
use wayfare_engine::ErrorKey;
use wayfare_storage::PageRequest;

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
