//! `wayfare simulate` (issue #16, docs/simulations.md): dispatch simulations
//! on the production engine.
//!
//! - [`input`] reads requests, vehicles and OSMnx networks;
//! - [`scenario`] is what to run, from TOML and flags;
//! - [`travel`] times drives on roads or straight lines;
//! - [`sim`] is one run on a discrete-event clock;
//! - [`metrics`] turns a run into the report's figures, [`stats`] gives
//!   their spread over seeds, [`conclusion`] says what they mean,
//!   [`report`] is the report, [`html`] draws it (with [`figures`],
//!   [`format`] and the roads of [`basemap`]).
//!
//! Apart from the simulator, [`players`] plays people against a running
//! server (live mode and the living demo).

pub mod basemap;
pub mod conclusion;
pub mod figures;
pub mod format;
pub mod html;
pub mod input;
pub mod metrics;
pub mod players;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod travel;

use basemap::Roads;
use format::Currency;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use report::{Metrics, OverSeeds, Report, RunReport, ScenarioSummary, Timing};
use scenario::{Demand, STRAIGHT_LINE, Scenario, ScenarioError};
use serde::Deserialize;
use sim::{RunInput, Trip};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use travel::{Spot, Travel};
use wayfare_engine::{CarType, DispatchPolicy, LatLng, Settings};

/// The platform's settings and car types the runs use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Catalog {
    pub settings: Settings,
    #[serde(rename = "carTypes")]
    pub car_types: Vec<CarType>,
}

#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("{path}: {message}")]
    Input { path: String, message: String },
    #[error("{0}")]
    Network(String),
    #[error("no request is on the network: nothing to simulate")]
    NoDemand,
    #[error("no vehicle is on the network")]
    NoVehicles,
    #[error("the car type `{0}` is not in the settings")]
    UnknownCarType(String),
    #[error("writing {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// What the caller sees as the runs go: (stage, done, of).
pub type Progress<'a> = &'a mut dyn FnMut(&str, usize, usize);

/// The inputs of a scenario, read and placed on the network once and
/// shared by every run.
pub struct Prepared {
    pub travel: Travel,
    /// The first seed's requests on the network.
    pub trips: Vec<Trip>,
    /// Every vehicle placed for the first seed, in order; a run of N uses
    /// the first N.
    pub vehicles: Vec<Spot>,
    pub catalog: Catalog,
    pub summary: ScenarioSummary,
    /// The roads drawn under the report's maps.
    pub roads: Roads,
    /// The first seed's clock zero, as epoch ms.
    pub start_ms: i64,
    /// The vehicles of the vehicles file on the network: every seed's
    /// fleet starts with them.
    pub file_vehicles: Vec<Spot>,
}

fn input_error(path: &Path, message: impl ToString) -> SimulateError {
    SimulateError::Input { path: path.display().to_string(), message: message.to_string() }
}

