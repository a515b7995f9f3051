//! `/api/v1/auth/*` and the dev outbox.

use super::delivery::{Channel, Outgoing};
use super::extract::{Applicant, SESSION_COOKIE};
use super::tokens;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, ClientAddress, QueryParams};
use crate::openapi::refusals::{public, public_with_body, session};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa_axum::routes;
use wayfare_engine::booking::WalletChange;
use wayfare_engine::rules::contact::{Contact, validate_login_contact, validate_sign_in_code};
use wayfare_engine::{ErrorKey, RegType, Role, User, UserId, WalletEntryType, generate};
use wayfare_storage::{Challenge, Session, StorageError};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(request_code))
        .routes(routes!(verify_code))
        .routes(routes!(check_referral))
        .routes(routes!(me))
        .routes(routes!(logout))
        .routes(routes!(outbox))
        .merge(super::oauth::routes::router())
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CodeRequest {
    /// An e-mail address or a phone number in international form.
    #[schema(min_length = 1)]
    pub contact: String,
    #[serde(default)]
    pub country: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeSent {
    pub channel: Channel,
    pub expires_at: i64,
}

#[utoipa::path(
    post,
    path = "/api/v1/auth/otp/request",
    tag = "auth",
    summary = "Send a sign-in code",
    description = "Sends a 6-digit code by e-mail or SMS, valid 10 minutes. Rate-limited per contact and per client address (429 `too_many_attempts`). With the dev outbox on, the code is readable at `/api/v1/dev/outbox`.",
    request_body = CodeRequest,
    responses((status = 200, description = "The code was sent", body = CodeSent)),
    extensions(("x-refusals" = json!(public_with_body![
        ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError, TooManyAttempts
    ]))),
)]
async fn request_code(
    state: axum::extract::State<AppState>,
    client: ClientAddress,
    headers: axum::http::HeaderMap,
    Body(request): Body<CodeRequest>,
) -> ApiResult<Json<CodeSent>> {
    let settings = state.runtime.catalog().settings.clone();
    let contact = validate_login_contact(&request.contact, request.country.as_deref(), settings.AllowCountrySelection)?;
    let now = state.now();
    let auth = &state.config.auth;
    let window_ms = auth.window_secs as i64 * 1_000;
    if !state.limiter.allow(&client.0, now, window_ms, auth.codes_per_client) {
        return Err(ErrorKey::TooManyAttempts.into());
    }
    // `since` is inclusive: a code asked for exactly a window ago has left it, as in the per-address limit.
    if state.storage.challenges_since(contact.as_str(), now - window_ms + 1).await? >= u64::from(auth.codes_per_contact)
    {
        return Err(ErrorKey::TooManyAttempts.into());
    }
    let code = generate::sign_in_code(&mut rand::rng());
    let expires_at = now + auth.code_ttl_secs as i64 * 1_000;
    let challenge = Challenge {
        id: uuid::Uuid::now_v7(),
        contact: contact.as_str().to_string(),
        code_hash: tokens::code_hash(contact.as_str(), &code),
        created_at: now,
        expires_at,
        attempts: 0,
        consumed_at: None,
        client: Some(client.0),
    };
    state.storage.insert_challenge(&challenge).await?;
    // The person is not signed in yet: the language their browser asks for.
    let texts = state.languages.for_visitor(state.storage.as_ref(), &headers).await;
    let channel = if contact.is_email() { Channel::Email } else { Channel::Sms };
    let message = Outgoing {
        channel,
        to: contact.as_str().to_string(),
        subject: texts.text("sign_in_code_subject"),
        body: texts.text("sign_in_code_body").replace("{code}", &code),
        code,
        html: None,
        attachments: Vec::new(),
    };
    state.deliveries.send(&message).await.map_err(|error| ApiError::Unavailable(error.to_string()))?;
    Ok(Json(CodeSent { channel, expires_at }))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct VerifyRequest {
    #[schema(min_length = 1)]
    pub contact: String,
    /// The 6-digit code.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
    /// A referral code given at first sign-in.
    #[serde(default)]
    pub referralId: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SignedIn {
    pub token: String,
    pub user: User,
}

#[utoipa::path(
    post,
    path = "/api/v1/auth/otp/verify",
    tag = "auth",
    summary = "Sign in with the code",
    description = "At most 5 wrong tries per code. The first sign-in of a new contact creates a rider (a valid `referralId` credits the referral bonus to both). An account waiting for approval is `require_approval`, except a driver's: they sign in to follow their application, and every route but `/auth/me`, `/auth/logout`, their application and documents still answers them `require_approval`. Answers the session token and sets it as the HttpOnly `wayfare_session` cookie.",
    request_body = VerifyRequest,
    responses((status = 200, description = "Signed in; the token is also set as the `wayfare_session` cookie", body = SignedIn, headers(("Set-Cookie" = String, description = "`wayfare_session=<token>; HttpOnly; SameSite=Lax; Path=/`")))),
    extensions(("x-refusals" = json!(public_with_body![
        ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError, OtpValidateError, CodeExpired,
        InvalidCode, TooManyAttempts, RequireApproval, UserExists
    ]))),
)]
async fn verify_code(
    state: axum::extract::State<AppState>,
    Body(request): Body<VerifyRequest>,
) -> ApiResult<impl IntoResponse> {
    let contact = validate_login_contact(&request.contact, None, false)?;
    check_code(&state, &contact, &request.code).await?;
    let user = match find_user(&state, &contact).await? {
        Some(user) => user,
        None => create_rider(&state, &contact, request.referralId.as_deref()).await?,
    };
    may_sign_in(&user)?;
    signed_in(&state, user).await
}

