//! People played against a running server through its public REST API and
//! Socket.IO, as the apps do: nothing here simulates, the server decides
//! every rule.
//!
//! - [`client`] is the server's API as the apps reach it (calls, sign-in,
//!   a driver's socket), shared by both players;
//! - [`live`] is `wayfare simulate --live`: a scenario's drivers and riders
//!   in real time, until every request is settled;
//! - [`living`] is the living demo: the demo city at work for as long as
//!   `wayfare serve --demo` runs.

pub mod client;
pub mod live;
pub mod living;