/// Reads a scenario's inputs. `cache_dir` keeps prepared extracts (the
/// server's maps cache); `catalog` is used unless the scenario names a
/// settings file.
pub fn prepare(
    scenario: &Scenario,
    catalog: Catalog,
    cache_dir: &Path,
    progress: Progress<'_>,
) -> Result<Prepared, SimulateError> {
    scenario.validate()?;
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    let catalog = match &scenario.settings {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| input_error(path, error))?;
            let read: Catalog = serde_json::from_str(&text).map_err(|error| input_error(path, error))?;
            Catalog {
                settings: read.settings,
                car_types: if read.car_types.is_empty() { catalog.car_types } else { read.car_types },
            }
        }
        None => catalog,
    };
    let mut catalog = catalog;
    if let Some(seconds) = scenario.batch_seconds {
        catalog.settings.dispatchBatchSeconds = seconds;
    }
    wayfare_engine::rules::settings::validate_settings(&catalog.settings)
        .map_err(|error| ScenarioError::Invalid(format!("settings: {} ({:?})", error.key.as_str(), error.field)))?;

    progress("reading the network", 0, 1);
    let (travel, network_file, roads) = open_network(&scenario.network, cache_dir, progress)?;
    progress("reading the network", 1, 1);

    let (requests, layout, demand_name) = match (&scenario.requests, &scenario.demand) {
        (Some(path), _) => {
            let file = std::fs::File::open(path).map_err(|error| input_error(path, error))?;
            let (layout, loaded) =
                input::read_requests(std::io::BufReader::new(file)).map_err(|error| input_error(path, error))?;
            for (reason, count) in loaded.skipped_by_reason() {
                *skipped.entry(format!("requests.{}", reason_name(reason))).or_default() += count as u64;
            }
            let layout = match layout {
                input::RequestLayout::Hive => "hive",
                input::RequestLayout::TripRecords => "trip_records",
            };
            match &scenario.draw {
                Some(draw) => {
                    (draw_requests(&loaded.items, draw, scenario.seed), layout, format!("{} (drawn)", file_name(path)))
                }
                None => (loaded.items, layout, file_name(path)),
            }
        }
        (None, Some(demand)) => (generate_demand(demand, scenario.seed)?, "generated", "generated".to_string()),
        (None, None) => return Err(ScenarioError::Invalid("no demand".into()).into()),
    };
    let (trips, zero, off_network) = place_demand(&travel, &requests, progress)?;
    if off_network > 0 {
        skipped.insert("requests.off_network".into(), off_network);
    }

    let mut file_vehicles = Vec::new();
    if let Some(path) = &scenario.vehicles {
        let file = std::fs::File::open(path).map_err(|error| input_error(path, error))?;
        let loaded = input::read_vehicles(std::io::BufReader::new(file)).map_err(|error| input_error(path, error))?;
        for (reason, count) in loaded.skipped_by_reason() {
            *skipped.entry(format!("vehicles.{}", reason_name(reason))).or_default() += count as u64;
        }
        for vehicle in &loaded.items {
            match travel.spot(vehicle.position) {
                Some(spot) => file_vehicles.push(spot),
                None => *skipped.entry("vehicles.off_network".into()).or_default() += 1,
            }
        }
    }
    let vehicles = fill_fleet(scenario, scenario.seed, &file_vehicles, &trips);
    if vehicles.is_empty() {
        return Err(SimulateError::NoVehicles);
    }

    let span_ms = trips.last().map_or(0, |trip| trip.at_ms);
    let (start, dated) = clock_zero(zero);
    let summary = ScenarioSummary {
        name: scenario.name.clone(),
        network: travel.kind().to_string(),
        network_file,
        openstreetmap: travel.kind() != "straight-line",
        demand: demand_name,
        demand_layout: layout.to_string(),
        requests: trips.len() as u64 + off_network,
        skipped,
        seed: scenario.seed,
        seeds: scenario.seeds,
        cancel_after_s: scenario.riders.cancel_after_s,
        start,
        dated,
        demand_span_s: (span_ms / 1000) as u64,
        bounds: bounds(&trips, &vehicles),
        currency: Currency::of(&catalog.settings),
    };
    Ok(Prepared { travel, trips, vehicles, catalog, summary, roads, start_ms: zero * 1000, file_vehicles })
}

/// Times before the end of the epoch's first day are seconds of a day, as
/// HIVE writes them (`1970-01-01T00:02:00`, or `120`), not dates.
const UNDATED_BEFORE_S: i64 = 86_400;

/// The clock's zero as the report writes it, and whether it is a date: the
/// date and time in ISO 8601, or only the time of day for undated requests.
fn clock_zero(zero: i64) -> (String, bool) {
    let dated = zero >= UNDATED_BEFORE_S;
    let format = if dated { "%Y-%m-%dT%H:%M:%S" } else { "%H:%M:%S" };
    let at = if dated { zero } else { zero.rem_euclid(UNDATED_BEFORE_S) };
    let text = chrono::DateTime::from_timestamp(at, 0)
        .map(|time| time.naive_utc().format(format).to_string())
        .unwrap_or_default();
    (text, dated)
}

/// Requests placed on the network and sorted by time, with the clock's
/// zero (the first request's epoch seconds) and how many were off the network.
fn place_demand(
    travel: &Travel,
    requests: &[input::Request],
    progress: Progress<'_>,
) -> Result<(Vec<Trip>, i64, u64), SimulateError> {
    let zero = requests.iter().map(|request| request.at).min().ok_or(SimulateError::NoDemand)?;
    let placed = place_requests(travel, requests, zero, progress);
    let mut trips = Vec::with_capacity(placed.len());
    let mut off_network = 0;
    for trip in placed {
        match trip {
            Some(trip) => trips.push(trip),
            None => off_network += 1,
        }
    }
    // Stable: requests made at the same second keep the file's order.
    trips.sort_by_key(|trip| trip.at_ms);
    if trips.is_empty() {
        return Err(SimulateError::NoDemand);
    }
    Ok((trips, zero, off_network))
}

