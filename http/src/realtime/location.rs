//! The drivers' `location` event `{lat, lng, heading?, speed?, accuracy?, at?}`,
//! acknowledged with `{ok: true}` or `{error: {code, message}}` — the same as
//! `POST /api/v1/drivers/me/location`. It is the busiest message of the
//! platform, so it is checked in memory and handed to the driver's actor
//! without touching storage (the actor writes positions behind, in batches).
//!
//! [`Handler`] runs in the socket's read loop, because nothing here awaits:
//! socketioxide spawns a task for every message of an async handler, a
//! hand-off (and often a wake-up) per update that the hot path does not need.

use crate::error::ApiError;
use crate::messages::Messages;
use crate::state::AppState;
use serde::Serialize;
use socketioxide::adapter::Adapter;
use socketioxide::extract::{AckSender, TryData};
use socketioxide::handler::{FromMessageParts, MessageHandler, Value};
use socketioxide::socket::Socket;
use std::sync::Arc;
use tracing::{debug, error, warn};
use wayfare_actors::LocationUpdate;
use wayfare_engine::permissions::{Action, Principal, Resource, authorize};
use wayfare_engine::{DomainError, ErrorKey};

#[derive(Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub(super) enum Ack {
    Done { ok: bool },
    Refused { error: Refusal },
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct Refusal {
    code: &'static str,
    message: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'static str>,
}

/// The `location` event's handler for one driver's socket.
pub(super) struct Handler {
    pub state: AppState,
    pub principal: Principal,
}

impl<A: Adapter> MessageHandler<A, Handler> for Handler {
    fn call(&self, socket: Arc<Socket<A>>, mut value: Value, ack_id: Option<i64>) {
        // Both extractors are infallible.
        let Ok(TryData(update)) = TryData::<LocationUpdate>::from_message_parts(&socket, &mut value, &ack_id);
        let Ok(ack) = AckSender::from_message_parts(&socket, &mut value, &ack_id);
        answer(&self.state, &self.principal, update.ok(), ack);
    }
}

/// Takes a position and acknowledges it. `update` is `None` when the payload
/// was not a position.
pub(super) fn answer<A: Adapter>(
    state: &AppState,
    principal: &Principal,
    update: Option<LocationUpdate>,
    ack: AckSender<A>,
) {
    let reply = match accept(state, principal, update) {
        Ok(()) => Ack::Done { ok: true },
        Err(refused) => Ack::Refused { error: refusal(&refused) },
    };
    if let Err(error) = ack.send(&reply) {
        debug!(%error, "location ack not sent");
    }
}

fn accept(state: &AppState, principal: &Principal, update: Option<LocationUpdate>) -> Result<(), ApiError> {
    authorize(Some(principal), Action::DriverLocation, Resource::None, &state.runtime.catalog().settings)?;
    let update = update.ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "location"))?;
    // Refused with `driver_not_eligible` unless the driver is online.
    state.runtime.driver_location(principal.id, update)?;
    Ok(())
}

/// The error body of the REST API, for an ack.
pub(super) fn refusal(refused: &ApiError) -> Refusal {
    let (code, field) = match refused {
        ApiError::Domain(error) => (error.key.as_str(), error.field),
        ApiError::Internal(detail) => {
            error!(%detail, "location not taken");
            ("internal_error", None)
        }
        ApiError::Unavailable(detail) => {
            warn!(%detail, "location not taken");
            ("unavailable", None)
        }
    };
    Refusal { code, message: Messages::english().text(code), field }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acks_read_as_the_api_conventions_say() {
        assert_eq!(serde_json::to_value(Ack::Done { ok: true }).unwrap(), serde_json::json!({"ok": true}));
        let refused = refusal(&ApiError::key(ErrorKey::DriverNotEligible));
        let body = serde_json::to_value(Ack::Refused { error: refused }).unwrap();
        assert_eq!(body["error"]["code"], "driver_not_eligible");
        assert_eq!(body["error"]["message"], Messages::english().text("driver_not_eligible"));
        assert!(body["error"].get("field").is_none());
    }

    #[test]
    fn internals_never_reach_the_ack() {
        let body = serde_json::to_value(refusal(&ApiError::Internal("database is on fire".into()))).unwrap();
        assert_eq!(body["code"], "internal_error");
        assert!(!body.to_string().contains("fire"));
    }
}
