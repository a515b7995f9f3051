//! The errors of the maps layer: [`MapsError`], a request that failed, whose
//! variants each know their translation key (spec §8), so the edge answers
//! with the spec's error shape without knowing which provider failed or why;
//! and [`MapsConfigError`], a `[maps]` setting a provider cannot run with,
//! which the configuration and the providers' constructors both return.

use wayfare_engine::{DomainError, ErrorKey};

/// The geo calls of spec §7 ("Cloud backend"), named so that a provider
/// failure can answer with the spec's fixed text for that call (spec §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeoCall {
    Autocomplete,
    PlaceCoords,
    Address,
    Directions,
    DistanceMatrix,
}

impl GeoCall {
    /// Spec §8: "Geo call failures reject with the server's error or fixed text".
    pub fn failure_text(self) -> &'static str {
        match self {
            GeoCall::Autocomplete => "fetchPlacesAutocomplete Call Error",
            GeoCall::PlaceCoords => "fetchCoordsfromPlace Call Error",
            GeoCall::Address => "fetchAddressfromCoords Call Error",
            GeoCall::Directions => "getDirectionsApi Call Error",
            GeoCall::DistanceMatrix => "getDistanceMatrix Call Error",
        }
    }
}

/// Why a maps request failed. The `Display` text is safe to show to a user:
/// a provider's own failure is kept as the error's `source` for the logs and
/// never appears in the message.
#[derive(Debug, thiserror::Error)]
pub enum MapsError {
    /// No route joins the points (spec §8 FETCH_ESTIMATE_FAILED 'No Route Found').
    #[error("No Route Found")]
    NoRoute,
    /// The place id names no place the provider knows.
    #[error("unknown place")]
    UnknownPlace,
    /// Spec §7: at most about 25 waypoints per directions request.
    #[error("at most {max} waypoints per directions request, got {given}")]
    TooManyWaypoints { given: usize, max: usize },
    /// Origins times destinations over the provider's limit.
    #[error("at most {max} origin-destination pairs per distance matrix, got {given}")]
    MatrixTooLarge { given: usize, max: usize },
    /// Latitude or longitude out of range, or not a number.
    #[error("coordinates out of range")]
    InvalidPoint,
    /// The provider itself failed: network, quota, an answer it could not read.
    #[error("{}", call.failure_text())]
    Provider {
        call: GeoCall,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl MapsError {
    /// The translation key the edge answers with.
    pub fn key(&self) -> ErrorKey {
        match self {
            MapsError::NoRoute => ErrorKey::NoRouteFound,
            MapsError::UnknownPlace => ErrorKey::PlaceToCoordsError,
            MapsError::TooManyWaypoints { .. } | MapsError::MatrixTooLarge { .. } | MapsError::InvalidPoint => {
                ErrorKey::InvalidInput
            }
            MapsError::Provider { .. } => ErrorKey::GooglePlacesError,
        }
    }
}

impl From<MapsError> for DomainError {
    fn from(error: MapsError) -> Self {
        DomainError::new(error.key())
    }
}

/// A configuration value out of range, or one a provider needs and lacks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapsConfigError {
    #[error("maps.detour_factor must be a number of at least 1, got {0}")]
    DetourFactor(f64),
    #[error("maps.average_speed_kmh must be a number above 0, got {0}")]
    AverageSpeed(f64),
    #[error("maps.provider = \"osm\" needs maps.osm_file, an .osm.pbf extract")]
    NoOsmFile,
    #[error("maps.provider = \"osrm\" needs maps.osrm_url, the OSRM server's address")]
    NoOsrmUrl,
    #[error("maps.geocoder = \"{0}\" needs maps.geocoder_url, the server's address")]
    NoGeocoderUrl(&'static str),
    #[error("maps.{0} = \"google\" needs maps.google_api_key")]
    NoGoogleApiKey(&'static str),
    #[error("maps.{field} must be an http:// or https:// address, got {value:?}")]
    BadUrl { field: &'static str, value: String },
    #[error(
        "maps.geocoder works with maps.provider = \"osrm\" or \"google\"; the {0} provider searches its own places"
    )]
    GeocoderWithoutRemoteProvider(&'static str),
    #[error("maps.request_timeout_secs must be at least 1, got {0}")]
    RequestTimeout(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_answers_with_its_spec_translation_key() {
        // spec §8: 'No Route Found', place_to_coords_error, google_places_error
        assert_eq!(MapsError::NoRoute.key().as_str(), "no_route_found");
        assert_eq!(MapsError::UnknownPlace.key().as_str(), "place_to_coords_error");
        assert_eq!(MapsError::TooManyWaypoints { given: 26, max: 25 }.key().as_str(), "invalid_input");
        assert_eq!(MapsError::MatrixTooLarge { given: 626, max: 625 }.key().as_str(), "invalid_input");
        assert_eq!(MapsError::InvalidPoint.key().as_str(), "invalid_input");
        let failure = MapsError::Provider { call: GeoCall::PlaceCoords, source: "quota exceeded".into() };
        assert_eq!(failure.key().as_str(), "google_places_error");
        assert_eq!(DomainError::from(MapsError::NoRoute), DomainError::new(ErrorKey::NoRouteFound));
    }

    #[test]
    fn a_provider_failure_shows_the_spec_text_and_keeps_the_cause_for_the_logs() {
        // spec §8: geo call failures reject with a fixed text per call
        let failure =
            MapsError::Provider { call: GeoCall::Directions, source: "connection refused to 10.0.0.7:5000".into() };
        assert_eq!(failure.to_string(), "getDirectionsApi Call Error");
        let cause = std::error::Error::source(&failure).expect("the cause is kept");
        assert_eq!(cause.to_string(), "connection refused to 10.0.0.7:5000");
        let texts: Vec<_> = [
            GeoCall::Autocomplete,
            GeoCall::PlaceCoords,
            GeoCall::Address,
            GeoCall::Directions,
            GeoCall::DistanceMatrix,
        ]
        .into_iter()
        .map(GeoCall::failure_text)
        .collect();
        assert_eq!(
            texts,
            [
                "fetchPlacesAutocomplete Call Error",
                "fetchCoordsfromPlace Call Error",
                "fetchAddressfromCoords Call Error",
                "getDirectionsApi Call Error",
                "getDistanceMatrix Call Error",
            ]
        );
    }
}
