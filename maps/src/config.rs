//! Which provider answers, and how it is tuned: the `[maps]` part of the
//! server's configuration.

use crate::error::MapsConfigError;
use crate::gazetteer::Gazetteer;
use crate::maps_provider::MapsProvider;
use crate::osm::cache::{self, PrepareError};
use crate::osm::osm_provider::OsmProvider;
use crate::remote::google::{self, Google};
use crate::remote::nominatim::Nominatim;
use crate::remote::osrm::Osrm;
use crate::remote::photon::Photon;
use crate::remote::{Composed, Geocoding, HttpClient};
use crate::straight_line::{StraightLineProvider, check_straight_line};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Which implementation of [`MapsProvider`] to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// Great-circle distance × detour factor at an average speed; places
    /// from the built-in Baltimore gazetteer. Works offline.
    #[default]
    StraightLine,
    /// Roads, places and the basemap from one OpenStreetMap extract
    /// (`osm_file`), built in and offline.
    Osm,
    /// Routes and matrices from an OSRM server (`osrm_url`); places from
    /// `geocoder`, else the built-in gazetteer.
    Osrm,
    /// Google's web services (`google_api_key`) for routes and matrices, and
    /// for places unless `geocoder` names another service.
    Google,
}

impl ProviderKind {
    /// The name the configuration file uses.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::StraightLine => "straight_line",
            ProviderKind::Osm => "osm",
            ProviderKind::Osrm => "osrm",
            ProviderKind::Google => "google",
        }
    }
}

/// Which service answers autocomplete, place ids and reverse lookups for the
/// `osrm` and `google` providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeocoderKind {
    /// A Nominatim server at `geocoder_url`.
    Nominatim,
    /// A Photon server at `geocoder_url`.
    Photon,
    /// Google's Places and Geocoding services (`google_api_key`).
    Google,
}

impl GeocoderKind {
    /// The name the configuration file uses.
    pub fn name(self) -> &'static str {
        match self {
            GeocoderKind::Nominatim => "nominatim",
            GeocoderKind::Photon => "photon",
            GeocoderKind::Google => "google",
        }
    }
}

/// Every field has a default, so an empty `[maps]` section is a working one.
/// Deserialising checks the values, so a bad file fails when it is loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "UncheckedMapsConfig")]
pub struct MapsConfig {
    /// Unset: `osm` when `osm_file` is given, else `straight_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderKind>,
    /// The OpenStreetMap extract (`.osm.pbf`) of the `osm` provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub osm_file: Option<PathBuf>,
    /// Road distance over great-circle distance; 1.3 is typical of a city grid.
    pub detour_factor: f64,
    /// Door-to-door average in town, stops included.
    pub average_speed_kmh: f64,
    /// The OSRM server of the `osrm` provider, e.g. `http://127.0.0.1:5000`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub osrm_url: Option<String>,
    /// Places for the `osrm` and `google` providers. Unset: Google's own with
    /// `google`, the built-in gazetteer with `osrm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geocoder: Option<GeocoderKind>,
    /// The Nominatim or Photon server of `geocoder`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geocoder_url: Option<String>,
    /// Google Maps Platform's key, for `provider` or `geocoder` = `google`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub google_api_key: Option<String>,
    /// Where Google's web services answer; another address for a proxy or a test.
    pub google_base_url: String,
    /// How long one request to a remote service may take, in seconds.
    pub request_timeout_secs: u64,
}

impl MapsConfig {
    pub const DEFAULT_DETOUR_FACTOR: f64 = 1.3;
    pub const DEFAULT_AVERAGE_SPEED_KMH: f64 = 30.0;
    pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 10;

