//! The entities of spec §3 as typed structs. Serde names are the spec's, so the
//! JSON of the API is the spec's JSON; money is `Decimal`, times are
//! milliseconds since the epoch, distances are kilometres unless a name says
//! otherwise.

mod basics;
mod booking;
mod car_type;
pub mod document;
#[cfg(feature = "openapi")]
mod openapi;
mod records;
mod settings;
mod user;

pub use basics::*;
pub use booking::*;
pub use car_type::*;
pub use document::{Application, ApplicationStatus, DocumentKind, DocumentStatus, DriverDocument};
pub use records::*;
pub use settings::*;
pub use user::*;
