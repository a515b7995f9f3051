//! `/api/v1/auth/oauth/*`: the providers offered, the start of a sign-in
//! and the provider's callback.

use super::{ATTEMPT_COOKIE, ATTEMPT_TTL_MS, Client, ROUTES_PATH, Refusal};
use crate::auth::extract::cookie;
use crate::auth::routes::{insert_new_user, may_sign_in, start_session};
use crate::auth::tokens;
use crate::error::{ApiError, ApiResult};
use crate::extract::{PathParam, QueryParams};
use crate::openapi::refusals::public;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use utoipa_axum::routes;
use wayfare_engine::social::{self, SocialAccount, SocialIdentity, SocialProvider};
use wayfare_engine::{ErrorKey, User, UserId};
use wayfare_storage::{OAuthAttempt, StorageError, UserIdentity};

/// Where a refused sign-in goes: the app's sign-in page, with the key.
const SIGN_IN_PAGE: &str = "/login";
/// Where a sign-in goes back to when it names nowhere of ours.
const DEFAULT_RETURN: &str = "/";

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(providers)).routes(routes!(start)).routes(routes!(callback, callback_form_post))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SocialProviders {
    /// `google`, `apple`, `facebook`: switched on in the settings and
    /// configured on the server, in this order.
    #[schema(value_type = Vec<String>)]
    pub providers: Vec<SocialProvider>,
}

#[utoipa::path(
    get,
    operation_id = "social_providers",
    path = "/api/v1/auth/oauth/providers",
    tag = "auth",
    summary = "Social sign-in providers",
    description = "The providers the sign-in page offers a button for: each one whose setting is on (`GoogleLoginEnabled`, `AppleLoginEnabled`, `FacebookLoginEnabled`) and whose client id and secret the server has (`[auth.oauth.<name>]`).",
    responses((status = 200, description = "The providers", body = SocialProviders)),
    extensions(("x-refusals" = json!(public![]))),
)]
async fn providers(State(state): State<AppState>) -> Json<SocialProviders> {
    Json(SocialProviders { providers: super::available(&state) })
}

/// The provider of a path, if people may sign in with it now.
fn client_named(state: &AppState, name: &str) -> ApiResult<Client> {
    SocialProvider::parse(name)
        .and_then(|provider| super::client(state, provider))
        .ok_or_else(|| ApiError::key(ErrorKey::NoProviderFound))
}

#[derive(Debug, Deserialize)]
pub struct StartQuery {
    #[serde(default, rename = "return")]
    pub return_to: Option<String>,
}

/// The attempt cookie: HttpOnly, sent only to these routes, gone in 10
/// minutes. Apple's callback is a cross-site POST, which only a
/// `SameSite=None` (hence `Secure`) cookie comes back with.
fn attempt_cookie(state: &AppState, client: &Client, value: &str, max_age_secs: i64) -> ApiResult<HeaderValue> {
    let same_site = if client.endpoints.form_post { "None; Secure" } else { "Lax" };
    let secure = if state.config.auth.cookie_secure && !client.endpoints.form_post { "; Secure" } else { "" };
    let cookie = format!(
        "{ATTEMPT_COOKIE}={value}; HttpOnly; SameSite={same_site}; Path={ROUTES_PATH}; Max-Age={max_age_secs}{secure}"
    );
    HeaderValue::from_str(&cookie).map_err(|error| ApiError::Internal(error.to_string()))
}

