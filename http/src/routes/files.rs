//! Uploads and downloads of images (spec §7 updateWebProfileImage,
//! updateLicenseImage, editCarType `UpdateImage`; the parcel photos of spec
//! §3 `pickup_image` / `deliver_image`; §8 `choose_image_first`).
//!
//! An upload is a multipart form with the image in the field `file`. It is
//! accepted only when its bytes are a PNG, JPEG, GIF or WebP (the name and the
//! declared type are ignored) and no larger than `files.max_upload_bytes`
//! (413 `file_too_large`, refused while reading, before the body is all in).
//! The bytes go to the file store under the spec's paths
//! (`users/{id}/profileImage/…`, `users/{id}/license/…`, `cartypes/{id}/…`,
//! `bookings/{id}/{pickup_image|deliver_image}/…`); the record's field gets
//! the file's URL, `/api/v1/files/{fileId}`. Who may read a file follows from
//! that path: profile and car type images are public, a licence is for its
//! driver, their fleet admin and admins, a parcel photo for the booking's
//! parties.

use crate::auth::{CurrentUser, MaybeApplicant};
use crate::error::{ApiError, ApiResult};
use crate::extract::PathParam;
use crate::openapi::refusals::{Refusals, booking_command, optional_session, session};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::user_edit::edit_user;
use crate::state::AppState;
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::multipart::{Multipart, MultipartError, MultipartRejection};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa_axum::routes;
use uuid::Uuid;
use wayfare_engine::booking::{self, Command, Context, ParcelImage};
use wayfare_engine::permissions::{Action, Resource, UserRef, authorize};
use wayfare_engine::rules::media::{ImageKind, validate_image};
use wayfare_engine::{BookingId, CarType, CarTypeId, ErrorKey, User, UserId};
use wayfare_storage::FileRecord;

/// An upload is a multipart form whose body is read against
/// `files.max_upload_bytes` (413); a request without a file is
/// `choose_image_first`, a file that is not an image `invalid_input`. A
/// licence is uploaded for a driver the caller manages.
const LICENSE_UPLOAD: Refusals = session![ChooseImageFirst, InvalidInput, FileTooLarge, NotAllowed, NotFound];

pub fn router() -> ApiRouter {
    // The upload routes read their bodies themselves, against the configured
    // limit, so axum's default 2 MB limit is lifted for them only.
    let uploads = ApiRouter::new()
        .routes(routes!(my_profile_image))
        .routes(routes!(my_license_image))
        .routes(routes!(license_image))
        .routes(routes!(car_type_image))
        .routes(routes!(parcel_image))
        .layer(DefaultBodyLimit::disable());
    ApiRouter::new().merge(uploads).routes(routes!(download_file))
}

/// The multipart form of an image upload (documentation only: the handler
/// reads the parts itself).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ImageUpload {
    /// The image: PNG, JPEG, GIF or WebP by content.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// The multipart form of a parcel photo.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ParcelImageUpload {
    /// Which photo: `pickup_image` or `deliver_image`.
    kind: ParcelImage,
    /// The image: PNG, JPEG, GIF or WebP by content.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// What a multipart form may hold besides the file: small text fields.
const TEXT_FIELD_LIMIT: usize = 1024;
/// Room for the multipart boundaries and part headers around the file.
const MULTIPART_OVERHEAD: usize = 16 * 1024;

/// Parts that carry images: `file`, and a document's `front` and `back`.
const FILE_PARTS: [&str; 3] = ["file", "front", "back"];

/// A multipart form as received: the images (those with bytes) by part
/// name and the other fields as text.
#[derive(Debug, Default)]
pub(crate) struct Upload {
    files: BTreeMap<String, Bytes>,
    pub(crate) fields: BTreeMap<String, String>,
}

