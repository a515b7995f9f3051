//! One change to a stored user, made under storage's compare-and-set, with
//! a taken e-mail or mobile answered as the spec's `user_exists`.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use wayfare_engine::{ErrorKey, User, UserId};
use wayfare_storage::StorageError;

/// A unique value storage refused: which contact, when it says.
pub(crate) fn duplicate_error(error: StorageError) -> ApiError {
    match error {
        StorageError::Duplicate(field @ ("email" | "mobile")) => ApiError::field(ErrorKey::UserExists, field),
        other => other.into(),
    }
}

/// Changes the stored user `id` with no other write in between
/// (`Storage::modify_user`): `edit` runs on the user as stored now, not on a
/// copy read earlier, so a booking's saved address or a photo uploaded
/// meanwhile is never written back stale. An error from `edit` writes nothing.
pub(crate) async fn edit_user(
    state: &AppState,
    id: UserId,
    mut edit: impl FnMut(&mut User) -> ApiResult<()> + Send,
) -> ApiResult<User> {
    let mut refused = None;
    let written = {
        let mut apply = |user: &mut User| match edit(user) {
            Ok(()) => true,
            Err(error) => {
                refused = Some(error);
                false
            }
        };
        state.storage.modify_user(id, state.now(), &mut apply).await.map_err(duplicate_error)?
    };
    match (written, refused) {
        (Some(user), _) => Ok(user),
        (None, Some(error)) => Err(error),
        (None, None) => Err(ApiError::Internal("a user edit was declined without a reason".into())),
    }
}
