//! Which provider answers, and how it is tuned: the `[maps]` part of the
//! server's configuration.

use crate::gazetteer::Gazetteer;
use crate::osm::cache::{self, PrepareError};
use crate::osm::provider::OsmProvider;
use crate::provider::MapsProvider;
use crate::straight_line::StraightLineProvider;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

/// A configuration value out of range.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum MapsConfigError {
    #[error("maps.detour_factor must be a number of at least 1, got {0}")]
    DetourFactor(f64),
    #[error("maps.average_speed_kmh must be a number above 0, got {0}")]
    AverageSpeed(f64),
    #[error("maps.provider = \"osm\" needs maps.osm_file, an .osm.pbf extract")]
    NoOsmFile,
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
}

impl MapsConfig {
    pub const DEFAULT_DETOUR_FACTOR: f64 = 1.3;
    pub const DEFAULT_AVERAGE_SPEED_KMH: f64 = 30.0;

    pub fn validate(&self) -> Result<(), MapsConfigError> {
        if self.kind() == ProviderKind::Osm && self.osm_file.is_none() {
            return Err(MapsConfigError::NoOsmFile);
        }
        check_straight_line(self.detour_factor, self.average_speed_kmh)
    }

    /// The provider that answers: the configured one, else OpenStreetMap
    /// whenever a map file is given.
    pub fn kind(&self) -> ProviderKind {
        self.provider.unwrap_or(if self.osm_file.is_some() { ProviderKind::Osm } else { ProviderKind::StraightLine })
    }
}

/// A detour factor of at least 1 (no road is shorter than the straight line)
/// and a positive, finite speed.
pub(crate) fn check_straight_line(detour_factor: f64, average_speed_kmh: f64) -> Result<(), MapsConfigError> {
    if !(detour_factor.is_finite() && detour_factor >= 1.0) {
        return Err(MapsConfigError::DetourFactor(detour_factor));
    }
    if !(average_speed_kmh.is_finite() && average_speed_kmh > 0.0) {
        return Err(MapsConfigError::AverageSpeed(average_speed_kmh));
    }
    Ok(())
}

impl Default for MapsConfig {
    fn default() -> Self {
        Self {
            provider: None,
            osm_file: None,
            detour_factor: Self::DEFAULT_DETOUR_FACTOR,
            average_speed_kmh: Self::DEFAULT_AVERAGE_SPEED_KMH,
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
}

impl Default for UncheckedMapsConfig {
    fn default() -> Self {
        let MapsConfig { provider, osm_file, detour_factor, average_speed_kmh } = MapsConfig::default();
        Self { provider, osm_file, detour_factor, average_speed_kmh }
    }
}

impl TryFrom<UncheckedMapsConfig> for MapsConfig {
    type Error = MapsConfigError;

    fn try_from(unchecked: UncheckedMapsConfig) -> Result<Self, Self::Error> {
        let UncheckedMapsConfig { provider, osm_file, detour_factor, average_speed_kmh } = unchecked;
        let config = MapsConfig { provider, osm_file, detour_factor, average_speed_kmh };
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
        ProviderKind::StraightLine => {
            let provider =
                StraightLineProvider::new(Gazetteer::baltimore(), config.detour_factor, config.average_speed_kmh)?;
            Ok(Arc::new(provider))
        }
        ProviderKind::Osm => {
            let file = config.osm_file.as_deref().ok_or(MapsConfigError::NoOsmFile)?;
            let (prepared, _) = cache::load_or_prepare(file, cache_dir, |_, _, _| {})?;
            Ok(Arc::new(OsmProvider::new(prepared, &Gazetteer::baltimore())))
        }
    }
}

/// Why the configured provider could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum MapsSetupError {
    #[error(transparent)]
    Config(#[from] MapsConfigError),
    #[error(transparent)]
    Prepare(#[from] PrepareError),
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
                average_speed_kmh: 25.0
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