/// Whether an account may start a session (`require_approval`): a driver
/// waiting for approval signs in to follow their application; every other
/// route still refuses them (`Applicant` vs `CurrentUser`).
pub(crate) fn may_sign_in(user: &User) -> ApiResult<()> {
    if !user.approved && user.usertype != Role::Driver {
        return Err(ErrorKey::RequireApproval.into());
    }
    Ok(())
}

/// Checks a one-time code against the contact's latest challenge and
/// consumes it: expired, wrong (counted, at most `max_attempts`) or used up
/// codes are refused. Sign-in and sign-up share it.
pub(crate) async fn check_code(state: &AppState, contact: &Contact, code: &str) -> ApiResult<()> {
    let code = validate_sign_in_code(code)?;
    let now = state.now();
    let challenge = state.storage.latest_challenge(contact.as_str()).await?.ok_or(ErrorKey::CodeExpired)?;
    if challenge.expires_at <= now {
        return Err(ErrorKey::CodeExpired.into());
    }
    let max_attempts = state.config.auth.max_attempts;
    if challenge.attempts >= max_attempts {
        return Err(ErrorKey::TooManyAttempts.into());
    }
    if !tokens::same(&challenge.code_hash, &tokens::code_hash(contact.as_str(), code)) {
        let attempts = state.storage.record_failed_attempt(challenge.id).await?;
        let key = if attempts >= max_attempts { ErrorKey::TooManyAttempts } else { ErrorKey::InvalidCode };
        return Err(key.into());
    }
    state.storage.consume_challenge(challenge.id, now).await?;
    Ok(())
}

/// A new session for the user: the token in the answer and as the HttpOnly cookie.
pub(crate) async fn signed_in(state: &AppState, user: User) -> ApiResult<(HeaderMap, Json<SignedIn>)> {
    let (headers, token) = start_session(state, &user).await?;
    Ok((headers, Json(SignedIn { token, user })))
}