impl Upload {
    /// Reads the form, refusing a body over the limit as soon as it shows:
    /// by its declared length before reading, else while streaming.
    pub(crate) async fn read(
        state: &AppState,
        headers: &HeaderMap,
        multipart: Result<Multipart, MultipartRejection>,
    ) -> ApiResult<Upload> {
        let limit = state.config.files.max_upload_bytes;
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<usize>().ok());
        if declared.is_some_and(|length| length > limit.saturating_add(MULTIPART_OVERHEAD)) {
            return Err(ApiError::field(ErrorKey::FileTooLarge, "file"));
        }
        // Not a multipart form at all: nothing was chosen.
        let Ok(mut multipart) = multipart else {
            return Err(ApiError::field(ErrorKey::ChooseImageFirst, "file"));
        };
        let mut upload = Upload::default();
        while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
            let name = field.name().unwrap_or_default().to_string();
            let is_file = FILE_PARTS.contains(&name.as_str());
            // Together the images stay within the limit.
            let taken: usize = upload.files.values().map(Bytes::len).sum();
            let field_limit = if is_file { limit.saturating_sub(taken) } else { TEXT_FIELD_LIMIT };
            let mut bytes = Vec::new();
            while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                if bytes.len() + chunk.len() > field_limit {
                    return Err(if is_file {
                        ApiError::field(ErrorKey::FileTooLarge, "file")
                    } else {
                        ApiError::field(ErrorKey::InvalidInput, "form")
                    });
                }
                bytes.extend_from_slice(&chunk);
            }
            if is_file {
                if !bytes.is_empty() {
                    upload.files.insert(name, Bytes::from(bytes));
                }
            } else {
                let text = String::from_utf8(bytes).map_err(|_| ApiError::field(ErrorKey::InvalidInput, "form"))?;
                upload.fields.insert(name, text);
            }
        }
        Ok(upload)
    }

    /// The file, if it is an image by its content (`choose_image_first` when
    /// none came, `invalid_input` on `image` when it is not an image).
    fn image(&self) -> ApiResult<(ImageKind, Bytes)> {
        let file = self.files.get("file");
        let kind = validate_image(file.map(|bytes| bytes.as_ref()))?;
        Ok((kind, file.cloned().unwrap_or_default()))
    }

    /// The image of one part, checked as [`Upload::image`] checks `file`
    /// (the error names the part).
    pub(crate) fn image_of(&self, part: &'static str) -> ApiResult<(ImageKind, Bytes)> {
        let file = self.files.get(part);
        let kind =
            validate_image(file.map(|bytes| bytes.as_ref())).map_err(|error| ApiError::field(error.key, part))?;
        Ok((kind, file.cloned().unwrap_or_default()))
    }

    /// Whether an image came in this part.
    pub(crate) fn has(&self, part: &str) -> bool {
        self.files.contains_key(part)
    }
}

fn multipart_error(error: MultipartError) -> ApiError {
    tracing::debug!(%error, "bad multipart body");
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::field(ErrorKey::FileTooLarge, "file")
    } else {
        ApiError::field(ErrorKey::InvalidInput, "form")
    }
}

/// Puts the bytes in the file store and records them; returns the URL the
/// record's field gets.
pub(crate) async fn store_image(
    state: &AppState,
    owner: Option<UserId>,
    folder: &str,
    kind: ImageKind,
    bytes: Bytes,
) -> ApiResult<String> {
    let id = Uuid::now_v7();
    let key = format!("{folder}/{id}.{}", kind.extension());
    let size = bytes.len() as u64;
    state.files.put(&key, bytes).await.map_err(|error| ApiError::Internal(error.to_string()))?;
    let record = FileRecord { id, owner, key, mime: kind.mime().to_string(), size, created_at: state.now() };
    state.storage.insert_file(&record).await?;
    Ok(file_url(id))
}

pub fn file_url(id: Uuid) -> String {
    format!("/api/v1/files/{id}")
}

// ---- profile and licence images -------------------------------------------------

