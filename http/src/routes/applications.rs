//! Drivers sign themselves up (issue #33; spec §7 `user_signup`): the
//! sign-up with a one-time code, their documents, the approval queue of the
//! panel, rejection with a reason, and the expiry sweep.
//!
//! A driver who signed up and waits for approval may sign in, but only the
//! routes here that take [`Applicant`] (and `/auth/me`, `/auth/logout`,
//! their own files) answer them; every other route takes `CurrentUser`,
//! which refuses them with `require_approval`. What a document needs, what
//! an application's status is and when a driver may go online are the
//! engine's (`wayfare_engine::model::document`, `wayfare_engine::signup`).

use crate::auth::delivery::{Channel, Outgoing};
use crate::auth::routes::{SignedIn, check_code, find_user, insert_new_user, signed_in};
use crate::auth::{Applicant, CurrentUser};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, ClientAddress, PathParam, QueryParams};
use crate::openapi::refusals::{public_with_body, session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::files::{Upload, store_image};
use crate::routes::user_edit::edit_user;
use crate::state::AppState;
use axum::Json;
use axum::extract::DefaultBodyLimit;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_engine::booking::NOTIFICATION_TITLE_KEY;
use wayfare_engine::model::document;
use wayfare_engine::permissions::{self, Action, Resource, UserRef, authorize};
use wayfare_engine::rules::contact::{Contact, validate_login_contact};
use wayfare_engine::signup::{SignupFields, check_signup};
use wayfare_engine::{
    Application, DocumentKind, DocumentStatus, DriverDocument, ErrorKey, Millis, RegType, Role, User, UserId,
};

pub fn router() -> ApiRouter {
    let uploads = ApiRouter::new().routes(routes!(upload_document)).layer(DefaultBodyLimit::disable());
    ApiRouter::new()
        .merge(uploads)
        .routes(routes!(signup))
        .routes(routes!(my_application))
        .routes(routes!(queue))
        .routes(routes!(user_documents))
        .routes(routes!(reject))
}

// ---- sign-up ------------------------------------------------------------------------

/// The sign-up form: the contact and its one-time code (asked for with
/// `POST /api/v1/auth/otp/request`), who the person is and, for a driver,
/// the vehicle.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct SignupRequest {
    /// An e-mail address or a phone number in international form.
    #[schema(min_length = 1)]
    pub contact: String,
    /// The 6-digit code.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
    #[serde(flatten)]
    pub fields: SignupFields,
    /// A fleet admin's referral code: the driver joins that fleet.
    #[serde(default)]
    pub fleetCode: Option<String>,
    /// A friend's referral code: the referral bonus to both.
    #[serde(default)]
    pub referralId: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/auth/signup",
    tag = "auth",
    summary = "Sign up (spec §7 user_signup)",
    description = "A new person signs up with the one-time code of their contact, checked as `/auth/otp/verify` checks it (at most 5 wrong tries). `usertype` `driver` (or `rider`). Names not blank (`profile_incomplete`); a driver also needs a car type the platform has (`select_proper`), make, model, plate and colour (`vehicle_details_missing`) and a model year from 1950 to next year (`vehicle_year_invalid`). `fleetCode`, a fleet admin's referral code, puts the driver in that fleet (`fleet_code_invalid` when no fleet admin has it). A contact (or e-mail) that has an account is 409 `user_exists`. A driver is approved at once only when `driver_approval` is off; otherwise they wait in the panel's queue, signed in to upload their documents. Answers the session as `/auth/otp/verify` does.",
    request_body = SignupRequest,
    responses((status = 200, description = "Signed up and signed in; the token is also the `wayfare_session` cookie", body = SignedIn)),
    extensions(("x-refusals" = json!(public_with_body![
        ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError, OtpValidateError, CodeExpired,
        InvalidCode, TooManyAttempts, UserExists, NotValidUserType, ProfileIncomplete, SelectProper,
        VehicleDetailsMissing, VehicleYearInvalid, FleetCodeInvalid
    ]))),
)]
async fn signup(
    State(state): State<AppState>,
    client: ClientAddress,
    Body(request): Body<SignupRequest>,
) -> ApiResult<impl IntoResponse> {
    let catalog = state.runtime.catalog();
    let settings = catalog.settings.clone();
    let contact = validate_login_contact(&request.contact, None, false)?;
    let now = state.now();
    let checked = check_signup(&request.fields, &catalog.car_types, now)?;
    let fleet = match request.fleetCode.as_deref().map(str::trim).filter(|code| !code.is_empty()) {
        Some(code) if checked.usertype == Role::Driver => {
            let auth = &state.config.auth;
            // Guessing fleet codes costs what asking for sign-in codes does.
            if !state.limiter.allow(&client.0, now, auth.window_secs as i64 * 1_000, auth.codes_per_client) {
                return Err(ErrorKey::TooManyAttempts.into());
            }
            match state.storage.user_by_referral(&code.to_uppercase()).await? {
                Some(owner) if owner.usertype == Role::Fleetadmin => Some(owner.id),
                _ => return Err(ApiError::field(ErrorKey::FleetCodeInvalid, "fleetCode")),
            }
        }
        _ => None,
    };
    check_code(&state, &contact, &request.code).await?;
    if find_user(&state, &contact).await?.is_some() {
        return Err(ApiError::field(ErrorKey::UserExists, "contact"));
    }
    let mut user = User::new(UserId(uuid::Uuid::now_v7()), checked.usertype, now);
    user.regType = RegType::Registration;
    match &contact {
        Contact::Email(email) => user.email = email.clone(),
        Contact::Phone(phone) => user.mobile = phone.clone(),
    }
    if let Some(email) = checked.email.filter(|_| user.email.is_empty()) {
        if state.storage.user_by_email(&email).await?.is_some() {
            return Err(ApiError::field(ErrorKey::UserExists, "email"));
        }
        user.email = email;
    }
    user.firstName = checked.firstName;
    user.lastName = checked.lastName;
    if checked.usertype == Role::Driver {
        user.carType = checked.carType;
        user.vehicleMake = checked.vehicleMake;
        user.vehicleModel = checked.vehicleModel;
        user.vehicleNumber = checked.vehicleNumber;
        user.vehicleColor = checked.vehicleColor;
        user.vehicleYear = checked.vehicleYear;
        user.fleetadmin = fleet;
        user.approved = !settings.driver_approval;
    } else {
        user.approved = true;
    }
    let user = insert_new_user(&state, user, request.referralId.as_deref()).await?;
    tracing::info!(user_id = %user.id, role = user.usertype.as_str(), approved = user.approved, "signed up");
    signed_in(&state, user).await
}

