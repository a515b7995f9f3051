//! The booking flow (DESIGN.md contract), a file per use: [`create`]
//! (estimate and book), [`read`] (the list and its export, one booking, a
//! driver's offers), [`commands`] (every command of the state machine),
//! [`chat`] and [`tracking`]. What other resources use is re-exported here.

mod access;
mod chat;
mod commands;
mod create;
mod read;
mod tracking;

pub(crate) use access::authorised;
pub(crate) use commands::run;
pub(crate) use create::{CreateBody, TripBody, book};
pub(crate) use read::{Items, fleets_of, presented, presented_one};

use crate::routes::ApiRouter;

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .merge(create::router())
        .merge(read::router())
        .merge(commands::router())
        .merge(chat::router())
        .merge(tracking::router())
}
