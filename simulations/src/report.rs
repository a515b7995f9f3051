//! What a simulation reports (docs/simulations.md "Reading the report"):
//! `report.json` is this, serialised; the CSV series and `report.html` are
//! drawn from it. Nothing here depends on the wall clock, so the same inputs
//! and seed give the same `report.json`, byte for byte; the simulator's own
//! wall time is kept apart in [`Timing`].

use crate::format::Currency;
use crate::stats::Interval;
use serde::Serialize;
use std::collections::BTreeMap;

/// Width of a time-series bin: 15 minutes.
pub const SERIES_BIN_S: u64 = 900;
/// Width of a wait-histogram bin: one minute.
pub const WAIT_BIN_S: u64 = 60;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub scenario: ScenarioSummary,
    /// What the runs say, computed from them ([`crate::conclusion`]).
    pub conclusion: Conclusion,
    /// One run per policy and fleet size compared, in the order asked.
    pub runs: Vec<RunReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioSummary {
    pub name: String,
    /// `osm` (an extract through the maps crate's router), `osmnx` or `straight-line`.
    pub network: String,
    /// The network's file name, when there is one.
    pub network_file: Option<String>,
    /// Whether the map data is OpenStreetMap's (its attribution is then shown).
    pub openstreetmap: bool,
    /// Where demand came from: a file name, or `generated`.
    pub demand: String,
    /// `hive`, `trip_records` or `generated`.
    pub demand_layout: String,
    pub requests: u64,
    /// Rows of the requests and vehicles files that were not used, by reason
    /// (`requests.bad_coordinates`, `requests.off_network`, `vehicles.missing_field`…).
    pub skipped: BTreeMap<String, u64>,
    /// The first seed; runs are repeated with the next `seeds - 1` as well.
    pub seed: u64,
    pub seeds: u64,
    pub cancel_after_s: u64,
    /// The first request's time, the clock's zero: ISO 8601 date and time
    /// (UTC) when the requests carry calendar dates, else only the time of
    /// day, `HH:MM:SS` (HIVE's seconds of a day, a scenario without a start).
    pub start: String,
    /// Whether `start` has a calendar date.
    pub dated: bool,
    /// From the first request to the last, in seconds.
    pub demand_span_s: u64,
    /// The area the demand and fleet cover: [south, west, north, east].
    pub bounds: [f64; 4],
    /// The currency of fares and earnings, from the settings the runs used.
    pub currency: Currency,
}

/// What the runs say ([`crate::conclusion::conclude`] writes it).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Conclusion {
    /// The policy the runs single out, when they do.
    pub recommended: Option<String>,
    /// The first line: "Use batch: …", or why no policy stands out.
    pub headline: String,
    /// The sentences behind it, in reading order.
    pub reasons: Vec<String>,
    /// Every figure the text quotes, as the table writes it.
    pub figures: Vec<Figure>,
}

/// A figure of the table quoted in the conclusion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// The run, as the table's column names it: `batch · 20 vehicles`.
    pub run: String,
    /// The metric, as [`crate::report::Metrics`] and the table's row name it.
    pub metric: String,
    /// The figure as the table writes it.
    pub shown: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// `broadcast`, `waves`, `nearest` or `batch`.
    pub policy: String,
    pub fleet: u64,
    /// The first seed's figures.
    pub metrics: Metrics,
    /// With several seeds: every metric's mean and 95 % interval over them,
    /// by the metric's name in [`Metrics`]. Absent with one seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_seeds: Option<OverSeeds>,
    /// The first seed's, per [`SERIES_BIN_S`] from the clock's zero to the
    /// last request's bin.
    pub series: Vec<SeriesPoint>,
    /// The first seed's served riders' waits, per [`WAIT_BIN_S`]; the last
    /// bin holds every longer wait.
    pub wait_histogram: Vec<u64>,
    /// The first seed's demand and unmet demand by H3 cell, most unmet first.
    pub cells: Vec<CellCount>,
}