// ---- documents ------------------------------------------------------------------------

/// The multipart form of a document (documentation only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct DocumentUpload {
    /// The image: PNG, JPEG, GIF or WebP by content.
    #[schema(value_type = String, format = Binary)]
    front: Vec<u8>,
    /// The licence's back side.
    #[schema(value_type = Option<String>, format = Binary)]
    back: Option<Vec<u8>>,
    /// The licence number.
    number: Option<String>,
    /// Licence and insurance: when it expires, `YYYY-MM-DD` or milliseconds.
    expiry: Option<String>,
}

/// A date the form sends: milliseconds, or `YYYY-MM-DD` (the end of that
/// day, UTC: a document is valid through its expiry date).
fn parse_expiry(text: &str) -> Option<Millis> {
    let text = text.trim();
    if !text.is_empty() && text.chars().all(|digit| digit.is_ascii_digit()) {
        return text.parse().ok();
    }
    let mut parts = text.splitn(3, '-').map(|part| part.parse::<i64>().ok());
    let (year, month, day) = (parts.next()??, parts.next()??, parts.next()??);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let shifted_year = if month <= 2 { year - 1 } else { year };
    let era = shifted_year.div_euclid(400);
    let year_of_era = shifted_year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some((days + 1) * 86_400_000 - 1)
}

