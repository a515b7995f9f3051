//! Route tests (issue 5 "Tests"): every route of the router, called with
//! `oneshot` and no server, on SQLite with the demo seed and a manual clock:
//! each success with the spec's field names, each validation error with its
//! translation key, and the authorisation matrix (every route × every role ×
//! someone else's resource).

mod support;

// admin panel: users, profile, car types, cancel reasons, settings, app info
mod admin_catalog;
mod admin_support;
mod matrix_admin;
mod profile;
mod users;

mod bodies;
mod booking_grid;
mod bookings;
mod candidates;
mod catalog;
mod dashboard;
mod dispatch;
mod drivers;
mod files;
mod gateways;
mod geo;
mod matrix;
mod matrix_files;
mod payment_gateways;
mod payments;
mod sign_in;
mod signup;
// social sign-in against a local OpenID Connect fake (issue 37)
mod social;
mod trips;
mod visibility;
mod wallet;
// money: wallet credit, withdraws, reports
mod matrix_money;
mod money_support;
mod refunds;
// receipts and weekly statements (issue 37), and reading the PDFs' text
mod pdf_support;
mod postgres_support;
mod receipts;
mod reports;
mod statements;
mod wallet_credit;
mod withdraws;
// promos, notifications, languages
mod languages;
mod matrix_notify_lang;
mod notifications;
mod notify_lang_support;
mod promos;
// SOS (issue 33)
mod sos;
// every booking ends well (issue 34)
mod mend;
