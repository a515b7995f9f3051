//! The languages table as the server reads it: [`LanguageSet`] (the
//! dictionaries by locale), [`Localizer`] (one reader's texts with their
//! fallbacks), [`LanguageCache`] (the table, cached until a language route
//! changes it), `Accept-Language` parsing and [`ReaderLanguage`], the request
//! extension the session extractors fill. Nothing here reads a request's
//! session or the app's state, so the state and the extractors can hold and
//! fill these without importing the middleware.

use crate::messages::Messages;
use axum::http::header::ACCEPT_LANGUAGE;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use wayfare_engine::{Language, User};
use wayfare_storage::{Storage, StorageResult};

/// The languages as the server reads them, by lower-case locale.
#[derive(Debug, Default)]
pub struct LanguageSet {
    by_locale: HashMap<String, Arc<Messages>>,
    default_locale: Option<String>,
}

impl LanguageSet {
    pub fn new(languages: &[Language]) -> Self {
        let by_locale = languages
            .iter()
            .map(|language| {
                (language.langLocale.to_lowercase(), Arc::new(Messages::new(language.keyValuePairs.clone())))
            })
            .collect();
        let default_locale =
            languages.iter().find(|language| language.default).map(|language| language.langLocale.to_lowercase());
        LanguageSet { by_locale, default_locale }
    }

    /// A language by locale: exactly (`pt-br`), else by its language code (`pt`).
    fn find(&self, locale: &str) -> Option<(&String, &Arc<Messages>)> {
        let locale = locale.trim().to_lowercase().replace('_', "-");
        if let Some(found) = self.by_locale.get_key_value(&locale) {
            return Some(found);
        }
        let primary = locale.split('-').next().unwrap_or_default();
        self.by_locale.get_key_value(primary)
    }

    /// The first of `preferred` the table has, then the default, then `en`.
    pub fn localizer<'a>(&self, preferred: impl IntoIterator<Item = &'a str>) -> Localizer {
        let mut chain: Vec<(String, Arc<Messages>)> = Vec::with_capacity(3);
        let mut push = |found: Option<(&String, &Arc<Messages>)>| {
            if let Some((locale, messages)) = found
                && !chain.iter().any(|(known, _)| known == locale)
            {
                chain.push((locale.clone(), messages.clone()));
            }
        };
        if let Some(found) = preferred.into_iter().find_map(|locale| self.find(locale)) {
            push(Some(found));
        }
        push(self.default_locale.as_deref().and_then(|locale| self.by_locale.get_key_value(locale)));
        push(self.by_locale.get_key_value("en"));
        Localizer { chain }
    }
}

/// Texts in one reader's language, with the fallbacks behind it.
#[derive(Debug, Clone, Default)]
pub struct Localizer {
    chain: Vec<(String, Arc<Messages>)>,
}

impl Localizer {
    /// English only (the shipped dictionary).
    pub fn english() -> Self {
        Localizer::default()
    }

    /// The locale texts come from first (`en` when none).
    pub fn locale(&self) -> &str {
        self.chain.first().map_or("en", |(locale, _)| locale.as_str())
    }

    /// The text of a key: the first language that has it, else the shipped
    /// English text, else the key.
    pub fn text(&self, key: &str) -> String {
        self.chain
            .iter()
            .find_map(|(_, messages)| messages.get(key))
            .unwrap_or_else(|| Messages::english().text(key))
            .to_string()
    }
}

/// The languages table, cached. Cheap to clone.
#[derive(Clone, Default)]
pub struct LanguageCache {
    current: Arc<RwLock<Option<Arc<LanguageSet>>>>,
    /// Serialises reloads, so a burst of errors reads the table once.
    loading: Arc<tokio::sync::Mutex<()>>,
}

impl LanguageCache {
    pub async fn get(&self, storage: &dyn Storage) -> StorageResult<Arc<LanguageSet>> {
        if let Some(set) = self.current.read().expect("language cache lock").clone() {
            return Ok(set);
        }
        let _loading = self.loading.lock().await;
        if let Some(set) = self.current.read().expect("language cache lock").clone() {
            return Ok(set);
        }
        let set = Arc::new(LanguageSet::new(&storage.languages().await?));
        *self.current.write().expect("language cache lock") = Some(set.clone());
        Ok(set)
    }

    /// Forgets the cache after a language changed.
    pub fn invalidate(&self) {
        *self.current.write().expect("language cache lock") = None;
    }

