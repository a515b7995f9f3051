//! The built-in OpenStreetMap provider: everything from one extract, with no
//! server to install and no internet.
//!
//! - [`source`] reads `.osm.pbf` and `.osm` XML;
//! - [`profile`] says which ways a car drives, how fast and where it turns;
//! - [`network`] splits the ways into directed segments and the turns between them,
//!   or takes a plain directed graph's links as segments ([`Network::from_graph`]);
//! - [`ch`] prepares contraction hierarchies and answers routes and matrices;
//! - [`router`] snaps points to roads and turns searches into paths;
//! - [`geocode`] indexes addresses, places, streets and intersections;
//! - [`matching`] finds the roads a noisy GPS track was driven on;
//! - [`basemap`] reads what the map draws: water, land cover, buildings, roads, names;
//! - [`tiles`] cuts it into vector tiles, and [`style`] says how MapLibre draws them;
//! - [`cache`] keeps the preparation in the data directory by content hash;
//! - [`osm_provider`] answers the geo calls of spec §7 from all of it.

pub mod basemap;
pub mod cache;
pub mod ch;
pub mod geocode;
pub mod matching;
pub mod network;
pub mod osm_provider;
pub mod profile;
pub mod router;
pub mod source;
pub mod style;
pub mod tiles;

pub use network::{GraphLink, Network, NetworkError};
pub use router::Router;

#[cfg(test)]
mod graph_tests;
#[cfg(test)]
mod tests;