#[utoipa::path(
    get,
    operation_id = "social_start",
    path = "/api/v1/auth/oauth/{provider}/start",
    tag = "auth",
    summary = "Start a social sign-in",
    description = "Sends the browser to the provider (`google`, `apple` or `facebook`; one not offered is 404 `no_provider_found`) with a single-use `state`, a PKCE S256 `code_challenge` and, for OpenID Connect, a `nonce`. The attempt is kept 10 minutes; its id goes in the HttpOnly `wayfare_oauth` cookie, so only this browser can finish it. `return` is where the app goes once signed in (a path on this site; `/` otherwise).",
    params(
        ("provider" = String, Path, description = "`google`, `apple` or `facebook`"),
        ("return" = Option<String>, Query, description = "A path of the app to come back to"),
    ),
    responses((status = 303, description = "To the provider's sign-in page", headers(
        ("Location" = String, description = "The provider's authorization URL"),
        ("Set-Cookie" = String, description = "`wayfare_oauth=<attempt>; HttpOnly; SameSite=Lax; Path=/api/v1/auth/oauth; Max-Age=600`"),
    ))),
    extensions(("x-refusals" = json!(public![NoProviderFound, InvalidInput]))),
)]
async fn start(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    QueryParams(query): QueryParams<StartQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let client = client_named(&state, &name)?;
    let now = state.now();
    let state_token = tokens::new_token();
    let attempt = OAuthAttempt {
        id: uuid::Uuid::now_v7(),
        provider: client.provider.as_str().to_string(),
        state_hash: tokens::hash(&state_token),
        // 64 hex characters: a valid PKCE verifier (RFC 7636 §4.1).
        code_verifier: tokens::new_token(),
        nonce: tokens::new_token(),
        redirect_uri: format!(
            "{}{ROUTES_PATH}/{}/callback",
            crate::site::public_base(&state.config, &headers),
            client.provider.as_str()
        ),
        return_to: crate::site::local_path(query.return_to.as_deref(), DEFAULT_RETURN),
        created_at: now,
        expires_at: now + ATTEMPT_TTL_MS,
    };
    let mut location = reqwest::Url::parse(&client.endpoints.authorize)
        .map_err(|error| ApiError::Unavailable(format!("{} authorize_url: {error}", client.provider.as_str())))?;
    {
        let mut query = location.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", &attempt.redirect_uri)
            .append_pair("scope", client.endpoints.scope)
            .append_pair("state", &state_token)
            .append_pair("code_challenge", &super::pkce_challenge(&attempt.code_verifier))
            .append_pair("code_challenge_method", "S256");
        if client.provider.is_openid() {
            query.append_pair("nonce", &attempt.nonce);
        }
        if client.endpoints.form_post {
            query.append_pair("response_mode", "form_post");
        }
    }
    state.storage.insert_oauth_attempt(&attempt).await?;
    let mut answer_headers = HeaderMap::new();
    let cookie = attempt_cookie(&state, &client, &attempt.id.to_string(), ATTEMPT_TTL_MS / 1000)?;
    answer_headers.insert(SET_COOKIE, cookie);
    Ok((answer_headers, Redirect::to(location.as_str())).into_response())
}

/// What a provider sends back, in the query or (Apple) a posted form.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct CallbackParams {
    pub code: Option<String>,
    pub state: Option<String>,
    /// The provider's refusal (the person said no), e.g. `access_denied`.
    pub error: Option<String>,
    /// Apple's form post only, on a person's first sign-in: JSON
    /// `{"name": {"firstName", "lastName"}, "email"}`. Its names fill those
    /// the ID token lacks; it is not signed, so its e-mail is never read.
    pub user: Option<String>,
}

/// Apple's `user` field.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct PostedUser {
    name: PostedName,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct PostedName {
    first_name: String,
    last_name: String,
}

/// The names in a posted `user` field; none when it is not the JSON Apple sends.
fn posted_names(user: Option<&str>) -> Option<(String, String)> {
    let posted: PostedUser = serde_json::from_str(user?).ok()?;
    Some((posted.name.first_name, posted.name.last_name))
}

const CALLBACK_DESCRIPTION: &str = "Where the provider sends the browser back. The attempt named by the `wayfare_oauth` cookie must exist, match `state`, be unused and under 10 minutes old; it is then used up. The code is exchanged with the PKCE verifier; an ID token must verify (RS256 against the provider's keys; `iss`, `aud`, `exp`, `nonce`). The identity signs in to the user it is linked to; else to the user whose e-mail is its verified e-mail (then linked); else a first sign-in creates an approved rider with regType `social`. A session starts as with a code (the `wayfare_session` cookie) and the browser goes back to the attempt's return path. Anything refused goes to `/login?error=<key>` (`login_error`, `require_approval`) and changes nothing.";

