//! The chat between a booking's rider and its driver: reading it (which
//! marks the other party's messages read) and sending a message.

use super::access::authorised;
use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_actors::Event;
use wayfare_engine::booking::NoticeKey;
use wayfare_engine::permissions::Action;
use wayfare_engine::rules::booking::validate_chat_message;
use wayfare_engine::{BookingId, ChatMessage, Role, timefmt};

pub(super) fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(chat, send_chat))
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/chat",
    tag = "chat",
    summary = "Read the chat",
    description = "The booking's messages between the rider and the assigned driver; marks the other party's messages read. Admins (any booking) and fleet admins (their fleet's) read it on the booking's page, marking nothing read; only the parties write.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The messages", body = crate::openapi::schemas::ChatMessages)),
    extensions(("x-refusals" = json!(session![NotFound, NotAllowed]))),
)]
async fn chat(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    // The panel reads a booking's chat on its page (issue #34), and leaves
    // the parties' messages unread.
    let party = matches!(current.principal.role, Role::Rider | Role::Driver);
    let action = if party { Action::BookingChat } else { Action::BookingChatAudit };
    authorised(&state, &current, id, action).await?;
    let messages = state.storage.chat(id).await?;
    if party {
        state.storage.mark_chat_read(id, current.principal.id, state.now()).await?;
    }
    Ok(Json(json!({ "messages": messages })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ChatBody {
    pub message: String,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/chat",
    tag = "chat",
    summary = "Send a chat message",
    description = "Also sent to the booking's room over the socket (`chat` event).",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = ChatBody,
    responses((status = 201, description = "The stored message", body = crate::openapi::schemas::StoredChatMessage)),
    extensions(("x-refusals" = json!(session_with_body![NotFound, NotAllowed]))),
)]
async fn send_chat(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<ChatBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let booking = authorised(&state, &current, id, Action::BookingChat).await?;
    let text = validate_chat_message(&body.message)?;
    let now = state.now();
    let message = ChatMessage {
        message: text.to_string(),
        from: current.principal.id,
        message_type: "msg".into(),
        msgDate: timefmt::chat_date(now, 0),
        msgTime: timefmt::chat_time(now, 0),
        source: current.principal.role,
        smsId: None,
        createdAt: now,
    };
    let stored = state.storage.append_chat(id, &message).await?;
    state.runtime.bus().publish(Event::Chat { booking: id, message: message.clone() });
    let other = if current.principal.id == booking.customer { booking.driver } else { Some(booking.customer) };
    if let Some(to) = other {
        state.runtime.bus().publish(Event::Notification { to, key: NoticeKey::ChatRequested, booking: Some(id) });
    }
    Ok((StatusCode::CREATED, Json(serde_json::to_value(stored).unwrap_or(Value::Null))))
}
