//! User-facing texts by translation key. English ships with the binary and
//! is the fallback of every language (spec §1: fallback `en`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

static ENGLISH: LazyLock<Messages> = LazyLock::new(|| {
    let pairs: BTreeMap<String, String> =
        serde_json::from_str(include_str!("../assets/lang/en.json")).expect("the English dictionary is valid JSON");
    Messages { pairs }
});

#[derive(Debug, Clone, PartialEq)]
pub struct Messages {
    pairs: BTreeMap<String, String>,
}

impl Messages {
    pub fn english() -> &'static Messages {
        &ENGLISH
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
        use NoticeKey::*;
        for key in [AcceptBookingRequest, BookingAccepted, DriverArrived, TripStarted, TripReached, PaymentDue, PaymentReceived, BookingCancelled, RatingReceived, ChatRequested, WalletUpdated] {
            assert_ne!(Messages::english().text(key.as_str()), key.as_str(), "no English text for {key:?}");
        }
    }

    #[test]
    fn the_spec_fixed_texts_are_kept() {
        // spec §8 fixed texts
        assert_eq!(Messages::english().text("json_error"), "JSON Error");
        assert_eq!(Messages::english().text("cannot_delete_default_language"), "Cannot delete default language");
        assert_eq!(Messages::english().text("no_route_found"), "No Route Found");
    }
}