#[utoipa::path(
    post,
    path = "/api/v1/drivers/me/documents/{kind}",
    tag = "drivers",
    summary = "Upload one of my documents",
    description = "A driver, approved or waiting for approval: `licence` (front, back, `number`, `expiry`), `registration`, `insurance` (`expiry`) or `photo`. Multipart form: the image in `front` (PNG, JPEG, GIF or WebP by content, `choose_image_first` when none), the licence's back in `back`; `expiry` as `YYYY-MM-DD` or milliseconds (`document_expiry_invalid` when missing or unreadable; one already past counts as expired at once); a licence needs its `number` (`document_number_missing`). Replaces the current document of that kind; it is `pending` until reviewed (`approved` at once when `driver_approval` is off). The photo also becomes `profile_image`, the licence's front `licenseImage`. A driver may not go online while a required document is pending.",
    params(("kind" = DocumentKind, Path, description = "`licence`, `registration`, `insurance` or `photo`")),
    request_body(content = DocumentUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The document as stored", body = DriverDocument)),
    extensions(("x-refusals" = json!(session![
        NotAllowed, InvalidInput, FileTooLarge, ChooseImageFirst, DocumentNumberMissing, DocumentExpiryInvalid
    ]))),
)]
async fn upload_document(
    State(state): State<AppState>,
    Applicant(current): Applicant,
    PathParam(kind): PathParam<String>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<DriverDocument>> {
    if current.principal.role != Role::Driver {
        return Err(ErrorKey::NotAllowed.into());
    }
    let kind = DocumentKind::parse(kind.trim()).ok_or(ApiError::field(ErrorKey::InvalidInput, "kind"))?;
    let settings = state.runtime.catalog().settings.clone();
    let upload = Upload::read(&state, &headers, multipart).await?;
    let now = state.now();
    let expiry = match upload.fields.get("expiry").map(|text| text.trim()).filter(|text| !text.is_empty()) {
        Some(text) => Some(parse_expiry(text).ok_or(ApiError::field(ErrorKey::DocumentExpiryInvalid, "expiry"))?),
        None => None,
    };
    let fields = document::validate_document_fields(kind, upload.fields.get("number").map(String::as_str), expiry)?;
    let (front_kind, front_bytes) = upload.image_of("front")?;
    let back = if kind == DocumentKind::Licence && upload.has("back") { Some(upload.image_of("back")?) } else { None };
    let id = current.principal.id;
    // Licence images live where the licence always did, the photo where
    // profile photos do: the files' read rules follow from these paths.
    let folder = match kind {
        DocumentKind::Licence => format!("users/{id}/license"),
        DocumentKind::Photo => format!("users/{id}/profileImage"),
        other => format!("users/{id}/documents/{}", other.as_str()),
    };
    let front = store_image(&state, Some(id), &folder, front_kind, front_bytes).await?;
    let back = match back {
        Some((back_kind, back_bytes)) => Some(store_image(&state, Some(id), &folder, back_kind, back_bytes).await?),
        None => None,
    };
    let status = if settings.driver_approval { DocumentStatus::Pending } else { DocumentStatus::Approved };
    let stored = DriverDocument {
        driver: id,
        kind,
        number: fields.number,
        expires_at: fields.expires_at,
        front: front.clone(),
        back,
        status,
        reason: None,
        reviewed_by: None,
        reviewed_at: None,
        reminded_at: None,
        created_at: now,
        updated_at: now,
    };
    state.storage.save_driver_document(&stored).await?;
    if matches!(kind, DocumentKind::Licence | DocumentKind::Photo) {
        edit_user(&state, id, |user| {
            match kind {
                DocumentKind::Licence => user.licenseImage = Some(front.clone()),
                _ => user.profile_image = Some(front.clone()),
            }
            Ok(())
        })
        .await?;
    }
    // A driver whose document changed under them waits for it to be reviewed.
    if status == DocumentStatus::Pending && settings.driverDocuments.contains(&kind) && state.runtime.is_online(id) {
        state.runtime.driver_offline(id).await?;
    }
    Ok(Json(stored))
}

/// The driver's application as the settings require it now.
async fn application_of(state: &AppState, driver: &User) -> ApiResult<Application> {
    let required = document::required_kinds(&state.runtime.catalog().settings.driverDocuments);
    let documents = state.storage.driver_documents(driver.id).await?;
    let self_registered = driver.regType == RegType::Registration;
    Ok(document::application(driver.approved, self_registered, documents, &required, state.now()))
}

#[utoipa::path(
    get,
    path = "/api/v1/drivers/me/application",
    tag = "drivers",
    summary = "My application",
    description = "A driver, approved or waiting: `status` (`incomplete` while a required document is missing, rejected or expired; `pending` while waiting for review; `approved`; `rejected`, with the `reason` they were told), the kinds `required` (setting `driverDocuments`), those `missing`, and the documents.",
    responses((status = 200, description = "The application", body = Application)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn my_application(State(state): State<AppState>, Applicant(current): Applicant) -> ApiResult<Json<Application>> {
    if current.principal.role != Role::Driver {
        return Err(ErrorKey::NotAllowed.into());
    }
    Ok(Json(application_of(&state, &current.user).await?))
}

/// Refuses going online when the driver's documents do not allow it:
/// `document_expired` or `documents_missing` (the engine's
/// `document::may_go_online`). Checked at each request, so an expiry needs
/// no sweep to take effect.
pub(crate) async fn check_may_go_online(state: &AppState, driver: &User) -> ApiResult<()> {
    let required = document::required_kinds(&state.runtime.catalog().settings.driverDocuments);
    if required.is_empty() {
        return Ok(());
    }
    let documents = state.storage.driver_documents(driver.id).await?;
    let self_registered = driver.regType == RegType::Registration;
    document::may_go_online(driver.approved, self_registered, &documents, &required, state.now())?;
    Ok(())
}

// ---- the panel's queue and review ------------------------------------------------------

#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// Page size, 1 to 500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The `next` cursor of the previous page.
    pub after: Option<String>,
}

/// A page of the approval queue.
#[derive(Serialize, utoipa::ToSchema)]
pub struct QueuePage {
    /// The drivers waiting, oldest sign-up first.
    pub items: Vec<User>,
    pub next: Option<String>,
    /// How many drivers wait in all.
    pub total: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/drivers/applications",
    tag = "users",
    summary = "Drivers waiting for approval",
    description = "Admins (every driver) and fleet admins (their fleet's): drivers not approved yet with every required document uploaded, and approved drivers with a replacement document waiting. Paged by `limit` and `after`; `total` counts them all.",
    params(QueueQuery),
    responses((status = 200, description = "A page of the queue", body = QueuePage)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput]))),
)]
async fn queue(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<QueueQuery>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::UsersList, Resource::None, &settings)?;
    let scope = permissions::user_list_scope(&current.principal, Some(Role::Driver))?;
    let required = document::required_kinds(&settings.driverDocuments);
    let page = super::page_request(query.limit, query.after)?;
    let found = state.storage.driver_applications(scope.fleet, &required, &page).await?;
    let total = state.storage.count_driver_applications(scope.fleet, &required).await?;
    let items: Vec<Value> = found.items.iter().map(|user| present::user(user, &current.principal, &settings)).collect();
    Ok(Json(json!({ "items": items, "next": found.next, "total": total })))
}

