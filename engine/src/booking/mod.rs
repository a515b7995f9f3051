//! The booking state machine of spec §4.
//!
//! `create` makes a booking from a request; `apply` takes a booking, who is
//! acting and a command, and returns the next booking and the effects to carry
//! out (notifications, wallet entries, tracking points, queue flags, offers,
//! timers) as data. A command that is not allowed returns a `DomainError` with
//! a translation key; nothing here panics on input, reads a clock or does IO.
//! The actor that owns a booking persists the new booking and the effects in
//! one storage transaction, then publishes them.

mod command;
mod create;
mod effect;
mod machine;
mod panel;
pub mod refunds;

pub use command::*;
pub use create::*;
pub use effect::*;
pub use machine::*;
pub use panel::*;

#[cfg(test)]
mod tests;
