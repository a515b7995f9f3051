//! A socket's life: the handshake, its rooms, and the state it is sent on
//! every connect, so a client that reconnects after a network drop or a
//! server restart catches up without asking.

use super::console::{DEFAULT_RESOLUTION, Scope, hexes_room};
use super::fanout::Note;
use super::location::Ack;
use super::{events, location, rooms};
use crate::auth::extract::{authenticate, token_of};
use crate::error::ApiError;
use crate::present;
use crate::state::AppState;
use serde::Deserialize;
use socketioxide::SocketIo;
use socketioxide::extract::{AckSender, SocketRef, TryData};
use socketioxide::handler::ConnectHandler;
use std::fmt;
use tokio::sync::mpsc::UnboundedSender;
use tracing::{debug, warn};
use wayfare_engine::console::RESOLUTIONS;
use wayfare_engine::permissions::{BookingScope, Principal, booking_list_scope};
use wayfare_engine::{BookingStatus, DomainError, ErrorKey, Role, geo};
use wayfare_storage::{BookingFilter, PageRequest};

/// The `auth` object of the client's handshake.
#[derive(Debug, Default, Deserialize)]
struct HandshakeAuth {
    #[serde(default)]
    token: Option<String>,
}

/// Why a handshake was refused: the client's `connect_error` carries the
/// translation key as its `message` (`not_logged_in`, `require_approval`, …).
#[derive(Debug)]
struct Refused(&'static str);

impl fmt::Display for Refused {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

/// Registers the default namespace: the handshake as a connect middleware,
/// then the connect handler.
pub(super) fn register(io: &SocketIo, state: AppState, notes: UnboundedSender<Note>) {
    let handshake_state = state.clone();
    let middleware = move |socket: SocketRef, TryData(auth): TryData<HandshakeAuth>| {
        let state = handshake_state.clone();
        async move { handshake(&state, &socket, auth.ok()).await }
    };
    let on_connect = move |socket: SocketRef| {
        let state = state.clone();
        let notes = notes.clone();
        async move { connected(state, notes, socket).await }
    };
    io.ns("/", on_connect.with(middleware));
}

/// The session token from `auth.token`, else the bearer header or the web
/// app's cookie on the HTTP request that opened the connection.
async fn handshake(state: &AppState, socket: &SocketRef, auth: Option<HandshakeAuth>) -> Result<(), Refused> {
    let token = auth
        .and_then(|auth| auth.token)
        .map(|token| token.trim().to_string())
        .filter(|token| !token.is_empty())
        .or_else(|| token_of(socket.req_parts()));
    let Some(token) = token else {
        return Err(Refused(ErrorKey::NotLoggedIn.as_str()));
    };
    match authenticate(state, &token).await {
        Ok(current) => {
            // `Principal` is small and `Copy`: handlers read it without allocating.
            socket.extensions.insert(current.principal);
            // Here, not in the connect handler: socketioxide tells the client
            // it is connected before it spawns that handler, and a position
            // sent at once would arrive before its handler and go unanswered.
            socket.on(events::LOCATION, location::Handler { state: state.clone(), principal: current.principal });
            Ok(())
        }
        Err(ApiError::Domain(error)) => Err(Refused(error.key.as_str())),
        Err(ApiError::Internal(detail)) => {
            warn!(%detail, "socket handshake failed");
            Err(Refused("internal_error"))
        }
        Err(ApiError::Unavailable(detail)) => {
            warn!(%detail, "socket handshake failed");
            Err(Refused("unavailable"))
        }
    }
}

async fn connected(state: AppState, notes: UnboundedSender<Note>, socket: SocketRef) {
    let Some(principal) = socket.extensions.get::<Principal>() else {
        // The middleware always sets it; refuse rather than serve a stranger.
        debug!(socket = %socket.id, "socket without a session");
        let _ = socket.disconnect();
        return;
    };
    // Rooms first, then the current state: a change in between arrives as an
    // event too, so the client may see it twice but never misses it.
    socket.join(rooms::user(principal.id));
    match principal.role {
        Role::Admin => {
            socket.join(rooms::DISPATCH);
            let _ = notes.send(Note::FeedWanted { fleet: None });
            console_joined(&socket, &notes, Scope::All);
        }
        Role::Fleetadmin => {
            socket.join(rooms::fleet(principal.id));
            let _ = notes.send(Note::FeedWanted { fleet: Some(principal.id) });
            console_joined(&socket, &notes, Scope::Fleet(principal.id));
        }
        Role::Driver => {
            let _ = notes.send(Note::DriverFleet { driver: principal.id, fleet: principal.fleet });
        }
        Role::Rider => {}
    }
    debug!(user = %principal.id, role = ?principal.role, socket = %socket.id, "socket connected");
    send_current_state(&state, &socket, &principal).await;
}

/// The client's `console` event.
#[derive(Debug, Deserialize)]
struct ConsoleRequest {
    resolution: u8,
}

/// A console socket: the hexes room of the default resolution, the
/// `console` event to choose another, and the figures and hexes at once.
fn console_joined(socket: &SocketRef, notes: &UnboundedSender<Note>, scope: Scope) {
    socket.join(hexes_room(scope, DEFAULT_RESOLUTION));
    let chosen = notes.clone();
    socket.on(events::CONSOLE, move |socket: SocketRef, TryData(request): TryData<ConsoleRequest>, ack: AckSender| {
        let chosen = chosen.clone();
        async move { choose_resolution(&socket, &chosen, scope, request.ok(), ack) }
    });
    let left = notes.clone();
    socket.on_disconnect(move |socket: SocketRef| {
        let left = left.clone();
        async move {
            let _ = left.send(Note::ConsoleLeft { socket: socket.id });
        }
    });
    let _ = notes.send(Note::ConsoleJoined { socket: socket.clone(), scope, resolution: DEFAULT_RESOLUTION });
}

/// The client's `console` `{resolution}`: moves the socket to that
/// resolution's hexes room and has the fan-out send the console at once.
fn choose_resolution(
    socket: &SocketRef,
    notes: &UnboundedSender<Note>,
    scope: Scope,
    request: Option<ConsoleRequest>,
    ack: AckSender,
) {
    let resolution = request.map(|request| request.resolution).filter(|value| RESOLUTIONS.contains(value));
    let reply = match resolution {
        Some(resolution) => {
            for other in RESOLUTIONS {
                socket.leave(hexes_room(scope, other));
            }
            socket.join(hexes_room(scope, resolution));
            let _ = notes.send(Note::ConsoleJoined { socket: socket.clone(), scope, resolution });
            Ack::Done { ok: true }
        }
        None => {
            let refused = ApiError::Domain(DomainError::on_field(ErrorKey::InvalidInput, "resolution"));
            Ack::Refused { error: location::refusal(&refused) }
        }
    };
    if let Err(error) = ack.send(&reply) {
        debug!(%error, "console ack not sent");
    }
}

/// Riders and drivers get each active booking of theirs; drivers also the
/// offers they hold, as `offer` events.
async fn send_current_state(state: &AppState, socket: &SocketRef, principal: &Principal) {
    let catalog = state.runtime.catalog();
    let settings = &catalog.settings;
    let mut filter = BookingFilter::default();
    match booking_list_scope(principal) {
        BookingScope::Customer(id) => filter.customer = Some(id),
        BookingScope::Driver(id) => filter.driver = Some(id),
        // The console and fleet panel load their tables over REST.
        BookingScope::Fleet(_) | BookingScope::All => return,
    }
    filter.statuses = BookingStatus::ALL.into_iter().filter(|status| status.is_active()).collect();
    let page = PageRequest { limit: 100, after: None };
    match state.storage.list_bookings(&filter, &page).await {
        Ok(found) => {
            for booking in &found.items {
                let _ = socket.emit(events::BOOKING, &present::booking(booking, principal, settings));
            }
        }
        Err(error) => warn!(%error, user = %principal.id, "active bookings not sent on connect"),
    }
    if principal.role != Role::Driver {
        return;
    }
    let offered = match state.storage.bookings_offered_to(principal.id).await {
        Ok(offered) => offered,
        Err(error) => {
            warn!(%error, user = %principal.id, "offers not sent on connect");
            return;
        }
    };
    if offered.is_empty() {
        return;
    }
    let position = state.runtime.driver(principal.id).await.and_then(|view| view.position);
    for booking in &offered {
        let distance_km = position.map(|point| geo::distance_km(point, booking.pickup.point()));
        let presented = present::booking(booking, principal, settings);
        let offer = present::offer(&presented, booking.dispatch.deadline, distance_km);
        let _ = socket.emit(events::OFFER, &offer);
    }
}
