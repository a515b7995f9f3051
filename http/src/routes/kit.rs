//! What every route module shares: the router type and reading a page
//! request.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use wayfare_engine::ErrorKey;
use wayfare_storage::PageRequest;

/// Routes and the OpenAPI operations of their handlers, built together.
pub type ApiRouter = utoipa_axum::router::OpenApiRouter<AppState>;

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
