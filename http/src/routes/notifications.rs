//! Push notifications from the admin panel (spec §3 "Notification", §5,
//! §7 `sendNotification`, `editNotifications` Add | Delete,
//! `fetchNotifications`): a broadcast to every user of a type (`usertype`:
//! All, rider, driver) on a platform (`devicetype`: All, ANDROID, IOS),
//! stored and delivered in the app over the socket and to the devices' push
//! tokens. Nobody matching is 404 `no_user_match`. Sending is refused in
//! demo mode; deleting is not (spec §5).
//!
//! Also how a device registers for push: `PUT /api/v1/push/token` keeps the
//! caller's token (an Expo token or a Web Push subscription), and
//! `GET /api/v1/push/config` tells the web app the VAPID key to subscribe with.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::notify::{self, PushMessage};
use crate::openapi::refusals::{public, session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::user_edit::edit_user;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{DeviceTarget, ErrorKey, Notification, NotificationId, Role, UserPlatform, UserTarget};
use wayfare_storage::{PageRequest, PushFilter};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(list, send))
        .routes(routes!(remove))
        .routes(routes!(register_token))
        .routes(routes!(push_config))
}

/// Targets read per storage page while broadcasting.
const TARGET_PAGE: u32 = 500;
const MAX_TITLE: usize = 200;
const MAX_BODY: usize = 2_000;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct NotificationBody {
    #[serde(default = "all_devices")]
    pub devicetype: DeviceTarget,
    #[serde(default = "all_users")]
    pub usertype: UserTarget,
    /// Required, 1 to 200 characters.
    #[schema(required = true, nullable = false, min_length = 1, max_length = 200)]
    pub title: Option<String>,
    /// Required, 1 to 2000 characters.
    #[schema(required = true, nullable = false, min_length = 1, max_length = 2000)]
    pub body: Option<String>,
}

fn all_devices() -> DeviceTarget {
    DeviceTarget::All
}

fn all_users() -> UserTarget {
    UserTarget::All
}

/// Who a broadcast reaches: spec §3's user and device types.
fn filter_of(usertype: UserTarget, devicetype: DeviceTarget) -> PushFilter {
    PushFilter {
        roles: match usertype {
            UserTarget::All => Vec::new(),
            UserTarget::Rider => vec![Role::Rider],
            UserTarget::Driver => vec![Role::Driver],
        },
        platforms: match devicetype {
            DeviceTarget::All => Vec::new(),
            DeviceTarget::Android => vec![UserPlatform::Android],
            DeviceTarget::Ios => vec![UserPlatform::Ios],
        },
    }
}

fn text(value: Option<String>, field: &'static str, limit: usize) -> ApiResult<String> {
    let text = value.map(|text| text.trim().to_string()).unwrap_or_default();
    if text.is_empty() || text.chars().count() > limit {
        return Err(ApiError::field(ErrorKey::InvalidInput, field));
    }
    Ok(text)
}

#[utoipa::path(
    post,
    operation_id = "send_notification",
    path = "/api/v1/notifications",
    tag = "notifications",
    summary = "Send a notification",
    description = "Admins, refused in demo mode. Stores the notification and delivers it to every matching user: in the app (the socket's `notification` event) and, when push is configured, to their device tokens (Expo in batches of 100, Web Push). 404 `no_user_match` when nobody matches; nothing is stored then. Answers the notification and how many users it reached.",
    request_body = NotificationBody,
    responses((status = 201, description = "The stored notification and `recipients`", body = crate::openapi::schemas::SentNotification)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, NoUserMatch]))),
)]
pub(crate) async fn send(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<NotificationBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::NotificationSend, Resource::None, &settings)?;
    let title = text(body.title, "title", MAX_TITLE)?;
    let message = text(body.body, "body", MAX_BODY)?;
    let filter = filter_of(body.usertype, body.devicetype);
    let mut page = state.storage.push_targets(&filter, &PageRequest::first(TARGET_PAGE)).await?;
    if page.items.is_empty() {
        return Err(ErrorKey::NoUserMatch.into());
    }
    let notification = Notification {
        id: NotificationId(uuid::Uuid::now_v7()),
        devicetype: body.devicetype,
        usertype: body.usertype,
        title,
        body: message,
        createdAt: state.now(),
    };
    state.storage.insert_notification(&notification).await?;
    let payload = present::broadcast(&notification);
    let channel = notify::channel(&settings).to_string();
    let mut recipients = 0;
    loop {
        recipients += page.items.len();
        state.notifier.in_app(page.items.iter().map(|target| target.user).collect(), payload.clone());
        let pushes: Vec<PushMessage> = page
            .items
            .iter()
            .filter_map(|target| {
                target.push_token.clone().filter(|token| !token.is_empty()).map(|token| (target, token))
            })
            .map(|(target, token)| PushMessage {
                token,
                platform: target.platform,
                title: notification.title.clone(),
                body: notification.body.clone(),
                data: json!({ "notification": notification.id }),
                channel: channel.clone(),
            })
            .collect();
        if !pushes.is_empty() && state.notifier.pushes() {
            // Stored and in the apps already: the push services may take their time.
            let notifier = state.notifier.clone();
            tokio::spawn(async move { notifier.push(pushes).await });
        }
        let Some(after) = page.next.clone() else { break };
        page = state.storage.push_targets(&filter, &PageRequest { limit: TARGET_PAGE, after: Some(after) }).await?;
    }
    let mut answer = serde_json::to_value(&notification).map_err(|error| ApiError::Internal(error.to_string()))?;
    answer["recipients"] = json!(recipients);
    Ok((StatusCode::CREATED, Json(answer)))
}