#[utoipa::path(
    get,
    operation_id = "social_callback",
    path = "/api/v1/auth/oauth/{provider}/callback",
    tag = "auth",
    summary = "Finish a social sign-in",
    description = CALLBACK_DESCRIPTION,
    params(
        ("provider" = String, Path, description = "`google`, `apple` or `facebook`"),
        ("code" = Option<String>, Query, description = "The provider's authorization code"),
        ("state" = Option<String>, Query, description = "The state the sign-in started with"),
        ("error" = Option<String>, Query, description = "The provider's refusal"),
    ),
    responses((status = 303, description = "Signed in and back to the app, or to the sign-in page with `error`", headers(
        ("Location" = String, description = "The attempt's return path, or `/login?error=<key>`"),
        ("Set-Cookie" = String, description = "`wayfare_session=<token>; HttpOnly; SameSite=Lax; Path=/` when signed in; the attempt cookie cleared"),
    ))),
    extensions(("x-refusals" = json!(public![NoProviderFound]))),
)]
async fn callback(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    headers: HeaderMap,
    QueryParams(params): QueryParams<CallbackParams>,
) -> ApiResult<Response> {
    // `user` is Apple's, in its form post only.
    let params = CallbackParams { user: None, ..params };
    finish(&state, &name, &headers, params).await
}

#[utoipa::path(
    post,
    operation_id = "social_callback_form_post",
    path = "/api/v1/auth/oauth/{provider}/callback",
    tag = "auth",
    summary = "Finish a social sign-in (form post)",
    description = "The same as the GET, for a provider answering with `response_mode=form_post` (Apple): `code`, `state` and `error` come as a form, and on a person's first sign-in Apple adds `user`, JSON with their name (`{\"name\": {\"firstName\", \"lastName\"}}`), which names the rider a first sign-in creates when the ID token carries no name. Its e-mail is not read: only the ID token's counts. The attempt cookie of a form-posting provider is `SameSite=None; Secure`, so that it comes back with the provider's cross-site POST.",
    params(("provider" = String, Path, description = "`google`, `apple` or `facebook`")),
    request_body(content = CallbackParams, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "Signed in and back to the app, or to the sign-in page with `error`", headers(
        ("Location" = String, description = "The attempt's return path, or `/login?error=<key>`"),
    ))),
    extensions(("x-refusals" = json!(public![NoProviderFound]))),
)]
async fn callback_form_post(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    headers: HeaderMap,
    form: Result<Form<CallbackParams>, FormRejection>,
) -> ApiResult<Response> {
    // A malformed form is a refused sign-in like any other: back to the page.
    let params = form.map(|Form(params)| params).unwrap_or_default();
    finish(&state, &name, &headers, params).await
}

/// Why the person is sent back to the sign-in page.
enum Failure {
    Refused(Refusal),
    Api(ApiError),
}

impl From<Refusal> for Failure {
    fn from(refusal: Refusal) -> Self {
        Failure::Refused(refusal)
    }
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Failure::Api(error)
    }
}

impl From<StorageError> for Failure {
    fn from(error: StorageError) -> Self {
        Failure::Api(error.into())
    }
}

