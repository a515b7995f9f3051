//! `wayfare simulate` (issue #16, docs/simulations.md): dispatch simulations
//! on the production engine.
//!
//! - [`input`] reads requests, vehicles and OSMnx networks;
//! - [`scenario`] is what to run, from TOML and flags;
//! - [`travel`] times drives on roads or straight lines;
//! - [`sim`] is one run on a discrete-event clock;
//! - [`metrics`] turns a run into the report's figures, [`report`] is the
//!   report, [`html`] draws it.

pub mod html;
pub mod input;
pub mod live;
pub mod living;
pub mod metrics;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod travel;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use report::{Report, RunReport, ScenarioSummary, Timing};
use scenario::{Demand, STRAIGHT_LINE, Scenario, ScenarioError};
use serde::Deserialize;
use sim::{RunInput, Trip};
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
    pub trips: Vec<Trip>,
    /// Every vehicle placed, in order; a run of N uses the first N.
    pub vehicles: Vec<Spot>,
    pub catalog: Catalog,
    pub summary: ScenarioSummary,
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
    wayfare_engine::validation::validate_settings(&catalog.settings)
        .map_err(|error| ScenarioError::Invalid(format!("settings: {} ({:?})", error.key.as_str(), error.field)))?;

    progress("reading the network", 0, 1);
    let (travel, network_file) = open_network(&scenario.network, cache_dir, progress)?;
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
            (loaded.items, layout, file_name(path))
        }
        (None, Some(demand)) => (generate_demand(demand, scenario.seed)?, "generated", "generated".to_string()),
        (None, None) => return Err(ScenarioError::Invalid("no demand".into()).into()),
    };
    let zero = requests.iter().map(|request| request.at).min().ok_or(SimulateError::NoDemand)?;

    let placed = place_requests(&travel, &requests, zero, progress);
    let mut trips = Vec::with_capacity(placed.len());
    for trip in placed {
        match trip {
            Some(trip) => trips.push(trip),
            None => *skipped.entry("requests.off_network".into()).or_default() += 1,
        }
    }
    // Stable: requests made at the same second keep the file's order.
    trips.sort_by_key(|trip| trip.at_ms);
    if trips.is_empty() {
        return Err(SimulateError::NoDemand);
    }

    let mut vehicles = Vec::new();
    let mut vehicles_name = String::new();
    if let Some(path) = &scenario.vehicles {
        let file = std::fs::File::open(path).map_err(|error| input_error(path, error))?;
        let loaded = input::read_vehicles(std::io::BufReader::new(file)).map_err(|error| input_error(path, error))?;
        for (reason, count) in loaded.skipped_by_reason() {
            *skipped.entry(format!("vehicles.{}", reason_name(reason))).or_default() += count as u64;
        }
        for vehicle in &loaded.items {
            match travel.spot(vehicle.position) {
                Some(spot) => vehicles.push(spot),
                None => *skipped.entry("vehicles.off_network".into()).or_default() += 1,
            }
        }
        vehicles_name = file_name(path);
    }
    let wanted = fleet_sizes(scenario, vehicles.len()).into_iter().max().unwrap_or(0);
    // More vehicles than the file has: placed where requests start, so the
    // fleet begins where riders are, on the network.
    let mut rng = StdRng::seed_from_u64(scenario.seed ^ 0x5eed_f1ee7);
    while vehicles.len() < wanted {
        vehicles.push(trips[rng.random_range(0..trips.len())].origin);
    }
    if vehicles.is_empty() {
        return Err(SimulateError::NoVehicles);
    }
    let _ = vehicles_name;

    let span_ms = trips.last().map_or(0, |trip| trip.at_ms);
    let summary = ScenarioSummary {
        name: scenario.name.clone(),
        network: travel.kind().to_string(),
        network_file,
        openstreetmap: travel.kind() != "straight-line",
        demand: demand_name,
        demand_layout: layout.to_string(),
        requests: trips.len() as u64 + skipped.get("requests.off_network").copied().unwrap_or(0),
        skipped,
        seed: scenario.seed,
        cancel_after_s: scenario.riders.cancel_after_s,
        start: chrono::DateTime::from_timestamp(zero, 0)
            .map(|time| time.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string())
            .unwrap_or_default(),
        demand_span_s: (span_ms / 1000) as u64,
        bounds: bounds(&trips, &vehicles),
    };
    Ok(Prepared { travel, trips, vehicles, catalog, summary })
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
) -> Result<(Travel, Option<String>), SimulateError> {
    if network == STRAIGHT_LINE || network.is_empty() {
        return Ok((Travel::straight_line(), None));
    }
    let path = PathBuf::from(network);
    let name = Some(file_name(&path));
    let lower = network.to_ascii_lowercase();
    if lower.ends_with(".json") {
        let file = std::fs::File::open(&path).map_err(|error| input_error(&path, error))?;
        let graph = input::read_osmnx(std::io::BufReader::new(file)).map_err(|error| input_error(&path, error))?;
        return Ok((Travel::from_osmnx(&graph).map_err(SimulateError::Network)?, name));
    }
    if lower.ends_with(".osm.pbf") || lower.ends_with(".osm") || lower.ends_with(".pbf") {
        let travel = Travel::from_extract(&path, cache_dir, |stage, done, of| progress(stage, done, of))
            .map_err(|error| input_error(&path, error))?;
        return Ok((travel, name));
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
    let start = input::parse_time(&demand.start)
        .ok_or_else(|| ScenarioError::Invalid(format!("demand.start `{}` is not a date and time", demand.start)))?;
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

/// Runs every policy with every fleet size on the prepared inputs.
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
    let start_ms = chrono::NaiveDateTime::parse_from_str(&prepared.summary.start, "%Y-%m-%dT%H:%M:%S")
        .map(|time| time.and_utc().timestamp_millis())
        .unwrap_or(0);
    let span_ms = prepared.trips.last().map_or(0, |trip| trip.at_ms);
    let mut runs = Vec::new();
    let mut walls = Vec::new();
    for fleet in fleet_sizes(scenario, prepared.vehicles.len()) {
        for policy in &policies {
            let settings =
                Settings { dispatchPolicy: *policy, autoDispatch: true, ..prepared.catalog.settings.clone() };
            let label = format!("{} · {fleet} vehicles", policy.as_str());
            let started = Instant::now();
            let input = RunInput {
                travel: &prepared.travel,
                trips: &prepared.trips,
                vehicles: &prepared.vehicles[..fleet.min(prepared.vehicles.len())],
                settings: &settings,
                car,
                scenario,
                start_ms,
                span_ms,
            };
            let result = sim::run(input, scenario.seed, &mut |done, of| progress(&label, done, of));
            runs.push(RunReport {
                policy: policy.as_str().to_string(),
                fleet: fleet.min(prepared.vehicles.len()) as u64,
                metrics: metrics::metrics(&result),
                series: metrics::series(&result, span_ms),
                wait_histogram: metrics::wait_histogram(&result),
                cells: metrics::cells(&result),
            });
            walls.push(started.elapsed().as_secs_f64());
        }
    }
    Ok((Report { scenario: prepared.summary.clone(), runs }, walls))
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
    write_outputs(out, &report, &timing)?;
    Ok((report, timing))
}

/// `report.json`, `metrics.csv`, `series.csv` and `report.html` in `out`.
pub fn write_outputs(out: &Path, report: &Report, timing: &Timing) -> Result<(), SimulateError> {
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
    write("report.html", html::render(report, timing))?;
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