/// The run's figures. Names in camelCase or with units follow MATSim's DRT
/// module (`drt_customer_stats`, `drt_vehicle_stats`); times in seconds,
/// distances in metres, money in the settings' currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct Metrics {
    pub requests: u64,
    /// Requests picked up and taken to their destination.
    pub rides: u64,
    /// Requests not served, for any reason: `cancelledByRider` +
    /// `cancelledBySystem` + `neverDispatched`.
    pub rejections: u64,
    pub rejectionRate: f64,
    /// The rider gave up waiting (the scenario's `cancel_after`).
    pub cancelledByRider: u64,
    /// The booking machine cancelled it (no driver in time, or the only
    /// offered driver declined under `broadcast`).
    pub cancelledBySystem: u64,
    /// Dropped before dispatch: the booking could not be made (no route).
    pub neverDispatched: u64,
    /// Served share, `rides / requests`.
    pub fulfilment: f64,
    /// Wait: from the request to the driver at the pickup, served rides only.
    pub wait_average: f64,
    pub wait_median: f64,
    pub wait_p95: f64,
    pub wait_max: f64,
    /// Shares of served rides (percent) waiting under 5 and 10 minutes.
    pub percentage_WT_below_5: f64,
    pub percentage_WT_below_10: f64,
    pub inVehicleTravelTime_mean: f64,
    /// Distance driven with the rider on board, mean per ride.
    pub distance_m_mean: f64,
    /// The route's distance from pickup to drop, mean per ride (equal to
    /// `distance_m_mean` here: rides are not shared).
    pub directDistance_m_mean: f64,
    /// Every vehicle's distance: with riders, to pickups and repositioning.
    pub totalDistance: f64,
    /// Distance with no rider on board.
    pub totalEmptyDistance: f64,
    pub emptyRatio: f64,
    /// Offers sent per request dispatched, and the share of answers that
    /// were yes.
    pub offers_per_booking: f64,
    pub acceptance_rate: f64,
    /// Share of vehicle time spent going to a pickup or with a rider.
    pub driver_utilisation: f64,
    /// Drivers' earnings (their share of fares) per driver on shift.
    pub earnings_mean: f64,
    pub earnings_p10: f64,
    pub earnings_median: f64,
    pub earnings_p90: f64,
    /// Virtual seconds from the first request to the last event.
    pub simulated_s: u64,
    /// Events the clock handled.
    pub events: u64,
}

impl RunReport {
    /// How the report names the run: `batch · 20 vehicles`.
    pub fn label(&self) -> String {
        let vehicles = if self.fleet == 1 { "vehicle" } else { "vehicles" };
        format!("{} · {} {vehicles}", self.policy, crate::format::count(self.fleet))
    }
}

/// A run repeated with several seeds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverSeeds {
    pub seeds: Vec<u64>,
    pub metrics: BTreeMap<String, Interval>,
}

impl OverSeeds {
    /// The interval of the metric named as in [`Metrics`].
    pub fn metric(&self, name: &str) -> Option<&Interval> {
        self.metrics.get(name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// Seconds from the clock's zero to the bin's start.
    pub start_s: u64,
    /// Requests made in the bin.
    pub demand: u64,
    /// Riders picked up in the bin.
    pub served: u64,
    /// Requests that ended unserved in the bin.
    pub unserved: u64,
    /// Drivers on shift and free at the bin's start.
    pub idle_drivers: u64,
    /// Mean wait of the riders picked up in the bin, when any were.
    pub mean_wait_s: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellCount {
    /// The H3 cell (resolution [`crate::report::H3_RESOLUTION`]) as hex.
    pub cell: String,
    /// Its corners, [lat, lng].
    pub boundary: Vec<[f64; 2]>,
    pub requests: u64,
    pub unserved: u64,
}

/// H3 resolution of the unmet-demand map: cells about 0.7 km² (res 8).
pub const H3_RESOLUTION: u8 = 8;

/// How long each run took on this machine: shown in `report.html` and on
/// the terminal, kept out of `report.json` so that file is reproducible.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Seconds to read inputs and prepare the network.
    pub setup_s: f64,
    /// Wall seconds of each run, in the order of `Report::runs`.
    pub runs_s: Vec<f64>,
    /// Peak resident memory of the process, in MB, when the system says.
    pub peak_rss_mb: Option<f64>,
}