/// The file's vehicles, then as many more as the largest fleet wants,
/// placed where requests start (drawn with `seed`), so the fleet begins
/// where riders are, on the network.
fn fill_fleet(scenario: &Scenario, seed: u64, file_vehicles: &[Spot], trips: &[Trip]) -> Vec<Spot> {
    let wanted = fleet_sizes(scenario, file_vehicles.len()).into_iter().max().unwrap_or(0);
    let mut vehicles = file_vehicles.to_vec();
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed_f1ee7);
    while vehicles.len() < wanted && !trips.is_empty() {
        vehicles.push(trips[rng.random_range(0..trips.len())].origin);
    }
    vehicles
}

/// The requests and vehicles one seed runs on.
struct Placement<'a> {
    seed: u64,
    trips: Cow<'a, [Trip]>,
    vehicles: Cow<'a, [Spot]>,
    start_ms: i64,
}

impl Prepared {
    /// What `seed` runs on: the first seed's inputs as prepared; for
    /// another seed, generated demand drawn again and the vehicles beyond
    /// the file placed again, both with that seed (a requests file and a
    /// vehicles file are the same for every seed).
    fn placement(
        &self,
        scenario: &Scenario,
        seed: u64,
        progress: Progress<'_>,
    ) -> Result<Placement<'_>, SimulateError> {
        if seed == scenario.seed {
            return Ok(Placement {
                seed,
                trips: Cow::Borrowed(&self.trips),
                vehicles: Cow::Borrowed(&self.vehicles),
                start_ms: self.start_ms,
            });
        }
        let (trips, start_ms) = match (&scenario.requests, &scenario.demand) {
            (None, Some(demand)) => {
                let requests = generate_demand(demand, seed)?;
                let mut show =
                    |_: &str, done: usize, of: usize| progress(&format!("placing requests, seed {seed}"), done, of);
                let (trips, zero, _) = place_demand(&self.travel, &requests, &mut show)?;
                (Cow::Owned(trips), zero * 1000)
            }
            _ => (Cow::Borrowed(self.trips.as_slice()), self.start_ms),
        };
        let vehicles = if matches!(trips, Cow::Borrowed(_)) && self.vehicles.len() == self.file_vehicles.len() {
            Cow::Borrowed(self.vehicles.as_slice())
        } else {
            Cow::Owned(fill_fleet(scenario, seed, &self.file_vehicles, &trips))
        };
        Ok(Placement { seed, trips, vehicles, start_ms })
    }
}