    /// The localizer of a visitor: their browser's `Accept-Language`, else
    /// the default, else `en`.
    pub async fn for_visitor(&self, storage: &dyn Storage, headers: &axum::http::HeaderMap) -> Localizer {
        let accepted = headers
            .get(ACCEPT_LANGUAGE)
            .and_then(|value| value.to_str().ok())
            .map(accepted_locales)
            .unwrap_or_default();
        match self.get(storage).await {
            Ok(set) => set.localizer(accepted.iter().map(String::as_str)),
            Err(error) => {
                tracing::warn!(%error, "languages not read; english used");
                Localizer::english()
            }
        }
    }

    /// The localizer of a user (their language, else the default, else `en`);
    /// English alone when the table cannot be read.
    pub async fn for_user(&self, storage: &dyn Storage, user: &User) -> Localizer {
        let preferred = user.lang.as_ref().map(|lang| lang.langLocale.as_str());
        match self.get(storage).await {
            Ok(set) => set.localizer(preferred),
            Err(error) => {
                tracing::warn!(%error, "languages not read; english used");
                Localizer::english()
            }
        }
    }
}

/// The locales of an `Accept-Language` header, most preferred first
/// (`q=0` ones dropped, `*` ignored).
pub fn accepted_locales(header: &str) -> Vec<String> {
    let mut weighted: Vec<(f32, usize, String)> = header
        .split(',')
        .enumerate()
        .filter_map(|(position, part)| {
            let mut pieces = part.split(';');
            let locale = pieces.next()?.trim();
            if locale.is_empty() || locale == "*" {
                return None;
            }
            let quality = pieces
                .filter_map(|piece| piece.trim().strip_prefix("q="))
                .find_map(|value| value.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (quality > 0.0).then(|| (quality, position, locale.to_string()))
        })
        .collect();
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    weighted.into_iter().map(|(_, _, locale)| locale).collect()
}

/// Filled by the session extractors with the signed-in user's language, so
/// the middleware knows it without reading the session again.
#[derive(Clone, Default)]
pub struct ReaderLanguage(Arc<OnceLock<Option<String>>>);

impl ReaderLanguage {
    pub fn remember(&self, user: &User) {
        let _ = self.0.set(user.lang.as_ref().map(|lang| lang.langLocale.clone()));
    }

    /// `None` when no extractor saw a user; `Some(None)` for a user without a language.
    pub(super) fn known(&self) -> Option<Option<String>> {
        self.0.get().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use wayfare_engine::LanguageId;

    fn language(locale: &str, default: bool, pairs: &[(&str, &str)]) -> Language {
        Language {
            id: LanguageId::from_u128(locale.len() as u128),
            langName: locale.into(),
            langLocale: locale.into(),
            dateLocale: locale.into(),
            default,
            keyValuePairs: pairs
                .iter()
                .map(|(key, text)| (key.to_string(), text.to_string()))
                .collect::<BTreeMap<_, _>>(),
            createdAt: 0,
        }
    }

    #[test]
    fn a_text_comes_from_the_readers_language_then_the_default_then_english() {
        // spec §1: the default language's dictionary, fallback code en
        let set = LanguageSet::new(&[
            language("en", false, &[("a", "A en"), ("b", "B en")]),
            language("fr", true, &[("a", "A fr")]),
            language("ar", false, &[("b", "B ar")]),
        ]);
        let arabic = set.localizer(["ar"]);
        assert_eq!((arabic.text("b"), arabic.text("a")), ("B ar".to_string(), "A fr".to_string()));
        assert_eq!(
            arabic.text("demo_mode"),
            Messages::english().text("demo_mode"),
            "the shipped English is the last resort"
        );
        assert_eq!(arabic.text("no_such_key"), "no_such_key");
        let unknown = set.localizer(["de"]);
        assert_eq!(
            (unknown.locale(), unknown.text("a"), unknown.text("b")),
            ("fr", "A fr".to_string(), "B en".to_string())
        );
        assert_eq!(set.localizer(["FR-ca"]).locale(), "fr", "a regional locale finds its language");
    }

    #[test]
    fn accept_language_is_read_by_quality() {
        assert_eq!(accepted_locales("fr-CA, fr;q=0.9, en;q=0.8, *;q=0.5"), ["fr-CA", "fr", "en"]);
        assert_eq!(accepted_locales("en;q=0.2, ar"), ["ar", "en"]);
        assert_eq!(accepted_locales("de;q=0, es"), ["es"]);
        assert!(accepted_locales("").is_empty());
    }
}
