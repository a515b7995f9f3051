//! User-facing texts by translation key, and the dictionaries the product
//! ships: English, Arabic (right to left) and French, in
//! `http/assets/lang/{en,ar,fr}.json`. Those files are the one source of
//! truth: the server embeds them, seeds them into the languages table at
//! first start (spec §3 `langlist`, English the default) and the web app
//! bundles the same files as its fallback. Each is one flat JSON object:
//! the server's keys (errors, notifications) and the web app's (dotted,
//! such as `nav.home`). English is the fallback of every language (spec §1).

use std::collections::BTreeMap;
use std::sync::LazyLock;
use wayfare_engine::{Language, LanguageId, Millis};

/// A dictionary shipped with the binary.
#[derive(Debug, Clone, Copy)]
pub struct BundledLanguage {
    pub locale: &'static str,
    pub name: &'static str,
    pub date_locale: &'static str,
    /// Seeded as the default language.
    pub default: bool,
    source: &'static str,
}

pub const BUNDLED: [BundledLanguage; 3] = [
    BundledLanguage {
        locale: "en",
        name: "English",
        date_locale: "en",
        default: true,
        source: include_str!("../assets/lang/en.json"),
    },
    BundledLanguage {
        locale: "ar",
        name: "العربية",
        date_locale: "ar",
        default: false,
        source: include_str!("../assets/lang/ar.json"),
    },
    BundledLanguage {
        locale: "fr",
        name: "Français",
        date_locale: "fr",
        default: false,
        source: include_str!("../assets/lang/fr.json"),
    },
];

static BUNDLED_MESSAGES: LazyLock<Vec<Messages>> = LazyLock::new(|| {
    BUNDLED
        .iter()
        .map(|language| {
            let pairs: BTreeMap<String, String> = serde_json::from_str(language.source).unwrap_or_else(|error| {
                panic!("the {} dictionary is a flat JSON object of texts: {error}", language.locale)
            });
            Messages { pairs }
        })
        .collect()
});

static ENGLISH: LazyLock<Messages> = LazyLock::new(|| bundled("en").expect("English is bundled").clone());

/// A shipped dictionary by locale.
pub fn bundled(locale: &str) -> Option<&'static Messages> {
    BUNDLED.iter().position(|language| language.locale == locale).map(|index| &BUNDLED_MESSAGES[index])
}

/// The shipped languages as the languages table keeps them, with stable ids
/// (so a second seed finds them).
pub fn bundled_languages(now: Millis) -> Vec<Language> {
    BUNDLED
        .iter()
        .zip(BUNDLED_MESSAGES.iter())
        .enumerate()
        .map(|(index, (language, messages))| Language {
            id: LanguageId::from_u128(0x0000_0000_0000_7000_8000_1a00_0000_0000 | (index as u128 + 1)),
            langName: language.name.to_string(),
            langLocale: language.locale.to_string(),
            dateLocale: language.date_locale.to_string(),
            default: language.default,
            keyValuePairs: messages.pairs.clone(),
            createdAt: now,
        })
        .collect()
}

/// Seeds the shipped languages into an empty languages table (first start,
/// demo or not). A table with any language is the admins' and is left alone.
pub async fn seed_languages(storage: &dyn wayfare_storage::Storage, now: Millis) -> wayfare_storage::StorageResult<()> {
    if !storage.languages().await?.is_empty() {
        return Ok(());
    }
    for language in bundled_languages(now) {
        storage.save_language(&language, now).await?;
    }
    tracing::info!(languages = BUNDLED.len(), "shipped languages seeded");
    Ok(())
}

#[derive(Debug, Clone, PartialEq)]
pub struct Messages {
    pairs: BTreeMap<String, String>,
}

impl Messages {
    pub fn new(pairs: BTreeMap<String, String>) -> Self {
        Messages { pairs }
    }