/// Stores a new session for the user: its token, and the HttpOnly cookie
/// that carries it.
pub(crate) async fn start_session(state: &AppState, user: &User) -> ApiResult<(HeaderMap, String)> {
    let now = state.now();
    let token = tokens::new_token();
    let days = i64::from(state.config.auth.session_days);
    let session = Session {
        token_hash: tokens::hash(&token),
        user: user.id,
        created_at: now,
        expires_at: now + days * 24 * 3_600_000,
        revoked_at: None,
    };
    state.storage.insert_session(&session).await?;
    let mut headers = HeaderMap::new();
    let secure = if state.config.auth.cookie_secure { "; Secure" } else { "" };
    let cookie =
        format!("{SESSION_COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age={}{secure}", days * 24 * 3_600);
    headers.insert(SET_COOKIE, HeaderValue::from_str(&cookie).map_err(|error| ApiError::Internal(error.to_string()))?);
    Ok((headers, token))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct ReferralCheck {
    /// The code a friend shared: 5 letters, any case.
    #[schema(min_length = 1, max_length = 16)]
    pub referralId: String,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct ReferralValid {
    pub valid: bool,
    /// The code as stored (capitals).
    pub referralId: String,
}

#[utoipa::path(
    post,
    operation_id = "check_referral",
    path = "/api/v1/auth/referral",
    tag = "auth",
    summary = "Check a referral code",
    description = "Spec §7 validate_referrer: whether a user has this referral code, before a first sign-in sends it. No session needed; rate-limited per client address like code requests (429 `too_many_attempts`). An unknown code is 404 `referral_invalid`.",
    request_body = ReferralCheck,
    responses((status = 200, description = "A user has this code", body = ReferralValid)),
    extensions(("x-refusals" = json!(public_with_body![ReferralInvalid, TooManyAttempts]))),
)]
async fn check_referral(
    state: axum::extract::State<AppState>,
    client: ClientAddress,
    Body(request): Body<ReferralCheck>,
) -> ApiResult<Json<ReferralValid>> {
    let now = state.now();
    let auth = &state.config.auth;
    // Guessing codes costs the same as asking for sign-in codes.
    if !state.limiter.allow(&client.0, now, auth.window_secs as i64 * 1_000, auth.codes_per_client) {
        return Err(ErrorKey::TooManyAttempts.into());
    }
    let code = request.referralId.trim().to_uppercase();
    if code.is_empty() || code.len() > 16 || !code.chars().all(|letter| letter.is_ascii_alphanumeric()) {
        return Err(ApiError::field(ErrorKey::ReferralInvalid, "referralId"));
    }
    match state.storage.user_by_referral(&code).await? {
        Some(user) => Ok(Json(ReferralValid { valid: true, referralId: user.referralId })),
        None => Err(ApiError::field(ErrorKey::ReferralInvalid, "referralId")),
    }
}

pub(crate) async fn find_user(state: &AppState, contact: &Contact) -> ApiResult<Option<User>> {
    Ok(match contact {
        Contact::Email(email) => state.storage.user_by_email(email).await?,
        Contact::Phone(phone) => state.storage.user_by_mobile(phone).await?,
    })
}

/// Spec §4 "Sign-in profile creation": a first sign-in makes an approved
/// rider with an empty wallet and a random referral code; a valid referral
/// code credits the bonus to both users (DESIGN.md).
async fn create_rider(state: &AppState, contact: &Contact, referral: Option<&str>) -> ApiResult<User> {
    let now = state.now();
    let mut user = User::new(UserId(uuid::Uuid::now_v7()), Role::Rider, now);
    match contact {
        Contact::Email(email) => {
            user.email = email.clone();
            user.regType = RegType::Email;
        }
        Contact::Phone(phone) => {
            user.mobile = phone.clone();
            user.regType = RegType::Mobile;
        }
    }
    user.approved = true;
    insert_new_user(state, user, referral).await
}

