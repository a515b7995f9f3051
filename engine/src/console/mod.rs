//! What the live dispatch console summarises (issue #15), as pure functions
//! of data the runtime hands in: supply and demand per H3 cell
//! ([`hexes`]) and the live figures over a window of dispatch history
//! ([`figures`]). The runtime keeps the drivers, the open bookings and the
//! recent history; nothing here reads a clock or keeps state.

pub mod drivers;
pub mod figures;
pub mod hexes;

pub use drivers::{DriverState, driver_state};
pub use figures::{DispatchSample, Figures, OfferTally, Outcome, figures};
pub use hexes::{Demand, DemandKind, HexCell, RESOLUTIONS, hexagons};