    pub fn validate(&self) -> Result<(), MapsConfigError> {
        let kind = self.kind();
        if kind == ProviderKind::Osm && self.osm_file.is_none() {
            return Err(MapsConfigError::NoOsmFile);
        }
        check_straight_line(self.detour_factor, self.average_speed_kmh)?;
        if self.request_timeout_secs == 0 {
            return Err(MapsConfigError::RequestTimeout(self.request_timeout_secs));
        }
        // A bad address is refused even when unused, so a typo is found
        // before the day it is switched on.
        for (field, value) in [("osrm_url", &self.osrm_url), ("geocoder_url", &self.geocoder_url)] {
            if let Some(value) = setting(value) {
                service_url(field, value)?;
            }
        }
        service_url("google_base_url", &self.google_base_url)?;
        match kind {
            ProviderKind::Osrm => {
                self.osrm_url()?;
            }
            ProviderKind::Google => {
                self.google_api_key("provider")?;
            }
            ProviderKind::StraightLine | ProviderKind::Osm => {
                if self.geocoder.is_some() {
                    return Err(MapsConfigError::GeocoderWithoutRemoteProvider(kind.name()));
                }
            }
        }
        match self.geocoder {
            Some(GeocoderKind::Nominatim | GeocoderKind::Photon) => self.geocoder_url().map(drop),
            Some(GeocoderKind::Google) => self.google_api_key("geocoder").map(drop),
            None => Ok(()),
        }
    }

    /// The provider that answers: the configured one, else OpenStreetMap
    /// whenever a map file is given.
    pub fn kind(&self) -> ProviderKind {
        self.provider.unwrap_or(if self.osm_file.is_some() { ProviderKind::Osm } else { ProviderKind::StraightLine })
    }

    fn osrm_url(&self) -> Result<Url, MapsConfigError> {
        service_url("osrm_url", setting(&self.osrm_url).ok_or(MapsConfigError::NoOsrmUrl)?)
    }

    fn geocoder_url(&self) -> Result<Url, MapsConfigError> {
        let name = self.geocoder.map_or("", GeocoderKind::name);
        service_url("geocoder_url", setting(&self.geocoder_url).ok_or(MapsConfigError::NoGeocoderUrl(name))?)
    }

    /// `field` is the setting that asked for Google, for the message.
    fn google_api_key(&self, field: &'static str) -> Result<&str, MapsConfigError> {
        setting(&self.google_api_key).ok_or(MapsConfigError::NoGoogleApiKey(field))
    }

    /// `field` is the setting that asked for Google, for the message.
    fn google(&self, http: &HttpClient, field: &'static str) -> Result<Google, MapsConfigError> {
        let base = service_url("google_base_url", &self.google_base_url)?;
        Ok(Google::new(http.clone(), base, self.google_api_key(field)?))
    }
}

/// An unset or blank value (an empty environment variable) is no value.
fn setting(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|value| !value.is_empty())
}

fn service_url(field: &'static str, value: &str) -> Result<Url, MapsConfigError> {
    let bad = || MapsConfigError::BadUrl { field, value: value.to_owned() };
    let url = Url::parse(value.trim()).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(bad());
    }
    Ok(url)
}

impl Default for MapsConfig {
    fn default() -> Self {
        Self {
            provider: None,
            osm_file: None,
            detour_factor: Self::DEFAULT_DETOUR_FACTOR,
            average_speed_kmh: Self::DEFAULT_AVERAGE_SPEED_KMH,
            osrm_url: None,
            geocoder: None,
            geocoder_url: None,
            google_api_key: None,
            google_base_url: google::DEFAULT_BASE_URL.to_owned(),
            request_timeout_secs: Self::DEFAULT_REQUEST_TIMEOUT_SECS,
        }
    }
}

/// The file's shape before the values are checked.
#[derive(Deserialize)]
#[serde(default)]
struct UncheckedMapsConfig {
    provider: Option<ProviderKind>,
    osm_file: Option<PathBuf>,
    detour_factor: f64,
    average_speed_kmh: f64,
    osrm_url: Option<String>,
    geocoder: Option<GeocoderKind>,
    geocoder_url: Option<String>,
    google_api_key: Option<String>,
    google_base_url: String,
    request_timeout_secs: u64,
}