/// Stores a user who signed themself up: a fresh referral code (drawn again
/// on a collision); a valid referral code of someone else credits the
/// referral bonus to both (DESIGN.md). An unknown referral code is ignored.
pub(crate) async fn insert_new_user(state: &AppState, mut user: User, referral: Option<&str>) -> ApiResult<User> {
    let now = state.now();
    let referrer = match referral.map(str::trim).filter(|code| !code.is_empty()) {
        Some(code) => state.storage.user_by_referral(&code.to_uppercase()).await?,
        None => None,
    };
    user.signupViaReferral = referrer.as_ref().map(|referrer| referrer.referralId.clone());
    let mut attempts = 0;
    loop {
        user.referralId = generate::referral_code(&mut rand::rng());
        match state.storage.insert_user(&user).await {
            Ok(()) => break,
            // A referral code collision: draw another.
            Err(StorageError::Duplicate("referral")) if attempts < 5 => attempts += 1,
            Err(StorageError::Duplicate(field @ ("email" | "mobile"))) => {
                return Err(ApiError::field(ErrorKey::UserExists, field));
            }
            Err(error) => return Err(error.into()),
        }
    }
    let bonus = state.runtime.catalog().settings.bonus;
    if let Some(referrer) = referrer
        && bonus > rust_decimal::Decimal::ZERO
    {
        for beneficiary in [user.id, referrer.id] {
            let change = WalletChange {
                user: beneficiary,
                entry_type: WalletEntryType::Credit,
                amount: bonus,
                tx_ref: "ReferralBonus".into(),
                idempotency_key: format!("referral:{}", user.id),
                overdraw: false,
            };
            state.storage.apply_wallet(&change, now).await?;
        }
        user = state.storage.user(user.id).await?;
    }
    Ok(user)
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Me {
    pub user: User,
}

#[utoipa::path(
    get,
    path = "/api/v1/auth/me",
    tag = "auth",
    summary = "Who am I",
    responses((status = 200, description = "The signed-in user", body = Me)),
    extensions(("x-refusals" = json!(session![]))),
)]
async fn me(Applicant(current): Applicant) -> Json<Me> {
    Json(Me { user: current.user })
}

#[utoipa::path(
    post,
    path = "/api/v1/auth/logout",
    tag = "auth",
    summary = "Sign out",
    description = "Revokes the session and clears the cookie; a driver also goes offline.",
    responses((status = 200, description = "Signed out", body = crate::openapi::schemas::SignedOut)),
    extensions(("x-refusals" = json!(session![]))),
)]
async fn logout(state: axum::extract::State<AppState>, Applicant(current): Applicant) -> ApiResult<impl IntoResponse> {
    let now = state.now();
    state.storage.revoke_session(&current.token_hash, now).await?;
    if current.principal.role == Role::Driver {
        // Spec §4 Login: sign-out sets a driver's driverActiveStatus to false.
        state.runtime.driver_offline(current.principal.id).await?;
    }
    let mut headers = HeaderMap::new();
    headers.insert(SET_COOKIE, HeaderValue::from_static("wayfare_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"));
    Ok((headers, Json(serde_json::json!({ "signedOut": true }))))
}

#[derive(Debug, Deserialize)]
pub struct OutboxQuery {
    pub to: String,
}

#[utoipa::path(
    get,
    path = "/api/v1/dev/outbox",
    tag = "auth",
    summary = "Dev outbox",
    description = "Only when the dev outbox is on (`--demo` or `delivery.dev_outbox`), else 404: the messages sent to a contact, newest first, with the code.",
    params(("to" = String, Query, description = "The e-mail address or phone number")),
    responses((status = 200, description = "The messages", body = crate::openapi::schemas::OutboxMessages)),
    extensions(("x-refusals" = json!(public![
        NotFound, InvalidInput, ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError
    ]))),
)]
async fn outbox(
    state: axum::extract::State<AppState>,
    QueryParams(query): QueryParams<OutboxQuery>,
) -> ApiResult<impl IntoResponse> {
    let outbox = state.deliveries.outbox.as_ref().ok_or(ErrorKey::NotFound)?;
    let contact = validate_login_contact(&query.to, None, false)?;
    Ok(Json(serde_json::json!({ "messages": outbox.to(contact.as_str()) })))
}