#[derive(Debug, Deserialize, Default)]
pub struct ListQuery {
    pub limit: Option<u32>,
    pub after: Option<String>,
}

#[utoipa::path(
    get,
    operation_id = "list_notifications",
    path = "/api/v1/notifications",
    tag = "notifications",
    summary = "List notifications",
    description = "Admins. Newest first, paginated with `limit` and `after` (the previous page's `next`).",
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, pattern = "^[0-9a-fA-F]{48}$", description = "The `next` cursor of the previous page")),
    responses((status = 200, description = "A page of notifications", body = crate::openapi::schemas::NotificationPage)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput]))),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ListQuery>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::NotificationsRead, Resource::None, &settings)?;
    let page = super::page_request(query.limit, query.after)?;
    let found = state.storage.notifications(&page).await?;
    Ok(Json(json!({ "items": found.items, "next": found.next })))
}

#[utoipa::path(
    delete,
    operation_id = "delete_notification",
    path = "/api/v1/notifications/{id}",
    tag = "notifications",
    summary = "Delete a notification",
    description = "Admins; allowed in demo mode (spec §5). Removes it from the list; what was delivered stays delivered.",
    params(("id" = NotificationId, Path, description = "The notification's id")),
    responses((status = 204, description = "Deleted")),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
pub(crate) async fn remove(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<NotificationId>,
) -> ApiResult<StatusCode> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::NotificationDelete, Resource::None, &settings)?;
    state.storage.delete_notification(id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct PushTokenBody {
    /// An Expo push token, a Web Push subscription as JSON text, or empty to stop push.
    #[serde(default)]
    pub pushToken: String,
    /// `IOS`, `ANDROID` or `WEB`; unchanged when left out.
    #[serde(default)]
    pub userPlatform: Option<UserPlatform>,
}

#[utoipa::path(
    put,
    operation_id = "register_push_token",
    path = "/api/v1/push/token",
    tag = "notifications",
    summary = "Register this device for push",
    description = "Any signed-in user: keeps their push token (spec §3 `pushToken`) and platform, which broadcasts filter by. An empty token stops push to them.",
    request_body = PushTokenBody,
    responses((status = 204, description = "Kept")),
    extensions(("x-refusals" = json!(session_with_body![]))),
)]
pub(crate) async fn register_token(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<PushTokenBody>,
) -> ApiResult<StatusCode> {
    authorize(Some(&current.principal), Action::ProfileUpdate, Resource::None, &state.runtime.catalog().settings)?;
    let token = body.pushToken.trim();
    if token.len() > 4_096 {
        return Err(ApiError::field(ErrorKey::InvalidInput, "pushToken"));
    }
    edit_user(&state, current.principal.id, |user| {
        user.pushToken = (!token.is_empty()).then(|| token.to_string());
        if let Some(platform) = body.userPlatform {
            user.userPlatform = platform;
        }
        Ok(())
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    operation_id = "push_config",
    path = "/api/v1/push/config",
    tag = "notifications",
    summary = "Push configuration",
    description = "Anyone: the push services in use (`expo`, `webpush`) and, when Web Push is on, the VAPID public key browsers subscribe with (`applicationServerKey`).",
    responses((status = 200, description = "The push services", body = crate::openapi::schemas::PushConfigAnswer)),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn push_config(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "senders": state.notifier.sender_names(), "vapidPublicKey": state.notifier.vapid_public_key() }))
}
