//! Server messages in the reader's language (spec §1): the `message` of
//! every error and the texts of notifications use the user's language (their
//! `lang.langLocale`), or for visitors the `Accept-Language` header, falling
//! back to the default language of the languages table, then `en`.
//!
//! The dictionaries are the languages table's (admins edit them), read once
//! and cached until a language route changes them; the shipped English
//! dictionary is the last resort, so a key always has a text.
//!
//! Errors are rendered in English by `ApiError` (which cannot see the
//! request) and carry their key in a response extension; the [`localize()`]
//! middleware re-renders only those whose reader's language is not English.
//!
//! - [`languages`]: the dictionaries, the per-reader [`Localizer`], the
//!   cache of the languages table and `Accept-Language` parsing.
//! - [`mod@localize`]: the middleware that re-renders errors.

pub mod languages;
pub mod localize;

pub use languages::{LanguageCache, LanguageSet, Localizer, ReaderLanguage, accepted_locales};
pub use localize::localize;