/// A driver the caller reviews: admins any, fleet admins their fleet's
/// (another fleet's is 404, as for approving).
async fn reviewed_driver(state: &AppState, current: &CurrentUser, id: UserId) -> ApiResult<User> {
    if !Action::UserApprove.allowed_roles().contains(&current.principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    let account = state.storage.user(id).await?;
    let settings = &state.runtime.catalog().settings;
    authorize(Some(&current.principal), Action::UserApprove, Resource::User(UserRef::from(&account)), settings)?;
    if account.usertype != Role::Driver {
        return Err(ApiError::field(ErrorKey::NotValidUserType, "usertype"));
    }
    Ok(account)
}

/// A driver and their application, as the panel's review shows them.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DriverApplication {
    pub user: User,
    pub application: Application,
}

#[utoipa::path(
    get,
    path = "/api/v1/users/{id}/documents",
    tag = "users",
    summary = "A driver's documents",
    description = "The driver themself, admins, and the driver's fleet admin (another fleet's driver is `not_found`): the driver with their application and documents.",
    params(("id" = UserId, Path, description = "The driver's id")),
    responses((status = 200, description = "The driver and their application", body = DriverApplication)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound, NotValidUserType]))),
)]
async fn user_documents(
    State(state): State<AppState>,
    Applicant(current): Applicant,
    PathParam(id): PathParam<UserId>,
) -> ApiResult<Json<Value>> {
    let driver = if current.principal.id == id && current.principal.role == Role::Driver {
        current.user.clone()
    } else {
        reviewed_driver(&state, &current, id).await?
    };
    let application = application_of(&state, &driver).await?;
    let settings = state.runtime.catalog().settings.clone();
    Ok(Json(json!({ "user": present::user(&driver, &current.principal, &settings), "application": application })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct RejectBody {
    /// What the driver is told: not blank, at most 500 characters.
    #[schema(min_length = 1, max_length = 500)]
    pub reason: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/users/{id}/reject",
    tag = "users",
    summary = "Reject a driver's documents",
    description = "Admins, and fleet admins for their fleet's drivers: every document of the driver waiting for review is rejected with the `reason` (`reason_required` when blank); nothing waiting is 409 `status_not_allowed`. The driver stays unapproved (an approved driver keeps their approval but may not go online until a rejected required document is replaced and approved) and is told why, in the app and by e-mail (or SMS). Allowed in demo mode.",
    params(("id" = UserId, Path, description = "The driver's id")),
    request_body = RejectBody,
    responses((status = 200, description = "The driver and their application now", body = DriverApplication)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, NotFound, NotValidUserType, ReasonRequired, StatusNotAllowed
    ]))),
)]
async fn reject(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    Body(body): Body<RejectBody>,
) -> ApiResult<Json<Value>> {
    let driver = reviewed_driver(&state, &current, id).await?;
    let reason = document::validate_reason(body.reason.as_deref())?;
    let now = state.now();
    let rejected = state
        .storage
        .review_driver_documents(id, DocumentStatus::Rejected, Some(&reason), current.principal.id, now)
        .await?;
    if rejected.is_empty() {
        return Err(ErrorKey::StatusNotAllowed.into());
    }
    tracing::info!(user_id = %id, by = %current.principal.id, "driver documents rejected");
    tell_driver(&state, &driver, Notice::Rejected { reason: &reason }).await;
    let application = application_of(&state, &driver).await?;
    let settings = state.runtime.catalog().settings.clone();
    Ok(Json(json!({ "user": present::user(&driver, &current.principal, &settings), "application": application })))
}

