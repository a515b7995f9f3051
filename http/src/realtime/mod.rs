//! The Socket.IO edge (DESIGN.md "API conventions"), at `/socket.io` on the
//! REST port.
//!
//! - [`session`]: the handshake (`auth: {token}` or the `wayfare_session`
//!   cookie), the rooms a socket joins, and the current state a socket is sent
//!   on every (re)connect.
//! - [`location`]: the drivers' `location` event with its ack, the one hot
//!   path: it goes straight to the driver's actor, never to storage.
//! - [`rooms`] and [`events`]: the names a socket joins and hears, and
//!   [`events::emit_to`], the one way an event leaves.
//! - [`fanout`]: one task that reads the runtime's event bus and sends each
//!   event to the rooms that may see it, and batches the live `drivers` feed.
//!
//! Everything a socket is sent is presented by [`crate::present`], as the
//! same user's REST call would show it; nothing here decides a product rule.

pub(crate) mod console;
pub mod events;
mod fanout;
mod location;
pub mod rooms;
mod session;

use crate::state::AppState;
use socketioxide::SocketIo;
use socketioxide::layer::SocketIoLayer;
use tokio::sync::mpsc;

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