    pub fn english() -> &'static Messages {
        &ENGLISH
    }

    /// The text of a key, if this dictionary has one.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.get(key).map(String::as_str).filter(|text| !text.is_empty())
    }

    /// The text of a key; the key itself when the dictionary lacks it.
    pub fn text<'a>(&'a self, key: &'a str) -> &'a str {
        self.pairs.get(key).map(String::as_str).unwrap_or(key)
    }

    pub fn pairs(&self) -> &BTreeMap<String, String> {
        &self.pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfare_engine::ErrorKey;
    use wayfare_engine::booking::NoticeKey;

    #[test]
    fn english_has_a_text_for_every_error_key() {
        for key in ErrorKey::ALL {
            assert_ne!(Messages::english().text(key.as_str()), key.as_str(), "no English text for {key}");
        }
    }

    #[test]
    fn english_has_a_text_for_every_notice() {
        for key in NoticeKey::ALL {
            assert_ne!(Messages::english().text(key.as_str()), key.as_str(), "no English text for {key:?}");
        }
    }

    /// Every key the server answers or notifies with, and the fixed texts.
    fn server_keys() -> Vec<&'static str> {
        let notices = NoticeKey::ALL;
        ErrorKey::ALL
            .iter()
            .map(|key| key.as_str())
            .chain(notices.iter().map(|key| key.as_str()))
            .chain([
                wayfare_engine::booking::NOTIFICATION_TITLE_KEY,
                "internal_error",
                "unavailable",
                "sign_in_code_subject",
                "sign_in_code_body",
            ])
            .chain(crate::documents::content::TEXT_KEYS)
            .collect()
    }

    #[test]
    fn every_server_key_has_a_text_in_every_shipped_language() {
        // spec §9: notification_title, wallet_updated, accept_booking_request, booking_cancelled, chat_requested
        for language in BUNDLED {
            let messages = bundled(language.locale).unwrap();
            for key in server_keys() {
                assert!(messages.get(key).is_some(), "{} has no text for {key}", language.locale);
            }
        }
    }

    #[test]
    fn the_shipped_languages_have_the_same_keys_and_placeholders() {
        let english = bundled("en").unwrap();
        let placeholders = |text: &str| {
            let mut found: Vec<String> = text
                .split('{')
                .skip(1)
                .filter_map(|part| part.split_once('}'))
                .map(|(name, _)| name.trim_start_matches('{').to_string())
                .collect();
            found.sort();
            found
        };
        // Arabic has more plural forms than English (zero, two, few, many).
        let plural = |key: &str| {
            ["_zero", "_one", "_two", "_few", "_many", "_other"]
                .iter()
                .find_map(|suffix| key.strip_suffix(suffix))
                .unwrap_or(key)
                .to_string()
        };
        for language in ["ar", "fr"] {
            let other = bundled(language).unwrap();
            let english_keys: std::collections::BTreeSet<String> =
                english.pairs().keys().map(|key| plural(key)).collect();
            let other_keys: std::collections::BTreeSet<String> = other.pairs().keys().map(|key| plural(key)).collect();
            assert_eq!(
                english_keys.difference(&other_keys).collect::<Vec<_>>(),
                Vec::<&String>::new(),
                "{language} lacks keys"
            );
            assert_eq!(
                other_keys.difference(&english_keys).collect::<Vec<_>>(),
                Vec::<&String>::new(),
                "{language} has extra keys"
            );
            for (key, text) in other.pairs() {
                let source = english.get(key).or_else(|| english.get(&format!("{}_other", plural(key))));
                let Some(source) = source else { continue };
                if plural(key) == *key {
                    assert_eq!(placeholders(text), placeholders(source), "{language} {key}");
                } else {
                    // A plural form may leave the count out ("one second").
                    assert!(
                        placeholders(text).iter().all(|name| placeholders(source).contains(name)),
                        "{language} {key}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_seed_makes_english_the_one_default() {
        let languages = bundled_languages(7);
        assert_eq!(
            languages
                .iter()
                .filter(|language| language.default)
                .map(|language| language.langLocale.as_str())
                .collect::<Vec<_>>(),
            ["en"]
        );
        assert_eq!(
            languages.iter().map(|language| language.langLocale.as_str()).collect::<Vec<_>>(),
            ["en", "ar", "fr"]
        );
    }

    #[tokio::test]
    async fn the_first_start_seeds_the_shipped_languages_once_and_never_over_the_admins() {
        let directory = tempfile::tempdir().unwrap();
        let storage =
            wayfare_storage::open(&format!("sqlite://{}", directory.path().join("w.db").display())).await.unwrap();
        seed_languages(storage.as_ref(), 5).await.unwrap();
        let seeded = storage.languages().await.unwrap();
        assert_eq!(seeded.iter().map(|language| language.langLocale.as_str()).collect::<Vec<_>>(), ["en", "ar", "fr"]);
        assert_eq!(seeded[2].keyValuePairs, bundled("fr").unwrap().pairs().clone());
        // An admin's table is left alone, even with a shipped language missing.
        storage.delete_language(seeded[2].id).await.unwrap();
        seed_languages(storage.as_ref(), 6).await.unwrap();
        assert_eq!(storage.languages().await.unwrap().len(), 2);
    }

    #[test]
    fn the_spec_fixed_texts_are_kept() {
        // spec §8 fixed texts
        assert_eq!(Messages::english().text("json_error"), "JSON Error");
        assert_eq!(Messages::english().text("cannot_delete_default_language"), "Cannot delete default language");
        assert_eq!(Messages::english().text("no_route_found"), "No Route Found");
    }
}