async fn finish(state: &AppState, name: &str, headers: &HeaderMap, params: CallbackParams) -> ApiResult<Response> {
    let client = client_named(state, name)?;
    let mut answer_headers = HeaderMap::new();
    // The attempt is over whatever happens: its cookie goes.
    answer_headers.append(SET_COOKIE, attempt_cookie(state, &client, "", 0)?);
    match sign_in(state, &client, headers, params).await {
        Ok((session_headers, return_to)) => {
            answer_headers.extend(session_headers);
            Ok((answer_headers, Redirect::to(&return_to)).into_response())
        }
        Err(failure) => {
            let key = match failure {
                Failure::Refused(refusal) => {
                    tracing::warn!(provider = client.provider.as_str(), %refusal, "social sign-in refused");
                    ErrorKey::LoginError
                }
                Failure::Api(ApiError::Domain(error)) if error.key == ErrorKey::RequireApproval => {
                    ErrorKey::RequireApproval
                }
                Failure::Api(error) => {
                    tracing::error!(provider = client.provider.as_str(), ?error, "social sign-in failed");
                    ErrorKey::LoginError
                }
            };
            let page = format!("{SIGN_IN_PAGE}?error={}", key.as_str());
            Ok((answer_headers, Redirect::to(&page)).into_response())
        }
    }
}

/// The callback's work: the attempt, the person, the account, the session.
async fn sign_in(
    state: &AppState,
    client: &Client,
    headers: &HeaderMap,
    params: CallbackParams,
) -> Result<(HeaderMap, String), Failure> {
    if let Some(error) = params.error {
        return Err(Refusal::ProviderError(error.chars().take(100).collect()).into());
    }
    let attempt_id =
        cookie(headers, ATTEMPT_COOKIE).and_then(|value| value.parse::<uuid::Uuid>().ok()).ok_or(Refusal::NoCookie)?;
    let (Some(code), Some(state_token)) = (params.code, params.state) else {
        return Err(Refusal::Incomplete.into());
    };
    let now = state.now();
    let attempt = match state.storage.take_oauth_attempt(attempt_id, &tokens::hash(&state_token), now).await {
        Ok(attempt) => attempt,
        Err(StorageError::NotFound) => return Err(Refusal::NoAttempt.into()),
        Err(error) => return Err(error.into()),
    };
    if attempt.provider != client.provider.as_str() {
        return Err(Refusal::OtherProvider.into());
    }
    let mut identity = client.identify(&state.http_client, &state.oidc_keys, &code, &attempt, now).await?;
    if let Some((first_name, last_name)) = posted_names(params.user.as_deref()) {
        identity.fill_names(&first_name, &last_name);
    }
    let user = account(state, &identity).await?;
    let (session_headers, _token) = start_session(state, &user).await?;
    Ok((session_headers, attempt.return_to))
}

/// The user the identity signs in as (`wayfare_engine::social::choose_account`),
/// linked or made as needed. An account that may not sign in is refused
/// before anything is linked.
async fn account(state: &AppState, identity: &SocialIdentity) -> Result<User, Failure> {
    let provider = identity.provider.as_str();
    let linked = state.storage.user_by_identity(provider, &identity.subject).await?;
    let same_email = match identity.verified_email() {
        Some(email) => state.storage.user_by_email(&email).await?,
        None => None,
    };
    let now = state.now();
    let link = |user: UserId| UserIdentity {
        provider: provider.to_string(),
        subject: identity.subject.clone(),
        user,
        email: identity.email.clone().unwrap_or_default(),
        created_at: now,
    };
    match social::choose_account(linked.as_ref(), same_email.as_ref(), identity) {
        SocialAccount::Linked(_) => {
            let user = linked.ok_or(StorageError::NotFound)?;
            may_sign_in(&user)?;
            Ok(user)
        }
        SocialAccount::LinkByEmail(_) => {
            let user = same_email.ok_or(StorageError::NotFound)?;
            may_sign_in(&user)?;
            state.storage.link_identity(&link(user.id)).await?;
            Ok(user)
        }
        SocialAccount::NewRider => {
            let rider = social::new_social_rider(UserId(uuid::Uuid::now_v7()), identity, now);
            let user = insert_new_user(state, rider, None).await?;
            if let Err(error) = state.storage.link_identity(&link(user.id)).await {
                // Another callback of the same person linked first: this
                // rider would be a stray, so it goes.
                state.storage.delete_user(user.id).await?;
                return Err(error.into());
            }
            Ok(user)
        }
    }
}
