//! The names of the Socket.IO events, server to client and back, and
//! [`emit_to`], which sends one to rooms. It imports nothing of the crate,
//! so the session and the fan-out share it without importing the module
//! that starts them.

use socketioxide::SocketIo;

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
