//! The pure domain core of Wayfare: the entities of the spec, the booking state
//! machine, fares, input rules, permissions and dispatch planning.
//!
//! It does no IO, spawns nothing and reads no clock: time is always a
//! parameter (`now`, milliseconds since the epoch) and randomness comes from an
//! injected RNG. Commands go in, a new state and a list of effects come out;
//! the actors carry the effects out. That keeps every rule testable in
//! microseconds and lets the simulator replay the same engine deterministically.

pub mod booking;
pub mod console;
pub mod dispatch;
pub mod earnings;
pub mod error;
pub mod exicube;
pub mod fare;
pub mod fix;
pub mod generate;
pub mod geo;
pub mod ids;
pub mod model;
pub mod money;
pub mod payment;
pub mod permissions;
pub mod promo;
pub mod receipt;
pub mod refund;
pub mod reposition;
pub mod rules;
pub mod signup;
pub mod social;
pub mod sos;
pub mod timefmt;
pub mod wallet;

pub use error::{DomainError, DomainResult, ErrorKey, ErrorKind};
pub use ids::*;
pub use model::*;
