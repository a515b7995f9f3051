//! A scenario: what `wayfare simulate` runs (docs/simulations.md
//! "Scenario file"). Read from TOML; the command line's flags override its
//! common fields. Paths in a file are relative to that file.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use wayfare_engine::DispatchPolicy;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// An `.osm.pbf`/`.osm` extract, an OSMnx node-link `.json`, or
    /// `straight-line`.
    pub network: String,
    /// Requests as CSV (HIVE's layout or trip records); without it,
    /// `demand` generates them.
    pub requests: Option<PathBuf>,
    /// Draw this many requests from the requests file's distribution
    /// instead of taking its rows as they are (a city day at another scale).
    pub draw: Option<Draw>,
    pub demand: Option<Demand>,
    /// Vehicles as HIVE's CSV; without it, `fleet` vehicles are placed where
    /// requests start.
    pub vehicles: Option<PathBuf>,
    pub fleet: Option<usize>,
    /// Policies to compare, each run on the same demand and fleet.
    pub policies: Vec<String>,
    /// Fleet sizes to compare (each with every policy); empty: the one fleet.
    pub fleet_sweep: Vec<usize>,
    pub seed: u64,
    /// Every run is repeated with the seeds `seed`, `seed + 1`, … up to this
    /// many, and the report gives each metric's mean and 95 % interval.
    pub seeds: u64,
    /// Settings and car types as JSON (`{"settings": {...}, "carTypes": [...]}`,
    /// either part optional); without it, the demo's.
    pub settings: Option<PathBuf>,
    /// The car type every vehicle drives and every request asks for; the
    /// first car type when empty.
    pub car_type: String,
    /// Seconds from the driver at the pickup to the trip starting.
    pub boarding_s: u64,
    /// The `batch` policy's window in seconds, over the settings'
    /// `dispatchBatchSeconds`.
    pub batch_seconds: Option<u32>,
    pub drivers: DriverModel,
    pub riders: RiderModel,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: "scenario".into(),
            network: "straight-line".into(),
            requests: None,
            draw: None,
            demand: None,
            vehicles: None,
            fleet: None,
            policies: vec![DispatchPolicy::default().as_str().into()],
            fleet_sweep: Vec::new(),
            seed: 1,
            seeds: 1,
            settings: None,
            car_type: String::new(),
            boarding_s: 0,
            batch_seconds: None,
            drivers: DriverModel::default(),
            riders: RiderModel::default(),
        }
    }
}

/// What drivers do. The defaults make results comparable with HIVE's:
/// every offer accepted at once, idle drivers stay put, on shift all day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DriverModel {
    /// The chance of accepting an offer whose pickup is next door.
    pub accept_probability: f64,
    /// How much that chance drops per km to the pickup (never below 0).
    pub accept_decay_per_km: f64,
    /// Seconds a driver takes to answer, drawn evenly between the two.
    pub respond_min_s: f64,
    pub respond_max_s: f64,
    pub idle: IdleBehaviour,
    /// How often an idle driver who cruises or returns moves, in seconds.
    pub idle_every_s: u64,
    /// How far a cruising driver goes, at most, in km.
    pub cruise_km: f64,
    /// Hours each driver works; 0: on shift from the first request to the end.
    /// Shifts start evenly over the demand's span.
    pub shift_hours: f64,
}

impl Default for DriverModel {
    fn default() -> Self {
        DriverModel {
            accept_probability: 1.0,
            accept_decay_per_km: 0.0,
            respond_min_s: 0.0,
            respond_max_s: 0.0,
            idle: IdleBehaviour::Stay,
            idle_every_s: 300,
            cruise_km: 1.0,
            shift_hours: 0.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IdleBehaviour {
    /// Wait where the last trip ended.
    Stay,
    /// Drive to where a recent request started.
    Return,
    /// Drive to a random place within `cruise_km`.
    Cruise,
    /// Drive to the area the server would show the driver: where riders are
    /// expected, against the free drivers already there (`engine::reposition`).
    Reposition,
}

/// What riders do: give up when no driver has taken the booking after
/// `cancel_after_s` (HIVE's `request_cancel_time_seconds`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RiderModel {
    pub cancel_after_s: u64,
}

impl Default for RiderModel {
    fn default() -> Self {
        RiderModel { cancel_after_s: 600 }
    }
}

/// Requests drawn from a requests file: each a row of the file picked at
/// random (with replacement), made `spread_s` later at most and its two
/// ends moved up to `jitter_m` in a random direction, so copies of one row
/// are not one place and one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Draw {
    pub count: usize,
    pub spread_s: u64,
    pub jitter_m: f64,
}

impl Default for Draw {
    fn default() -> Self {
        Draw { count: 0, spread_s: 60, jitter_m: 100.0 }
    }
}

/// Demand generated from rates per hour and area, when there is no file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Demand {
    /// The clock's zero, ISO 8601 (UTC); empty: midnight of a day without
    /// a date, and the report shows times of day only.
    pub start: String,
    pub hours: u32,
    /// A day's shape: the share of the daily rate in each hour of the day
    /// (24 values, any scale); empty is flat.
    pub hourly_profile: Vec<f64>,
    pub areas: Vec<DemandArea>,
}

