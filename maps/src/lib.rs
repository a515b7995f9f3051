//! Routing, geocoding and place autocomplete for Wayfare, behind one async
//! provider trait ([`MapsProvider`]): the geo calls of spec §7 —
//! autocomplete, place id to coordinates, coordinates to address, directions
//! through up to 25 waypoints, distance matrix — with the errors of spec §8.
//!
//! It ships the pure pieces every provider shares (Google's encoded
//! polyline, thinning a long track to the waypoint limit, an in-memory
//! [`Gazetteer`] with the demo city's landmarks) and the
//! [`StraightLineProvider`], which works offline: great-circle distance ×
//! a detour factor at an average speed; and the OpenStreetMap provider
//! ([`osm`]), which routes on the roads of one extract with contraction
//! hierarchies, searches its addresses and places, matches GPS tracks to
//! its roads and cuts its basemap into vector tiles, offline; and clients
//! for web services ([`remote`]): OSRM for routes, Nominatim or Photon for
//! places, or Google's web services for either.
//! [`provider_from`] builds the configured provider.
//!
//! It deliberately has no HTTP server, no routes and no UI: the http crate
//! exposes these calls, maps their errors to status codes and draws nothing.
//! Fares are the engine's business; this crate only says how far and how long.

pub mod config;
pub mod error;
pub mod gazetteer;
pub mod maps_provider;
pub mod osm;
pub mod polyline;
pub mod remote;
pub mod straight_line;
pub mod waypoints;

#[cfg(test)]
mod test_support;

pub use config::{GeocoderKind, MapsConfig, MapsSetupError, ProviderKind, provider_from};
pub use error::{GeoCall, MapsConfigError, MapsError};
pub use gazetteer::{Gazetteer, GazetteerError, GazetteerPlace};
pub use maps_provider::{
    DistanceMatrix, Leg, MAX_MATRIX_ELEMENTS, MAX_WAYPOINTS, MapsProvider, PlaceDetails, Route, Suggestion,
    check_matrix_size, check_waypoints,
};
pub use polyline::PolylineError;
pub use straight_line::StraightLineProvider;
pub use waypoints::thin_waypoints;
