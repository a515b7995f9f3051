//! The REST routes, one module per resource; each exposes `router()`.

pub mod admin_catalog;
pub mod bookings;
pub mod catalog;
pub mod drivers;
pub mod files;
pub mod geo;
pub mod health;
pub mod languages;
pub mod notifications;
pub mod payments;
pub mod promos;
pub mod reports;
pub mod users;
pub mod wallet;
pub mod withdraws;