impl Default for Demand {
    fn default() -> Self {
        Demand { start: String::new(), hours: 24, hourly_profile: Vec::new(), areas: Vec::new() }
    }
}

/// Requests start within `radius_km` of the centre, at `per_hour` on
/// average (scaled by the hourly profile), and end in any area, weighted by
/// the areas' rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemandArea {
    pub lat: f64,
    pub lng: f64,
    pub radius_km: f64,
    pub per_hour: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("unknown policy `{0}`: expected broadcast, waves, nearest or batch")]
    UnknownPolicy(String),
    #[error("{0}")]
    Invalid(String),
}

impl Scenario {
    /// Reads a TOML scenario; its relative paths become relative to it.
    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let file_error = |message: String| ScenarioError::File { path: path.display().to_string(), message };
        let text = std::fs::read_to_string(path).map_err(|error| file_error(error.to_string()))?;
        let mut scenario: Scenario = toml::from_str(&text).map_err(|error| file_error(error.to_string()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let rebase = |file: &mut Option<PathBuf>| {
            if let Some(file) = file.as_mut()
                && file.is_relative()
            {
                *file = base.join(&*file);
            }
        };
        rebase(&mut scenario.requests);
        rebase(&mut scenario.vehicles);
        rebase(&mut scenario.settings);
        if scenario.network != STRAIGHT_LINE && Path::new(&scenario.network).is_relative() {
            scenario.network = base.join(&scenario.network).display().to_string();
        }
        Ok(scenario)
    }

    /// The policies to run, checked.
    pub fn policies(&self) -> Result<Vec<DispatchPolicy>, ScenarioError> {
        if self.policies.is_empty() {
            return Err(ScenarioError::Invalid("no policy to run".into()));
        }
        self.policies
            .iter()
            .map(|name| DispatchPolicy::parse(name.trim()).ok_or_else(|| ScenarioError::UnknownPolicy(name.clone())))
            .collect()
    }

    /// Checks what the types do not.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let invalid = |why: &str| Err(ScenarioError::Invalid(why.into()));
        self.policies()?;
        if !(1..=MAX_SEEDS).contains(&self.seeds) {
            return Err(ScenarioError::Invalid(format!("seeds must be 1 to {MAX_SEEDS}")));
        }
        if self.requests.is_none() && self.demand.as_ref().is_none_or(|demand| demand.areas.is_empty()) {
            return invalid("no demand: give a requests file or [demand] with at least one area");
        }
        if self.vehicles.is_none() && self.fleet.is_none() && self.fleet_sweep.is_empty() {
            return invalid("no vehicles: give a vehicles file, a fleet size or a fleet sweep");
        }
        if let Some(draw) = &self.draw {
            let jitter_ok = draw.jitter_m >= 0.0 && draw.jitter_m <= 10_000.0;
            if self.requests.is_none() || draw.count == 0 || !jitter_ok {
                return invalid("draw needs a requests file, a count above 0 and jitter_m of 0 to 10,000");
            }
        }
        let model = &self.drivers;
        // Written so that NaN fails every check.
        let at_least = |value: f64, floor: f64| value >= floor;
        if !(0.0..=1.0).contains(&model.accept_probability) || !at_least(model.accept_decay_per_km, 0.0) {
            return invalid("drivers.accept_probability must be 0 to 1 and accept_decay_per_km not negative");
        }
        if !at_least(model.respond_min_s, 0.0) || !at_least(model.respond_max_s, model.respond_min_s) {
            return invalid("drivers.respond_min_s must be 0 or more and at most respond_max_s");
        }
        if !at_least(model.shift_hours, 0.0) || !at_least(model.cruise_km, f64::MIN_POSITIVE) || model.idle_every_s == 0
        {
            return invalid("drivers.shift_hours must be 0 or more, cruise_km and idle_every_s more than 0");
        }
        Ok(())
    }
}

/// The most seeds a run is repeated with: each one is a whole run again.
pub const MAX_SEEDS: u64 = 100;

/// The network value that asks for straight lines instead of roads.
pub const STRAIGHT_LINE: &str = "straight-line";