#[utoipa::path(
    post,
    path = "/api/v1/users/me/profile-image",
    tag = "files",
    summary = "Upload my profile photo",
    description = "Spec §7 `updateWebProfileImage`. Any signed-in user, for themself; not refused in demo mode (a user's own profile). Multipart form, the image in `file` (PNG, JPEG, GIF or WebP by content, at most `files.max_upload_bytes`). Sets `profile_image` to the file's URL.",
    request_body(content = ImageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The user with the new `profile_image`", body = wayfare_engine::User)),
    extensions(("x-refusals" = json!(session![ChooseImageFirst, InvalidInput, FileTooLarge]))),
)]
async fn my_profile_image(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::Upload, Resource::None, &settings)?;
    let upload = Upload::read(&state, &headers, multipart).await?;
    let (kind, bytes) = upload.image()?;
    let id = current.principal.id;
    let url = store_image(&state, Some(id), &format!("users/{id}/profileImage"), kind, bytes).await?;
    let user = edit_user(&state, id, |user| {
        user.profile_image = Some(url.clone());
        Ok(())
    })
    .await?;
    Ok(Json(present::user(&user, &current.principal, &settings)))
}

#[utoipa::path(
    post,
    path = "/api/v1/users/me/license-image",
    tag = "files",
    summary = "Upload my driving licence",
    description = "Spec §7 `updateLicenseImage`, by a driver for themself. Multipart form, the image in `file`. Sets `licenseImage` to the file's URL, which only the driver, their fleet admin and admins may read.",
    request_body(content = ImageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The user with the new `licenseImage`", body = wayfare_engine::User)),
    extensions(("x-refusals" = json!(LICENSE_UPLOAD))),
)]
async fn my_license_image(
    State(state): State<AppState>,
    current: CurrentUser,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Value>> {
    let id = current.principal.id;
    save_license(state, current, id, headers, multipart).await
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/license-image",
    tag = "files",
    summary = "Upload a driver's licence",
    description = "Spec §7 `updateLicenseImage(user, file)`: the driver themself, an admin, or the driver's fleet admin (another fleet's driver is `not_found`; an account that is not a driver's is `not_allowed`). A user update, so not refused in demo mode. Multipart form, the image in `file`.",
    params(("id" = UserId, Path, description = "The driver's id")),
    request_body(content = ImageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The driver with the new `licenseImage`", body = wayfare_engine::User)),
    extensions(("x-refusals" = json!(LICENSE_UPLOAD))),
)]
async fn license_image(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Value>> {
    save_license(state, current, id, headers, multipart).await
}

async fn save_license(
    state: AppState,
    current: CurrentUser,
    driver: UserId,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    // A role that may never do this is refused before the lookup (no probing of ids).
    if !Action::LicenseUpload.allowed_roles().contains(&current.principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    let user: User = state.storage.user(driver).await?;
    authorize(Some(&current.principal), Action::LicenseUpload, Resource::User(UserRef::from(&user)), &settings)?;
    let upload = Upload::read(&state, &headers, multipart).await?;
    let (kind, bytes) = upload.image()?;
    let url = store_image(&state, Some(driver), &format!("users/{driver}/license"), kind, bytes).await?;
    let user = edit_user(&state, driver, |user| {
        // Still the caller's to manage as stored now.
        authorize(Some(&current.principal), Action::LicenseUpload, Resource::User(UserRef::from(&*user)), &settings)?;
        user.licenseImage = Some(url.clone());
        Ok(())
    })
    .await?;
    Ok(Json(present::user(&user, &current.principal, &settings)))
}

// ---- car type images --------------------------------------------------------------

#[utoipa::path(
    post,
    path = "/api/v1/cartypes/{id}/image",
    tag = "files",
    summary = "Upload a car type's image",
    description = "Spec §7 `editCarType(carType, UpdateImage)`. Admins; refused with `demo_mode` when critical edits are off (spec §5). Multipart form, the image in `file`. Sets the car type's `image` to the file's URL (public); bookings made afterwards copy it as `carImage`.",
    params(("id" = CarTypeId, Path, description = "The car type's id")),
    request_body(content = ImageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The car type with its new image", body = CarType)),
    extensions(("x-refusals" = json!(session![
        ChooseImageFirst, InvalidInput, FileTooLarge, NotAllowed, DemoMode, NotFound
    ]))),
)]
async fn car_type_image(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<CarTypeId>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<CarType>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::CarTypesWrite, Resource::None, &settings)?;
    let mut car_type = state.storage.car_type(id).await?;
    let upload = Upload::read(&state, &headers, multipart).await?;
    let (kind, bytes) = upload.image()?;
    car_type.image = store_image(&state, Some(current.principal.id), &format!("cartypes/{id}"), kind, bytes).await?;
    state.storage.save_car_type(&car_type, state.now()).await?;
    state.runtime.reload_catalog().await?;
    Ok(Json(car_type))
}

// ---- parcel photos --------------------------------------------------------------------

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/images",
    tag = "files",
    summary = "Upload a parcel photo",
    description = "The assigned driver of a delivery booking, when the settings ask for the photo: `kind` `pickup_image` at ARRIVED or STARTED (`AllowDeliveryPickupImageCapture`), `deliver_image` at STARTED or REACHED (`AllowFinalDeliveryImageCapture`); otherwise `not_allowed` or 409 `status_not_allowed`. Multipart form with `kind` and the image in `file`. Sets the booking's field to the file's URL, which the booking's parties may read.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body(content = ParcelImageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The booking with the photo, as the driver may see it", body = wayfare_engine::Booking)),
    extensions(("x-refusals" = json!(booking_command![ChooseImageFirst, InvalidInput, FileTooLarge]))),
)]
async fn parcel_image(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Box<serde_json::value::RawValue>>> {
    let catalog = state.runtime.catalog();
    if !Action::ParcelImageUpload.allowed_roles().contains(&current.principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    let current_booking = state.runtime.booking(id).await?;
    authorize(
        Some(&current.principal),
        Action::ParcelImageUpload,
        Resource::Booking((&*current_booking).into()),
        &catalog.settings,
    )?;
    let upload = Upload::read(&state, &headers, multipart).await?;
    let slot = upload
        .fields
        .get("kind")
        .and_then(|kind| ParcelImage::parse(kind.trim()))
        .ok_or_else(|| ApiError::field(ErrorKey::InvalidInput, "kind"))?;
    // Ask the state machine first, so a photo it would refuse is never stored.
    let context =
        Context { now: state.now(), settings: &catalog.settings, car_type: catalog.car_type(&current_booking.carType) };
    booking::apply(&current_booking, current.by(), Command::AttachImage { slot, url: String::new() }, &context)?;
    let (kind, bytes) = upload.image()?;
    let url = store_image(&state, Some(current.principal.id), &format!("bookings/{id}/{}", slot.as_str()), kind, bytes)
        .await?;
    let updated = state.runtime.command(id, current.by(), Command::AttachImage { slot, url }).await?;
    Ok(Json(crate::routes::bookings::presented_one(&state, &current, &updated).await?))
}

// ---- serving files ----------------------------------------------------------------------

/// What a stored file is, read from its key (the spec §7 storage paths).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    ProfileImage,
    CarTypeImage,
    License(UserId),
    /// A driver's registration or insurance: read like a licence.
    Document(UserId),
    ParcelPhoto(BookingId),
}

impl Stored {
    fn of_key(key: &str) -> Option<Stored> {
        let parts: Vec<&str> = key.split('/').collect();
        match parts.as_slice() {
            ["users", _, "profileImage", _] => Some(Stored::ProfileImage),
            ["users", user, "license", _] => user.parse().ok().map(Stored::License),
            ["users", user, "documents", _, _] => user.parse().ok().map(Stored::Document),
            ["cartypes", _, _] => Some(Stored::CarTypeImage),
            ["bookings", booking, "pickup_image" | "deliver_image", _] => booking.parse().ok().map(Stored::ParcelPhoto),
            _ => None,
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/files/{id}",
    tag = "files",
    summary = "Download a file",
    description = "The bytes with their image type. Profile and car type images are public; a licence is for its driver, the driver's fleet admin and admins; a parcel photo for those who may read the booking. Others get `not_logged_in`, `not_allowed` or `not_found` as for the record itself.",
    params(("id" = Uuid, Path, description = "The file's id (the last part of its URL)")),
    responses((status = 200, description = "The image", content_type = "image/*", body = Vec<u8>)),
    extensions(("x-refusals" = json!(optional_session![NotLoggedIn, NotAllowed, NotFound]))),
)]
async fn download_file(
    State(state): State<AppState>,
    // A driver waiting for approval reads their own documents too.
    MaybeApplicant(current): MaybeApplicant,
    PathParam(id): PathParam<Uuid>,
) -> ApiResult<Response> {
    let record = state.storage.file(id).await?;
    let stored = Stored::of_key(&record.key).ok_or(ErrorKey::NotFound)?;
    let settings = state.runtime.catalog().settings.clone();
    let principal = current.as_ref().map(|current| &current.principal);
    let public = match stored {
        Stored::ProfileImage | Stored::CarTypeImage => true,
        Stored::License(driver) | Stored::Document(driver) => {
            let Some(principal) = principal else { return Err(ErrorKey::NotLoggedIn.into()) };
            if !Action::LicenseRead.allowed_roles().contains(&principal.role) && principal.id != driver {
                return Err(ErrorKey::NotAllowed.into());
            }
            let owner = state.storage.user(driver).await?;
            authorize(Some(principal), Action::LicenseRead, Resource::User(UserRef::from(&owner)), &settings)?;
            false
        }
        Stored::ParcelPhoto(booking_id) => {
            let Some(principal) = principal else { return Err(ErrorKey::NotLoggedIn.into()) };
            let booking = state.runtime.booking(booking_id).await?;
            authorize(Some(principal), Action::BookingRead, Resource::Booking((&*booking).into()), &settings)?;
            false
        }
    };
    let bytes = state.files.get(&record.key).await.map_err(|error| match error {
        crate::files::FileStoreError::NotFound(_) => ApiError::key(ErrorKey::NotFound),
        other => ApiError::Internal(other.to_string()),
    })?;
    let mime = HeaderValue::from_str(&record.mime).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    // A file id never names other bytes, so public images cache for good.
    let cache = if public { "public, max-age=31536000, immutable" } else { "private, max-age=300" };
    Ok((
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ],
        Body::from(bytes),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_files_are_told_apart_by_their_spec_paths() {
        let user = UserId::from_u128(7);
        let booking = BookingId(Uuid::from_u128(9));
        assert_eq!(Stored::of_key(&format!("users/{user}/profileImage/a.png")), Some(Stored::ProfileImage));
        assert_eq!(Stored::of_key(&format!("users/{user}/license/a.png")), Some(Stored::License(user)));
        assert_eq!(Stored::of_key("cartypes/1/a.webp"), Some(Stored::CarTypeImage));
        assert_eq!(Stored::of_key(&format!("users/{user}/documents/insurance/a.png")), Some(Stored::Document(user)));
        assert_eq!(
            Stored::of_key(&format!("bookings/{booking}/deliver_image/a.jpg")),
            Some(Stored::ParcelPhoto(booking))
        );
        assert_eq!(Stored::of_key(&format!("bookings/{booking}/selfie/a.jpg")), None);
        assert_eq!(Stored::of_key("users/not-an-id/license/a.png"), None);
        assert_eq!(Stored::of_key("elsewhere/a.png"), None);
    }
}