/// Each request's places on the network and its route (`None`: off the
/// network), in the requests' order. Routing is most of the setup, and
/// routes are independent, so the requests are split over the cores.
fn place_requests(
    travel: &Travel,
    requests: &[input::Request],
    zero: i64,
    progress: Progress<'_>,
) -> Vec<Option<Trip>> {
    let place = |request: &input::Request| {
        let origin = travel.spot(request.origin)?;
        let destination = travel.spot(request.destination)?;
        let route = travel.leg(&origin, &destination);
        Some(Trip { id: request.id.clone(), at_ms: (request.at - zero) * 1000, origin, destination, route })
    };
    let threads = std::thread::available_parallelism().map_or(1, |count| count.get()).min(8);
    let chunk = requests.len().div_ceil(threads).max(1);
    let done = std::sync::atomic::AtomicUsize::new(0);
    progress("placing requests", 0, requests.len());
    std::thread::scope(|scope| {
        let workers: Vec<_> = requests
            .chunks(chunk)
            .map(|part| {
                let (place, done) = (&place, &done);
                scope.spawn(move || {
                    part.iter()
                        .map(|request| {
                            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            place(request)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut placed = Vec::with_capacity(requests.len());
        for worker in workers {
            placed.extend(worker.join().expect("placing requests does not panic"));
        }
        progress("placing requests", done.load(std::sync::atomic::Ordering::Relaxed), requests.len());
        placed
    })
}

fn reason_name(reason: input::SkipReason) -> String {
    serde_json::to_value(reason).ok().and_then(|value| value.as_str().map(str::to_string)).unwrap_or_default()
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

fn open_network(
    network: &str,
    cache_dir: &Path,
    progress: Progress<'_>,
) -> Result<(Travel, Option<String>, Roads), SimulateError> {
    if network == STRAIGHT_LINE || network.is_empty() {
        return Ok((Travel::straight_line(), None, Roads::none()));
    }
    let path = PathBuf::from(network);
    let name = Some(file_name(&path));
    let lower = network.to_ascii_lowercase();
    if lower.ends_with(".json") {
        let file = std::fs::File::open(&path).map_err(|error| input_error(&path, error))?;
        let graph = input::read_osmnx(std::io::BufReader::new(file)).map_err(|error| input_error(&path, error))?;
        let travel = Travel::from_osmnx(&graph).map_err(SimulateError::Network)?;
        return Ok((travel, name, Roads::from_osmnx(&graph)));
    }
    if lower.ends_with(".osm.pbf") || lower.ends_with(".osm") || lower.ends_with(".pbf") {
        let (travel, basemap) = Travel::from_extract(&path, cache_dir, |stage, done, of| progress(stage, done, of))
            .map_err(|error| input_error(&path, error))?;
        return Ok((travel, name, Roads::from_basemap(&basemap)));
    }
    Err(SimulateError::Network(format!(
        "{network}: expected an .osm.pbf extract, an OSMnx .json network or `{STRAIGHT_LINE}`"
    )))
}

/// The fleet sizes to run: the sweep, else the fleet, else the file's.
pub fn fleet_sizes(scenario: &Scenario, from_file: usize) -> Vec<usize> {
    if !scenario.fleet_sweep.is_empty() {
        scenario.fleet_sweep.clone()
    } else if let Some(fleet) = scenario.fleet {
        vec![fleet]
    } else {
        vec![from_file]
    }
}

fn bounds(trips: &[Trip], vehicles: &[Spot]) -> [f64; 4] {
    let points = trips.iter().flat_map(|trip| [trip.origin.point, trip.destination.point]);
    let points = points.chain(vehicles.iter().map(|spot| spot.point));
    let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    for point in points {
        bounds =
            [bounds[0].min(point.lat), bounds[1].min(point.lng), bounds[2].max(point.lat), bounds[3].max(point.lng)];
    }
    bounds.map(|value| (value * 1e6).round() / 1e6)
}

/// Requests drawn from each area's rate (a Poisson process per area and
/// hour, scaled by the hourly profile), ending in an area chosen by rate.
pub fn generate_demand(demand: &Demand, seed: u64) -> Result<Vec<input::Request>, SimulateError> {
    // No start: a day without a date, from midnight (the report shows times of day).
    let start = match demand.start.trim() {
        "" => 0,
        text => input::parse_time(text)
            .ok_or_else(|| ScenarioError::Invalid(format!("demand.start `{text}` is not a date and time")))?,
    };
    let areas = &demand.areas;
    if areas.iter().any(|area| !area_is_valid(area)) {
        return Err(
            ScenarioError::Invalid("demand.areas need a place, radius_km and per_hour of 0 or more".into()).into()
        );
    }
    let profile_mean = if demand.hourly_profile.is_empty() {
        1.0
    } else {
        demand.hourly_profile.iter().sum::<f64>() / demand.hourly_profile.len() as f64
    };
    let weight = |hour: u32| {
        if demand.hourly_profile.is_empty() || profile_mean <= 0.0 {
            1.0
        } else {
            demand.hourly_profile[hour as usize % demand.hourly_profile.len()].max(0.0) / profile_mean
        }
    };
    let total_rate: f64 = areas.iter().map(|area| area.per_hour).sum();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut requests = Vec::new();
    for hour in 0..demand.hours {
        for area in areas {
            let rate = area.per_hour * weight(hour);
            if rate <= 0.0 {
                continue;
            }
            let mut t = 0.0;
            loop {
                // Exponential gaps: a Poisson process of `rate` per hour.
                t += -(1.0 - rng.random::<f64>()).ln() / rate * 3600.0;
                if t >= 3600.0 {
                    break;
                }
                let origin = in_disk(&mut rng, area.lat, area.lng, area.radius_km);
                let mut pick = rng.random::<f64>() * total_rate;
                let to = areas.iter().find(|other| {
                    pick -= other.per_hour;
                    pick < 0.0
                });
                let to = to.unwrap_or(area);
                let destination = in_disk(&mut rng, to.lat, to.lng, to.radius_km);
                requests.push(input::Request {
                    id: format!("g{}", requests.len()),
                    at: start + i64::from(hour) * 3600 + t as i64,
                    origin,
                    destination,
                    passengers: 1,
                });
            }
        }
    }
    requests.sort_by_key(|request| request.at);
    Ok(requests)
}

/// `draw.count` requests drawn from `requests` ([`scenario::Draw`]), in
/// time order; the same seed draws the same.
pub fn draw_requests(requests: &[input::Request], draw: &scenario::Draw, seed: u64) -> Vec<input::Request> {
    if requests.is_empty() {
        return Vec::new();
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut drawn: Vec<input::Request> = (0..draw.count)
        .map(|number| {
            let row = &requests[rng.random_range(0..requests.len())];
            let mut moved = |point: LatLng| {
                let km = draw.jitter_m / 1000.0 * rng.random::<f64>().sqrt();
                let bearing = rng.random_range(0.0..std::f64::consts::TAU);
                let lat = point.lat + km * bearing.cos() / 111.195;
                let lng = point.lng + km * bearing.sin() / (111.195 * point.lat.to_radians().cos());
                LatLng::new(lat, lng)
            };
            let (origin, destination) = (moved(row.origin), moved(row.destination));
            let later = if draw.spread_s > 0 { rng.random_range(0..draw.spread_s) } else { 0 };
            input::Request {
                id: format!("d{number}"),
                at: row.at + later as i64,
                origin,
                destination,
                passengers: row.passengers,
            }
        })
        .collect();
    drawn.sort_by_key(|request| request.at);
    drawn
}

/// A place, a radius and a rate of 0 or more (NaN fails).
fn area_is_valid(area: &scenario::DemandArea) -> bool {
    let at_least_zero = |value: f64| value >= 0.0;
    at_least_zero(area.per_hour) && at_least_zero(area.radius_km) && LatLng::new(area.lat, area.lng).is_valid()
}

fn in_disk(rng: &mut StdRng, lat: f64, lng: f64, radius_km: f64) -> LatLng {
    let km = radius_km * rng.random::<f64>().sqrt();
    let bearing = rng.random_range(0.0..std::f64::consts::TAU);
    LatLng::new(lat + km * bearing.cos() / 111.195, lng + km * bearing.sin() / (111.195 * lat.to_radians().cos()))
}

/// Runs every policy with every fleet size on the prepared inputs, each
/// repeated with the scenario's seeds; returns the report and each run's
/// wall seconds (all its seeds).
pub fn run_all(
    scenario: &Scenario,
    prepared: &Prepared,
    progress: Progress<'_>,
) -> Result<(Report, Vec<f64>), SimulateError> {
    let policies = scenario.policies()?;
    let car = match scenario.car_type.as_str() {
        "" => prepared.catalog.car_types.first(),
        name => prepared.catalog.car_types.iter().find(|car| car.name == name),
    }
    .ok_or_else(|| SimulateError::UnknownCarType(scenario.car_type.clone()))?;
    let mut placements = Vec::new();
    for index in 0..scenario.seeds.max(1) {
        placements.push(prepared.placement(scenario, scenario.seed.wrapping_add(index), progress)?);
    }
    let mut runs = Vec::new();
    let mut walls = Vec::new();
    for fleet in fleet_sizes(scenario, prepared.file_vehicles.len()) {
        for policy in &policies {
            let settings =
                Settings { dispatchPolicy: *policy, autoDispatch: true, ..prepared.catalog.settings.clone() };
            let started = Instant::now();
            let mut first: Option<RunReport> = None;
            let mut every_seed = Vec::with_capacity(placements.len());
            for placement in &placements {
                let label = if placements.len() > 1 {
                    format!("{} · {fleet} vehicles · seed {}", policy.as_str(), placement.seed)
                } else {
                    format!("{} · {fleet} vehicles", policy.as_str())
                };
                let span_ms = placement.trips.last().map_or(0, |trip| trip.at_ms);
                let input = RunInput {
                    travel: &prepared.travel,
                    trips: &placement.trips,
                    vehicles: &placement.vehicles[..fleet.min(placement.vehicles.len())],
                    settings: &settings,
                    car,
                    scenario,
                    start_ms: placement.start_ms,
                    span_ms,
                };
                let result = sim::run(input, placement.seed, &mut |done, of| progress(&label, done, of));
                let run_metrics = metrics::metrics(&result);
                if first.is_none() {
                    first = Some(RunReport {
                        policy: policy.as_str().to_string(),
                        fleet: fleet.min(placement.vehicles.len()) as u64,
                        metrics: run_metrics.clone(),
                        over_seeds: None,
                        series: metrics::series(&result, span_ms),
                        wait_histogram: metrics::wait_histogram(&result),
                        cells: metrics::cells(&result),
                    });
                }
                every_seed.push(run_metrics);
            }
            let mut run = first.expect("every run has a first seed");
            let seeds: Vec<u64> = placements.iter().map(|placement| placement.seed).collect();
            run.over_seeds = over_seeds(&seeds, &every_seed);
            runs.push(run);
            walls.push(started.elapsed().as_secs_f64());
        }
    }
    let mut report = Report { scenario: prepared.summary.clone(), conclusion: Default::default(), runs };
    report.conclusion = conclusion::conclude(&report);
    Ok((report, walls))
}

/// Each metric's mean and 95 % interval over the seeds; `None` for one seed.
fn over_seeds(seeds: &[u64], every_seed: &[Metrics]) -> Option<OverSeeds> {
    if every_seed.len() < 2 {
        return None;
    }
    let metrics = figures::METRIC_GROUPS
        .iter()
        .flat_map(|(_, rows)| rows.iter())
        .filter_map(|row| {
            let values: Vec<f64> = every_seed.iter().map(|metrics| (row.value)(metrics)).collect();
            Some((row.name.to_string(), stats::interval(&values)?))
        })
        .collect();
    Some(OverSeeds { seeds: seeds.to_vec(), metrics })
}

/// Everything `wayfare simulate` does after reading its flags: prepare,
/// run, and write `report.json`, the CSV series and `report.html` to `out`.
pub fn simulate(
    scenario: &Scenario,
    catalog: Catalog,
    cache_dir: &Path,
    out: &Path,
    progress: Progress<'_>,
) -> Result<(Report, Timing), SimulateError> {
    let started = Instant::now();
    let prepared = prepare(scenario, catalog, cache_dir, progress)?;
    let setup_s = started.elapsed().as_secs_f64();
    let (report, runs_s) = run_all(scenario, &prepared, progress)?;
    let timing = Timing { setup_s, runs_s, peak_rss_mb: peak_rss_mb() };
    write_outputs(out, &report, &timing, &prepared.roads)?;
    Ok((report, timing))
}

/// `report.json`, `metrics.csv`, `series.csv` and `report.html` in `out`;
/// `roads` go under the maps of `report.html` only.
pub fn write_outputs(out: &Path, report: &Report, timing: &Timing, roads: &Roads) -> Result<(), SimulateError> {
    let write = |name: &str, contents: String| {
        let path = out.join(name);
        std::fs::write(&path, contents)
            .map_err(|source| SimulateError::Write { path: path.display().to_string(), source })
    };
    std::fs::create_dir_all(out).map_err(|source| SimulateError::Write { path: out.display().to_string(), source })?;
    let mut json = serde_json::to_string_pretty(report).expect("the report serialises");
    json.push('\n');
    write("report.json", json)?;
    write("metrics.csv", metrics_csv(report))?;
    write("series.csv", series_csv(report))?;
    write("report.html", html::render(report, timing, roads))?;
    Ok(())
}

fn metrics_csv(report: &Report) -> String {
    let mut lines = Vec::new();
    for run in &report.runs {
        let value = serde_json::to_value(&run.metrics).expect("metrics serialise");
        let fields = value.as_object().expect("metrics are an object");
        if lines.is_empty() {
            lines.push(format!("policy,fleet,{}", fields.keys().cloned().collect::<Vec<_>>().join(",")));
        }
        let values: Vec<String> = fields.values().map(|value| value.to_string()).collect();
        lines.push(format!("{},{},{}", run.policy, run.fleet, values.join(",")));
    }
    lines.join("\n") + "\n"
}

fn series_csv(report: &Report) -> String {
    let mut csv = String::from("policy,fleet,start_s,demand,served,unserved,idle_drivers,mean_wait_s\n");
    for run in &report.runs {
        for point in &run.series {
            let wait = point.mean_wait_s.map(|wait| wait.to_string()).unwrap_or_default();
            csv.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                run.policy,
                run.fleet,
                point.start_s,
                point.demand,
                point.served,
                point.unserved,
                point.idle_drivers,
                wait
            ));
        }
    }
    csv
}

/// The process's peak resident memory, from Linux's /proc.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// The policy names `--compare` understands.
pub fn policy_names() -> Vec<&'static str> {
    DispatchPolicy::ALL.iter().map(|policy| policy.as_str()).collect()
}
