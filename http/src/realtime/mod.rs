//! The Socket.IO edge (DESIGN.md "API conventions"), at `/socket.io` on the
//! REST port.
//!
//! - [`session`]: the handshake (`auth: {token}` or the `wayfare_session`
//!   cookie), the rooms a socket joins, and the current state a socket is sent
//!   on every (re)connect.
//! - [`location`]: the drivers' `location` event with its ack, the one hot
//!   path: it goes straight to the driver's actor, never to storage.
//! - [`fanout`]: one task that reads the runtime's event bus and sends each
//!   event to the rooms that may see it, and batches the live `drivers` feed.
//!
//! Everything a socket is sent is presented by [`crate::present`], as the
//! same user's REST call would show it; nothing here decides a product rule.

pub(crate) mod console;
mod fanout;
mod location;
mod session;

use crate::state::AppState;
use socketioxide::SocketIo;
use socketioxide::layer::SocketIoLayer;
use tokio::sync::mpsc;
use wayfare_engine::UserId;

/// Socket.IO rooms (DESIGN.md): every user has their own; admins share the
/// dispatch console's; a fleet admin has their fleet's.
pub mod rooms {
    use super::UserId;

    pub const DISPATCH: &str = "dispatch";

    pub fn user(id: UserId) -> String {
        format!("user:{id}")
    }

    pub fn fleet(fleet_admin: UserId) -> String {
        format!("fleet:{fleet_admin}")
    }
}

/// The names of the events, server to client and back.
pub mod events {
    pub const BOOKING: &str = "booking";
    pub const OFFER: &str = "offer";
    pub const OFFER_WITHDRAWN: &str = "offer_withdrawn";
    pub const TRACKING: &str = "tracking";
    pub const CHAT: &str = "chat";
    pub const WALLET: &str = "wallet";
    pub const NOTIFICATION: &str = "notification";
    pub const DRIVERS: &str = "drivers";
    pub const DISPATCH: &str = "dispatch";
    /// An SOS alert (with its `state`) to admins and the booking's fleet
    /// admin, when raised, taken and resolved.
    pub const SOS: &str = "sos";
    /// `{figures, history}` to consoles every few seconds; also the client's
    /// `{resolution}` choice, with an ack.
    pub const CONSOLE: &str = "console";
    /// `{resolution, cells}` to consoles every few seconds.
    pub const HEXES: &str = "hexes";
    /// Client to server, with an ack.
    pub const LOCATION: &str = "location";
}

/// Emits to rooms of the default namespace. After `SocketIo::close` (shutdown)
/// the namespace is gone and `io.to` would panic: the event is dropped instead.
pub(crate) async fn emit_to<T: serde::Serialize + ?Sized>(
    io: &SocketIo,
    rooms: Vec<String>,
    event: &'static str,
    data: &T,
) -> Result<(), String> {
    let Some(namespace) = io.of("/") else {
        return Err("the sockets are closed".to_string());
    };
    namespace.to(rooms).emit(event, data).await.map_err(|error| error.to_string())
}

/// Packets a socket may have queued before it counts as too slow: the
/// default (128) is short for an admin's console during a rush.
const SOCKET_BUFFER_PACKETS: usize = 1024;

/// Builds the Socket.IO layer and its server handle, and starts the fan-out
/// task. Must run inside a Tokio runtime. The task ends when the runtime's
/// event bus closes.
pub fn layer(state: &AppState) -> (SocketIoLayer, SocketIo) {
    let (layer, io) = SocketIo::builder().max_buffer_size(SOCKET_BUFFER_PACKETS).build_layer();
    // Subscribe before returning, so no event published after `app()` is missed.
    let events = state.runtime.subscribe();
    let notices = state.notifier.subscribe();
    let (notes, notes_received) = mpsc::unbounded_channel();
    session::register(&io, state.clone(), notes.clone());
    // In a cluster, what the other nodes' runtimes published too.
    let remote = state.cluster.get().map(|link| link.subscribe());
    let fanout = fanout::Fanout::new(io.clone(), state.clone(), notes);
    tokio::spawn(fanout.run(events, notices, remote, notes_received));
    (layer, io)
}