impl Default for UncheckedMapsConfig {
    fn default() -> Self {
        let MapsConfig {
            provider,
            osm_file,
            detour_factor,
            average_speed_kmh,
            osrm_url,
            geocoder,
            geocoder_url,
            google_api_key,
            google_base_url,
            request_timeout_secs,
        } = MapsConfig::default();
        Self {
            provider,
            osm_file,
            detour_factor,
            average_speed_kmh,
            osrm_url,
            geocoder,
            geocoder_url,
            google_api_key,
            google_base_url,
            request_timeout_secs,
        }
    }
}

impl TryFrom<UncheckedMapsConfig> for MapsConfig {
    type Error = MapsConfigError;

    fn try_from(unchecked: UncheckedMapsConfig) -> Result<Self, Self::Error> {
        let UncheckedMapsConfig {
            provider,
            osm_file,
            detour_factor,
            average_speed_kmh,
            osrm_url,
            geocoder,
            geocoder_url,
            google_api_key,
            google_base_url,
            request_timeout_secs,
        } = unchecked;
        let config = MapsConfig {
            provider,
            osm_file,
            detour_factor,
            average_speed_kmh,
            osrm_url,
            geocoder,
            geocoder_url,
            google_api_key,
            google_base_url,
            request_timeout_secs,
        };
        config.validate()?;
        Ok(config)
    }
}

/// The provider the configuration asks for. The `osm` provider loads its
/// prepared roads from `cache_dir` (prepared there first when the extract is
/// new or changed), so call this off the async threads.
pub fn provider_from(config: &MapsConfig, cache_dir: &Path) -> Result<Arc<dyn MapsProvider>, MapsSetupError> {
    config.validate()?;
    match config.kind() {
        ProviderKind::StraightLine => Ok(Arc::new(straight_line(config)?)),
        ProviderKind::Osm => {
            let file = config.osm_file.as_deref().ok_or(MapsConfigError::NoOsmFile)?;
            let (prepared, _) = cache::load_or_prepare(file, cache_dir, |_, _, _| {})?;
            Ok(Arc::new(OsmProvider::new(prepared, &Gazetteer::baltimore())))
        }
        ProviderKind::Osrm => {
            let http = http_client(config)?;
            let osrm = Osrm::new(http.clone(), config.osrm_url()?);
            Ok(Arc::new(Composed::new(Arc::new(osrm), geocoding(config, &http)?)))
        }
        ProviderKind::Google => {
            let http = http_client(config)?;
            let google = Arc::new(config.google(&http, "provider")?);
            let geocoding: Arc<dyn Geocoding> = match config.geocoder {
                None => google.clone(),
                Some(_) => geocoding(config, &http)?,
            };
            Ok(Arc::new(Composed::new(google, geocoding)))
        }
    }
}

fn straight_line(config: &MapsConfig) -> Result<StraightLineProvider, MapsConfigError> {
    StraightLineProvider::new(Gazetteer::baltimore(), config.detour_factor, config.average_speed_kmh)
}

fn http_client(config: &MapsConfig) -> Result<HttpClient, MapsSetupError> {
    HttpClient::new(Duration::from_secs(config.request_timeout_secs)).map_err(MapsSetupError::HttpClient)
}

/// The places half of a remote provider: the configured geocoder, else the
/// built-in gazetteer.
fn geocoding(config: &MapsConfig, http: &HttpClient) -> Result<Arc<dyn Geocoding>, MapsSetupError> {
    Ok(match config.geocoder {
        None => Arc::new(straight_line(config)?),
        Some(GeocoderKind::Nominatim) => Arc::new(Nominatim::new(http.clone(), config.geocoder_url()?)),
        Some(GeocoderKind::Photon) => Arc::new(Photon::new(http.clone(), config.geocoder_url()?)),
        Some(GeocoderKind::Google) => Arc::new(config.google(http, "geocoder")?),
    })
}

