//! Sign-in with one-time codes (spec §4 "Login", §5, §6), with Google,
//! Apple or Facebook (`oauth`, issue #37), and sessions.
//!
//! A code is 6 digits, valid 10 minutes, at most 5 wrong tries; requests are
//! rate-limited per contact and per client address. Only hashes of codes and
//! of session tokens are stored. Tokens travel as a bearer header (scripts,
//! mobile) or an HttpOnly cookie (the web app).

pub mod delivery;
pub mod extract;
pub mod limiter;
pub mod oauth;
pub mod routes;
pub mod tokens;

pub use delivery::{Attachment, Channel, CodeDelivery, DevOutbox, OutboxAttachment, OutboxEntry, Outgoing};
pub use extract::{Applicant, CurrentUser, MaybeApplicant, MaybeUser};