/// After `POST /users/{id}/approve` of a driver: their waiting documents are
/// approved with them, and they are told.
pub(crate) async fn on_approved(state: &AppState, by: UserId, driver: &User, newly_approved: bool) -> ApiResult<()> {
    if driver.usertype != Role::Driver {
        return Ok(());
    }
    let approved =
        state.storage.review_driver_documents(driver.id, DocumentStatus::Approved, None, by, state.now()).await?;
    if newly_approved || !approved.is_empty() {
        tell_driver(state, driver, Notice::Approved).await;
    }
    Ok(())
}

// ---- telling the driver -----------------------------------------------------------------

/// What a driver is told about their application.
#[derive(Debug, Clone, Copy)]
enum Notice<'a> {
    Approved,
    Rejected { reason: &'a str },
    Expiring { kind: DocumentKind, expires_at: Millis },
}

/// Tells the driver in the app (the socket's `notification`, and push when
/// they have a token) and by e-mail, or SMS without an e-mail. A message
/// that cannot be sent is logged: the review itself stands.
async fn tell_driver(state: &AppState, driver: &User, notice: Notice<'_>) {
    let texts = state.languages.for_user(state.storage.as_ref(), driver).await;
    let (key, subject, body) = match notice {
        Notice::Approved => {
            ("driver_approved", texts.text("driver_approved_subject"), texts.text("driver_approved_body"))
        }
        Notice::Rejected { reason } => (
            "driver_rejected",
            texts.text("driver_rejected_subject"),
            texts.text("driver_rejected_body").replace("{reason}", reason),
        ),
        Notice::Expiring { kind, expires_at } => (
            "document_expiring",
            texts.text("document_expiring_subject"),
            texts
                .text("document_expiring_body")
                .replace("{document}", &texts.text(&format!("document_kind_{}", kind.as_str())))
                .replace("{date}", &date_of(expires_at)),
        ),
    };
    let payload = json!({
        "key": key,
        "title": texts.text(NOTIFICATION_TITLE_KEY),
        "body": body,
        "createdAt": state.now(),
        "screen": "Application",
    });
    state.notifier.in_app(vec![driver.id], payload);
    if let Some(token) = driver.pushToken.clone().filter(|token| !token.is_empty())
        && state.notifier.pushes()
    {
        let message = crate::notify::PushMessage {
            token,
            platform: driver.userPlatform,
            title: subject.clone(),
            body: body.clone(),
            data: json!({ "screen": "Application" }),
            channel: "bookings".into(),
        };
        state.notifier.push(vec![message]).await;
    }
    let (channel, to) = if driver.email.is_empty() {
        (Channel::Sms, driver.mobile.clone())
    } else {
        (Channel::Email, driver.email.clone())
    };
    if to.is_empty() {
        return;
    }
    let message = Outgoing { channel, to, subject, body, code: String::new(), html: None, attachments: Vec::new() };
    if let Err(error) = state.deliveries.send(&message).await {
        tracing::warn!(user_id = %driver.id, %error, "a driver's application message was not sent");
    }
}