/// Why the configured provider could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum MapsSetupError {
    #[error(transparent)]
    Config(#[from] MapsConfigError),
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error("the maps services' HTTP client could not be built: {0}")]
    HttpClient(reqwest::Error),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::at_once;
    use wayfare_engine::LatLng;

    #[test]
    fn an_empty_section_gives_the_straight_line_provider_with_the_defaults() {
        let config: MapsConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(config, MapsConfig::default());
        assert_eq!(config.kind(), ProviderKind::StraightLine);
        assert_eq!((config.detour_factor, config.average_speed_kmh), (1.3, 30.0));
    }

    #[test]
    fn the_configuration_reads_snake_case_names_and_round_trips() {
        let json = r#"{"provider": "straight_line", "detour_factor": 1.5, "average_speed_kmh": 25}"#;
        let config: MapsConfig = serde_json::from_str(json).unwrap();
        assert_eq!(
            config,
            MapsConfig {
                provider: Some(ProviderKind::StraightLine),
                osm_file: None,
                detour_factor: 1.5,
                average_speed_kmh: 25.0,
                ..MapsConfig::default()
            }
        );
        let again: MapsConfig = serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
        assert_eq!(again, config);
    }

    #[test]
    fn out_of_range_values_and_unknown_providers_fail_when_loaded() {
        let slow = serde_json::from_str::<MapsConfig>(r#"{"average_speed_kmh": 0}"#).unwrap_err();
        assert!(slow.to_string().contains("maps.average_speed_kmh"), "{slow}");
        let shortcut = serde_json::from_str::<MapsConfig>(r#"{"detour_factor": 0.5}"#).unwrap_err();
        assert!(shortcut.to_string().contains("maps.detour_factor"), "{shortcut}");
        assert!(serde_json::from_str::<MapsConfig>(r#"{"provider": "teleport"}"#).is_err());
    }

    #[test]
    fn the_remote_settings_read_and_round_trip_and_default_to_googles_host() {
        let json = r#"{"provider": "osrm", "osrm_url": "http://osrm.internal:5000", "geocoder": "photon",
            "geocoder_url": "https://photon.internal/", "request_timeout_secs": 4}"#;
        let config: MapsConfig = serde_json::from_str(json).unwrap();
        assert_eq!(config.kind(), ProviderKind::Osrm);
        assert_eq!(config.osrm_url.as_deref(), Some("http://osrm.internal:5000"));
        assert_eq!(config.geocoder, Some(GeocoderKind::Photon));
        assert_eq!(config.request_timeout_secs, 4);
        assert_eq!(config.google_base_url, "https://maps.googleapis.com");
        let again: MapsConfig = serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
        assert_eq!(again, config);
        let defaults = serde_json::to_value(MapsConfig::default()).unwrap();
        assert!(defaults.get("google_api_key").is_none() && defaults.get("osrm_url").is_none(), "{defaults}");
    }

    #[test]
    fn a_remote_provider_missing_or_misspelling_a_setting_fails_when_loaded_naming_it() {
        let refused = |json: &str| serde_json::from_str::<MapsConfig>(json).unwrap_err().to_string();
        let cases = [
            (r#"{"provider": "osrm"}"#, "maps.osrm_url"),
            (r#"{"provider": "osrm", "osrm_url": "  "}"#, "maps.osrm_url"),
            (r#"{"provider": "osrm", "osrm_url": "ftp://osrm:21"}"#, "maps.osrm_url must be an http:// or https://"),
            (r#"{"provider": "osrm", "osrm_url": "localhost:5000"}"#, "\"localhost:5000\""),
            (r#"{"provider": "osrm", "osrm_url": "http://o", "geocoder": "nominatim"}"#, "maps.geocoder_url"),
            (r#"{"provider": "osrm", "osrm_url": "http://o", "geocoder": "google"}"#, "maps.google_api_key"),
            (r#"{"provider": "google"}"#, "maps.provider = \"google\" needs maps.google_api_key"),
            (r#"{"provider": "google", "google_api_key": ""}"#, "maps.google_api_key"),
            (r#"{"provider": "google", "google_api_key": "k", "google_base_url": "maps"}"#, "maps.google_base_url"),
            (r#"{"geocoder": "nominatim", "geocoder_url": "http://n"}"#, "the straight_line provider"),
            (r#"{"osm_file": "city.osm.pbf", "geocoder": "photon", "geocoder_url": "http://p"}"#, "the osm provider"),
            (r#"{"request_timeout_secs": 0}"#, "maps.request_timeout_secs"),
        ];
        for (json, named) in cases {
            let error = refused(json);
            assert!(error.contains(named), "{json}: {error}");
        }
        assert!(serde_json::from_str::<MapsConfig>(r#"{"geocoder": "bing"}"#).is_err());
        let google =
            r#"{"provider": "google", "google_api_key": "k", "geocoder": "nominatim", "geocoder_url": "http://n/"}"#;
        assert!(serde_json::from_str::<MapsConfig>(google).is_ok());
    }

    #[test]
    fn the_configured_provider_routes_with_the_configured_factor_and_speed() {
        let config = MapsConfig { detour_factor: 1.0, average_speed_kmh: 60.0, ..MapsConfig::default() };
        let maps = provider_from(&config, Path::new("/nonexistent")).unwrap();
        let route = at_once(maps.directions(LatLng::new(0.0, 0.0), LatLng::new(1.0, 0.0), &[])).unwrap();
        // One degree of latitude, 111.195 km, at 60 km/h.
        assert_eq!(route.time_secs, 6672);
    }

    #[test]
    fn a_configuration_built_in_code_with_a_bad_value_is_refused_at_start() {
        let error =
            provider_from(&MapsConfig { detour_factor: 0.0, ..MapsConfig::default() }, Path::new("/nonexistent"))
                .err()
                .unwrap();
        assert!(error.to_string().contains("maps.detour_factor"), "{error}");
    }

    #[test]
    fn a_map_file_chooses_the_osm_provider_unless_another_is_named() {
        let config: MapsConfig = serde_json::from_str(r#"{"osm_file": "city.osm.pbf"}"#).unwrap();
        assert_eq!(config.kind(), ProviderKind::Osm);
        let config: MapsConfig =
            serde_json::from_str(r#"{"osm_file": "city.osm.pbf", "provider": "straight_line"}"#).unwrap();
        assert_eq!(config.kind(), ProviderKind::StraightLine);
        let error = serde_json::from_str::<MapsConfig>(r#"{"provider": "osm"}"#).unwrap_err();
        assert!(error.to_string().contains("maps.osm_file"), "{error}");
    }

    #[test]
    fn the_osm_provider_routes_on_the_extracts_roads() {
        let cache = tempfile::tempdir().unwrap();
        let extract = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monaco.osm.pbf");
        let config = MapsConfig { osm_file: Some(extract), ..MapsConfig::default() };
        let maps = provider_from(&config, cache.path()).unwrap();
        // Across Monaco, from the Casino to the Stade Louis II: a road trip
        // longer than the 2.1 km straight line, at a city pace.
        let route = at_once(maps.directions(LatLng::new(43.7396, 7.4276), LatLng::new(43.7276, 7.4154), &[])).unwrap();
        assert!(route.distance_km > 2.1 && route.distance_km < 5.0, "{}", route.distance_km);
        assert!(route.time_secs > 120 && route.time_secs < 900, "{}", route.time_secs);
        assert!(route.coords.len() > 10);
        // Every cached start reads the same preparation back.
        assert!(std::fs::read_dir(cache.path()).unwrap().count() == 1);
    }
}