/// A day as `YYYY-MM-DD` (UTC).
fn date_of(at: Millis) -> String {
    let days = at.div_euclid(86_400_000);
    // Civil date from days (Howard Hinnant's algorithm).
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

// ---- the expiry sweep ----------------------------------------------------------------------

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    pub reminded: usize,
    pub taken_offline: usize,
}

/// Documents read per round of reminders.
const REMINDERS_PER_ROUND: u32 = 200;

/// One pass of the expiry sweep at `now`: one reminder for each document
/// expiring within 30 days (the conditional mark decides, so two nodes
/// remind once), and online drivers with an expired required document are
/// taken offline. Going online checks expiry by itself; this is for those
/// already online.
pub async fn sweep_documents(state: &AppState, now: Millis) -> ApiResult<SweepReport> {
    let mut report = SweepReport::default();
    loop {
        let due = state.storage.documents_to_remind(now + document::EXPIRY_REMINDER_MS, REMINDERS_PER_ROUND).await?;
        let round = due.len();
        for expiring in due {
            if !state.storage.mark_document_reminded(expiring.driver, expiring.kind, now).await? {
                continue;
            }
            let driver = match state.storage.user(expiring.driver).await {
                Ok(driver) => driver,
                Err(wayfare_storage::StorageError::NotFound) => continue,
                Err(error) => return Err(error.into()),
            };
            let expires_at = expiring.expires_at.unwrap_or(now);
            tell_driver(state, &driver, Notice::Expiring { kind: expiring.kind, expires_at }).await;
            report.reminded += 1;
        }
        if round < REMINDERS_PER_ROUND as usize {
            break;
        }
    }
    let required = document::required_kinds(&state.runtime.catalog().settings.driverDocuments);
    let mut drivers: Vec<UserId> = state
        .storage
        .online_expired_documents(now)
        .await?
        .into_iter()
        .filter(|expired| required.contains(&expired.kind))
        .map(|expired| expired.driver)
        .collect();
    drivers.dedup();
    for driver in drivers {
        if state.runtime.is_online(driver) {
            state.runtime.driver_offline(driver).await?;
            tracing::info!(user_id = %driver, "driver taken offline: a required document expired");
            report.taken_offline += 1;
        }
    }
    Ok(report)
}

/// How often the server sweeps.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(3_600);

/// Runs [`sweep_documents`] every [`SWEEP_EVERY`] on the state's clock until the process stops.
pub fn spawn_document_sweep(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(SWEEP_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match sweep_documents(&state, state.now()).await {
                Ok(report) if report != SweepReport::default() => {
                    tracing::info!(reminded = report.reminded, taken_offline = report.taken_offline, "document sweep")
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(?error, "document sweep failed"),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_dates_are_read_as_the_end_of_that_day_and_written_back() {
        let end_of_day = parse_expiry("2027-01-15").unwrap();
        assert_eq!(end_of_day, 1_800_057_600_000 - 1);
        assert_eq!(date_of(end_of_day), "2027-01-15");
        assert_eq!(parse_expiry("1800000000000"), Some(1_800_000_000_000));
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(parse_expiry("2027-13-01"), None);
        assert_eq!(parse_expiry("soon"), None);
    }
}
