//! `wayfare simulate` end to end on the production engine: a day small
//! enough to check by hand, conservation, determinism, no driver holding
//! two bookings, both request layouts with bad rows, seeds and their
//! intervals, and HIVE's Denver demo with the report's conclusion.

use serde_json::json;
use std::path::{Path, PathBuf};
use wayfare_engine::geo::EARTH_RADIUS_KM;
use wayfare_engine::{CarType, DispatchPolicy, LatLng, Settings};
use wayfare_simulations::report::Report;
use wayfare_simulations::scenario::{IdleBehaviour, Scenario};
use wayfare_simulations::sim::{self, Outcome, RunInput};
use wayfare_simulations::{Catalog, Prepared, prepare, run_all, simulate};

const ORIGIN: LatLng = LatLng { lat: 39.29, lng: -76.61 };

fn north_of(km: f64) -> LatLng {
    LatLng::new(ORIGIN.lat + km / EARTH_RADIUS_KM.to_radians(), ORIGIN.lng)
}

fn sedan() -> CarType {
    serde_json::from_value(json!({
        "id": "00000000-0000-7000-8000-000000000001",
        "name": "Sedan",
        "base_fare": 2.5,
        "rate_per_unit_distance": 1.1,
        "rate_per_hour": 15.0,
        "min_fare": 7.0,
        "convenience_fees": 10.0,
        "convenience_fee_type": "percentage"
    }))
    .unwrap()
}

fn catalog() -> Catalog {
    Catalog { settings: Settings::default(), car_types: vec![sedan()] }
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn hive_requests(rows: &[(u32, LatLng, LatLng, i64)]) -> String {
    let mut csv = String::from("request_id,o_lat,o_lon,d_lat,d_lon,departure_time,passengers\n");
    for (id, from, to, at) in rows {
        csv.push_str(&format!("{id},{},{},{},{},{at},1\n", from.lat, from.lng, to.lat, to.lng));
    }
    csv
}

fn vehicles(points: &[LatLng]) -> String {
    let mut csv = String::from(
        "vehicle_id,lat,lon,mechatronics_id,powertrain_id,powercurve_id,capacity,ideal_energy_limit,max_charge_acceptance,initial_soc,home_base_id\n",
    );
    for (number, point) in points.iter().enumerate() {
        csv.push_str(&format!("v{number},{},{},x,y,z,4,,50,1.0,\n", point.lat, point.lng));
    }
    csv
}

fn close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 0.01, "{actual} is not {expected}");
}

#[test]
fn a_tiny_day_gives_the_waits_and_distances_worked_out_by_hand() {
    // One car at the origin (straight lines at 30 km/h: 120 s per km).
    // Request 1 at t=0 from 1 km north to 3 km north: pickup 1 km (120 s), ride 2 km (240 s), free at 360 s.
    // Request 2 at t=100 s from 3.5 km north to 5.5 km north: no free driver, so it waits for the
    // booking machine's dispatch retry, every 60 s from its creation: 160, 220, 280, 340 (busy), 400.
    // At 400 s the car (at 3 km north since 360 s) takes it: pickup 0.5 km (60 s), picked up at 460 s.
    let dir = tempfile::tempdir().unwrap();
    let requests = hive_requests(&[(1, north_of(1.0), north_of(3.0), 0), (2, north_of(3.5), north_of(5.5), 100)]);
    let scenario = Scenario {
        requests: Some(write(dir.path(), "requests.csv", &requests)),
        vehicles: Some(write(dir.path(), "vehicles.csv", &vehicles(&[ORIGIN]))),
        policies: vec!["waves".into()],
        ..Scenario::default()
    };
    let prepared = prepare(&scenario, catalog(), dir.path(), &mut |_, _, _| {}).unwrap();
    let (report, _) = run_all(&scenario, &prepared, &mut |_, _, _| {}).unwrap();
    let metrics = &report.runs[0].metrics;
    assert_eq!((metrics.requests, metrics.rides, metrics.rejections), (2, 2, 0));
    close(metrics.wait_average, 240.0);
    close(metrics.wait_max, 360.0);
    close(metrics.wait_median, 240.0);
    close(metrics.inVehicleTravelTime_mean, 240.0);
    close(metrics.distance_m_mean, 2000.0);
    close(metrics.totalDistance, 5500.0);
    close(metrics.totalEmptyDistance, 1500.0);
    close(metrics.emptyRatio, 1500.0 / 5500.0);
    close(metrics.percentage_WT_below_5, 50.0);
    close(metrics.percentage_WT_below_10, 100.0);
    close(metrics.acceptance_rate, 1.0);
    close(metrics.offers_per_booking, 1.0);
    // Busy 0–360 s and 400–700 s of a 700 s day.
    close(metrics.driver_utilisation, 660.0 / 700.0);
    assert_eq!(metrics.simulated_s, 700);
    // The fare is the engine's: both rides' driver shares, for the one driver.
    assert!(metrics.earnings_mean > 0.0);
    assert_eq!(report.runs[0].wait_histogram[2], 1);
    assert_eq!(report.runs[0].wait_histogram[6], 1);
}

#[test]
fn a_rider_who_waits_longer_than_cancel_after_gives_up() {
    let dir = tempfile::tempdir().unwrap();
    // The only car is 20 km away, past the 10 km radius: nobody is ever offered the booking.
    let requests = hive_requests(&[(1, ORIGIN, north_of(2.0), 0)]);
    let scenario = Scenario {
        requests: Some(write(dir.path(), "requests.csv", &requests)),
        vehicles: Some(write(dir.path(), "vehicles.csv", &vehicles(&[north_of(20.0)]))),
        riders: wayfare_simulations::scenario::RiderModel { cancel_after_s: 300 },
        ..Scenario::default()
    };
    let prepared = prepare(&scenario, catalog(), dir.path(), &mut |_, _, _| {}).unwrap();
    let (report, _) = run_all(&scenario, &prepared, &mut |_, _, _| {}).unwrap();
    let metrics = &report.runs[0].metrics;
    assert_eq!((metrics.rides, metrics.cancelledByRider, metrics.rejections), (0, 1, 1));
    assert_eq!(metrics.rejectionRate, 1.0);
    assert_eq!(report.runs[0].series[0].unserved, 1);
    assert_eq!(report.runs[0].cells[0].unserved, 1);
}

/// A busy synthetic hour: 400 requests over 12 km, 30 cars, drivers who
/// sometimes say no and take a few seconds to answer, cruising when idle.
fn busy_scenario(dir: &Path) -> Scenario {
    let text = r#"
        name = "busy hour"
        network = "straight-line"
        fleet = 30
        policies = ["broadcast", "waves", "nearest", "batch"]
        seed = 7
        [demand]
        start = "2026-11-26T08:00:00"
        hours = 1
        [[demand.areas]]
        lat = 39.29
        lng = -76.61
        radius_km = 4.0
        per_hour = 300
        [[demand.areas]]
        lat = 39.33
        lng = -76.62
        radius_km = 2.0
        per_hour = 100
        [drivers]
        accept_probability = 0.9
        accept_decay_per_km = 0.05
        respond_min_s = 2
        respond_max_s = 12
        idle = "cruise"
        idle_every_s = 120
        [riders]
        cancel_after_s = 600
    "#;
    Scenario::from_file(&write(dir, "busy.toml", text)).unwrap()
}

/// The busy hour's first 30 cars under `policy`.
fn run_busy(prepared: &Prepared, scenario: &Scenario, policy: DispatchPolicy) -> sim::RunResult {
    let settings = Settings { dispatchPolicy: policy, ..Settings::default() };
    let car = sedan();
    let input = RunInput {
        travel: &prepared.travel,
        trips: &prepared.trips,
        vehicles: &prepared.vehicles[..30],
        settings: &settings,
        car: &car,
        scenario,
        start_ms: 0,
        span_ms: prepared.trips.last().unwrap().at_ms,
    };
    sim::run(input, scenario.seed, &mut |_, _| {})
}

#[test]
fn every_request_ends_once_and_no_driver_ever_holds_two_bookings() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = busy_scenario(dir.path());
    let prepared = prepare(&scenario, catalog(), dir.path(), &mut |_, _, _| {}).unwrap();
    let requests = prepared.trips.len();
    assert!(requests > 300, "{requests} requests");
    for policy in scenario.policies().unwrap() {
        let result = run_busy(&prepared, &scenario, policy);
        assert_eq!(result.rides.len(), requests);
        // Conservation: each request ended, exactly one way.
        assert!(result.rides.iter().all(|ride| ride.outcome != Outcome::Open && ride.ended_at.is_some()), "{policy:?}");
        let served = result.rides.iter().filter(|ride| ride.outcome == Outcome::Served).count();
        let metrics = wayfare_simulations::metrics::metrics(&result);
        assert_eq!(
            metrics.rides + metrics.cancelledByRider + metrics.cancelledBySystem + metrics.neverDispatched,
            requests as u64
        );
        assert_eq!(metrics.rides, served as u64);
        assert!(served > 0 && served < requests, "{policy:?}: {served} of {requests}: the fleet should be stretched");
        // Every served ride went through acceptance, pickup and drop, in that order.
        for ride in result.rides.iter().filter(|ride| ride.outcome == Outcome::Served) {
            let (accepted, picked, dropped) =
                (ride.accepted_at.unwrap(), ride.picked_at.unwrap(), ride.dropped_at.unwrap());
            assert!(ride.request_at <= accepted && accepted <= picked && picked <= dropped);
        }
        // No driver holds two bookings: each driver's accepted-to-drop spans never overlap.
        let mut spans: Vec<(usize, i64, i64)> = result
            .rides
            .iter()
            .filter_map(|ride| Some((ride.driver?, ride.accepted_at?, ride.dropped_at.or(ride.ended_at)?)))
            .collect();
        spans.sort();
        for pair in spans.windows(2) {
            if pair[0].0 == pair[1].0 {
                assert!(pair[0].2 <= pair[1].1, "{policy:?}: driver {} holds two bookings: {pair:?}", pair[0].0);
            }
        }
    }
}

fn report_json(dir: &Path, scenario: &Scenario, out: &str) -> String {
    let out = dir.join(out);
    simulate(scenario, catalog(), dir, &out, &mut |_, _, _| {}).unwrap();
    std::fs::read_to_string(out.join("report.json")).unwrap()
}

#[test]
fn the_same_inputs_and_seed_give_the_same_report_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = busy_scenario(dir.path());
    let first = report_json(dir.path(), &scenario, "first");
    let second = report_json(dir.path(), &scenario, "second");
    assert_eq!(first, second);
    let other_seed = report_json(dir.path(), &Scenario { seed: 8, ..scenario.clone() }, "third");
    assert_ne!(first, other_seed, "the seed should matter");
    let report: serde_json::Value = serde_json::from_str(&first).unwrap();
    let policies: Vec<&str> =
        report["runs"].as_array().unwrap().iter().map(|run| run["policy"].as_str().unwrap()).collect();
    assert_eq!(policies, ["broadcast", "waves", "nearest", "batch"]);
    for file in ["report.html", "metrics.csv", "series.csv"] {
        assert!(dir.path().join("first").join(file).exists(), "{file}");
    }
    let series = std::fs::read_to_string(dir.path().join("first/series.csv")).unwrap();
    // A bin per 15 minutes of the hour's demand, for each of the 4 policies, and a header.
    let bins = report["scenario"]["demand_span_s"].as_u64().unwrap() / 900 + 1;
    assert_eq!(bins, 4);
    assert_eq!(series.lines().count() as u64, 1 + 4 * bins, "{series}");
}

#[test]
fn trip_records_with_bad_rows_run_and_count_what_was_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (north_of(1.0), north_of(4.0));
    let csv = format!(
        "pickup_time,dropoff_time,passenger_count,pickup_lat,pickup_lon,dropoff_lat,dropoff_lon\n\
         2026-11-26 08:00:00,2026-11-26 08:10:00,1,{},{},{},{}\n\
         2026-11-26 08:01:00,2026-11-26 08:12:00,1,0,0,{},{}\n\
         not a time,2026-11-26 08:12:00,1,{},{},{},{}\n\
         2026-11-26 08:02:00,2026-11-26 08:12:00,1,{},,{},{}\n\
         2026-11-26 08:03:00,2026-11-26 08:13:00,2,{},{},{},{}\n",
        a.lat,
        a.lng,
        b.lat,
        b.lng,
        b.lat,
        b.lng,
        a.lat,
        a.lng,
        b.lat,
        b.lng,
        a.lat,
        b.lat,
        b.lng,
        b.lat,
        b.lng,
        a.lat,
        a.lng
    );
    let scenario =
        Scenario { requests: Some(write(dir.path(), "trips.csv", &csv)), fleet: Some(3), ..Scenario::default() };
    let (report, _) = simulate(&scenario, catalog(), dir.path(), &dir.path().join("out"), &mut |_, _, _| {}).unwrap();
    assert_eq!(report.scenario.demand_layout, "trip_records");
    assert_eq!(report.scenario.requests, 2);
    let skipped: Vec<(&str, u64)> = report.scenario.skipped.iter().map(|(key, count)| (key.as_str(), *count)).collect();
    assert_eq!(skipped, [("requests.bad_coordinates", 1), ("requests.bad_time", 1), ("requests.missing_field", 1)]);
    assert_eq!(report.runs[0].metrics.rides, 2);
    assert_eq!(report.scenario.start, "2026-11-26T08:00:00");
}

#[test]
fn hive_denver_runs_on_its_osmnx_road_network() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = Scenario {
        name: "HIVE Denver demo".into(),
        network: repo("data/hive/denver_downtown/downtown_denver_network.json").display().to_string(),
        requests: Some(repo("data/hive/denver_downtown/denver_demo_requests.csv")),
        vehicles: Some(repo("data/hive/denver_downtown/denver_demo_vehicles.csv")),
        policies: vec!["waves".into(), "batch".into()],
        ..Scenario::default()
    };
    let (report, timing): (Report, _) =
        simulate(&scenario, catalog(), dir.path(), &dir.path().join("out"), &mut |_, _, _| {}).unwrap();
    assert_eq!(report.scenario.network, "osmnx");
    assert!(report.scenario.openstreetmap);
    assert_eq!(report.runs.len(), 2);
    for run in &report.runs {
        let metrics = &run.metrics;
        assert_eq!(run.fleet, 20);
        assert_eq!(metrics.requests + report.scenario.skipped.get("requests.off_network").copied().unwrap_or(0), 2_500);
        assert!(metrics.fulfilment > 0.5, "{}: {}", run.policy, metrics.fulfilment);
        // On roads a ride is longer than the straight line between its ends.
        assert!(metrics.distance_m_mean > 500.0 && metrics.totalEmptyDistance > 0.0);
    }
    assert_eq!(timing.runs_s.len(), 2);
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(html.contains("© OpenStreetMap contributors"));
}

fn denver(policies: &[&str], seeds: u64) -> Scenario {
    Scenario {
        name: "HIVE Denver demo".into(),
        network: repo("data/hive/denver_downtown/downtown_denver_network.json").display().to_string(),
        requests: Some(repo("data/hive/denver_downtown/denver_demo_requests.csv")),
        vehicles: Some(repo("data/hive/denver_downtown/denver_demo_vehicles.csv")),
        policies: policies.iter().map(|policy| policy.to_string()).collect(),
        seeds,
        ..Scenario::default()
    }
}

/// Text of an HTML fragment without its tags.
fn plain(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for character in html.chars() {
        match character {
            '<' => in_tag = true,
            '>' => in_tag = false,
            other if !in_tag => text.push(other),
            _ => {}
        }
    }
    text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
}

/// The text of each run's cell in the table row of `metric`.
fn table_cells(html: &str, metric: &str) -> Vec<String> {
    let start = html.find(&format!("<tr id=\"metric-{metric}\">")).unwrap_or_else(|| panic!("no row {metric}"));
    let row = &html[start..start + html[start..].find("</tr>").unwrap()];
    row.split("<td").skip(1).map(|cell| plain(&format!("<td{}", &cell[..cell.find("</td>").unwrap()]))).collect()
}

#[test]
fn the_denver_report_concludes_with_a_policy_and_figures_from_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let scenario = denver(&["broadcast", "waves", "nearest", "batch"], 1);
    let (report, _) = simulate(&scenario, catalog(), dir.path(), &out, &mut |_, _, _| {}).unwrap();
    let conclusion = &report.conclusion;
    let policy = conclusion.recommended.as_deref().expect("a policy to use");
    assert!(scenario.policies.iter().any(|name| name == policy));
    assert!(conclusion.headline.starts_with(&format!("Use {policy}:")), "{}", conclusion.headline);
    // Every figure it quotes is in the table, in its run's column, as shown.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.find("class=\"conclusion\"").unwrap() < html.find("id=\"comparison\"").unwrap());
    let columns: Vec<String> = report.runs.iter().map(|run| run.label()).collect();
    let headline_figures: Vec<_> =
        conclusion.figures.iter().filter(|figure| conclusion.headline.contains(&figure.shown)).collect();
    assert!(!headline_figures.is_empty(), "{conclusion:?}");
    for figure in &conclusion.figures {
        let column = columns.iter().position(|label| *label == figure.run).unwrap();
        assert_eq!(table_cells(&html, &figure.metric)[column], figure.shown, "{figure:?}");
    }
    // In report.json too, for scripts.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["conclusion"]["recommended"], policy);
    assert_eq!(json["conclusion"]["headline"], conclusion.headline.as_str());
    // A share short of every request never reads 100 %.
    let shares = table_cells(&html, "fulfilment");
    for (run, share) in report.runs.iter().zip(&shares) {
        assert_eq!(run.metrics.rides < run.metrics.requests, share != "100.0 %", "{}: {share}", run.policy);
    }
    // HIVE's times are seconds of a day: times of day, no 1970.
    assert_eq!((report.scenario.start.as_str(), report.scenario.dated), ("00:02:00", false));
    assert!(!html.contains("1970"));
    // Money in the demo's dollars, the maps over the network's roads, and a page that stays small.
    assert_eq!(report.scenario.currency.code, "USD");
    assert!(table_cells(&html, "earnings_mean").iter().all(|cell| cell.starts_with('$')));
    assert_eq!(html.matches("<use href=\"#roads\" clip-path=\"url(#map-frame)\"/>").count(), 4);
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
}

#[test]
fn denver_with_five_seeds_gives_intervals_in_the_json_and_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (report, timing) =
        simulate(&denver(&["waves", "batch"], 5), catalog(), dir.path(), &out, &mut |_, _, _| {}).unwrap();
    assert_eq!(timing.runs_s.len(), 2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["scenario"]["seeds"], 5);
    for (run, parsed) in report.runs.iter().zip(json["runs"].as_array().unwrap()) {
        assert_eq!(parsed["over_seeds"]["seeds"], serde_json::json!([1, 2, 3, 4, 5]));
        let wait = &parsed["over_seeds"]["metrics"]["wait_average"];
        let (low, mean, high) =
            (wait["low"].as_f64().unwrap(), wait["mean"].as_f64().unwrap(), wait["high"].as_f64().unwrap());
        assert!(low <= mean && mean <= high);
        assert_eq!(wait["values"].as_array().unwrap().len(), 5);
        // The first seed's run is the one the plots show.
        assert_eq!(wait["values"][0].as_f64().unwrap(), run.metrics.wait_average);
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<dt>Seeds</dt><dd>1 to 5: every run repeated 5 times</dd>"));
    assert!(table_cells(&html, "wait_average").iter().all(|cell| cell.contains("seeds") || cell.contains("95 % CI")));
    assert!(report.conclusion.reasons.iter().any(|reason| reason.contains("5 seeds")), "{:?}", report.conclusion);
}

#[test]
fn seeds_repeat_every_run_and_their_spread_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = Scenario { seeds: 3, policies: vec!["waves".into(), "batch".into()], ..busy_scenario(dir.path()) };
    let first = report_json(dir.path(), &scenario, "first");
    assert_eq!(first, report_json(dir.path(), &scenario, "second"));
    let report: serde_json::Value = serde_json::from_str(&first).unwrap();
    for run in report["runs"].as_array().unwrap() {
        let over = &run["over_seeds"]["metrics"];
        // Generated demand is drawn again with each seed.
        let requests: Vec<f64> =
            over["requests"]["values"].as_array().unwrap().iter().map(|value| value.as_f64().unwrap()).collect();
        assert!(requests.windows(2).any(|pair| pair[0] != pair[1]), "{requests:?}");
        let wait = &over["wait_average"];
        assert!(wait["low"].as_f64().unwrap() < wait["high"].as_f64().unwrap(), "{wait}");
        assert_eq!(run["metrics"]["requests"].as_f64(), requests.first().copied());
    }
    let html = std::fs::read_to_string(dir.path().join("first/report.html")).unwrap();
    assert!(html.contains("95 % CI "));
}

#[test]
fn generated_demand_without_a_start_runs_on_a_day_without_a_date() {
    let dir = tempfile::tempdir().unwrap();
    let mut scenario = busy_scenario(dir.path());
    scenario.policies = vec!["batch".into()];
    scenario.demand.as_mut().unwrap().start = String::new();
    let (report, _) = simulate(&scenario, catalog(), dir.path(), &dir.path().join("out"), &mut |_, _, _| {}).unwrap();
    assert!(!report.scenario.dated);
    assert!(report.scenario.start.starts_with("00:"), "{}", report.scenario.start);
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(!html.contains("1970") && html.contains("a time of day"));
}

#[test]
fn idle_drivers_who_reposition_wait_where_riders_book_and_riders_wait_less() {
    let dir = tempfile::tempdir().unwrap();
    let mut scenario = busy_scenario(dir.path());
    scenario.drivers.idle_every_s = 60;
    let prepared = prepare(&scenario, catalog(), dir.path(), &mut |_, _, _| {}).unwrap();
    let run = |idle: IdleBehaviour| {
        let mut scenario = scenario.clone();
        scenario.drivers.idle = idle;
        wayfare_simulations::metrics::metrics(&run_busy(&prepared, &scenario, DispatchPolicy::Waves))
    };
    let (stay, reposition) = (run(IdleBehaviour::Stay), run(IdleBehaviour::Reposition));
    // Every request still ends once.
    assert_eq!(
        reposition.rides + reposition.cancelledByRider + reposition.cancelledBySystem + reposition.neverDispatched,
        prepared.trips.len() as u64
    );
    // The moves are driven empty, and they pay: riders wait less.
    assert!(reposition.totalEmptyDistance > stay.totalEmptyDistance, "{reposition:?} against {stay:?}");
    assert!(
        reposition.wait_average < stay.wait_average,
        "mean wait {} s repositioning against {} s staying",
        reposition.wait_average,
        stay.wait_average
    );
}

#[test]
fn a_drawn_day_has_the_count_asked_in_time_order_near_the_rows_it_was_drawn_from() {
    use wayfare_simulations::draw_requests;
    use wayfare_simulations::input::Request;
    use wayfare_simulations::scenario::Draw;
    let rows: Vec<Request> = (0..5)
        .map(|number| Request {
            id: format!("r{number}"),
            at: 600 * number,
            origin: north_of(number as f64),
            destination: north_of(10.0 + number as f64),
            passengers: 1 + number as u32,
        })
        .collect();
    let draw = Draw { count: 2_000, spread_s: 60, jitter_m: 100.0 };
    let drawn = draw_requests(&rows, &draw, 7);
    assert_eq!(drawn.len(), 2_000);
    assert!(drawn.windows(2).all(|pair| pair[0].at <= pair[1].at), "in time order");
    let km = |a: LatLng, b: LatLng| wayfare_engine::geo::distance_km(a, b);
    let mut from_row = [0usize; 5];
    for request in &drawn {
        // The row it copies: its passengers say which.
        let row = &rows[request.passengers as usize - 1];
        from_row[request.passengers as usize - 1] += 1;
        assert!((row.at..row.at + 60).contains(&request.at), "{} from {}", request.at, row.at);
        assert!(km(request.origin, row.origin) <= 0.1005, "{request:?}");
        assert!(km(request.destination, row.destination) <= 0.1005, "{request:?}");
    }
    // Every row drawn, about equally, and its copies not all one place.
    assert!(from_row.iter().all(|count| (300..500).contains(count)), "{from_row:?}");
    let first_row: Vec<&Request> = drawn.iter().filter(|request| request.passengers == 1).collect();
    assert!(first_row.windows(2).any(|pair| pair[0].origin != pair[1].origin));
    assert_eq!(draw_requests(&rows, &draw, 7), drawn, "the same seed draws the same");
    assert_ne!(draw_requests(&rows, &draw, 8), drawn, "the seed should matter");
}

#[test]
fn a_scenario_draws_from_its_requests_file_and_sets_the_batch_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut scenario = denver(&["batch"], 1);
    scenario.draw = Some(wayfare_simulations::scenario::Draw { count: 6_000, spread_s: 60, jitter_m: 50.0 });
    scenario.batch_seconds = Some(30);
    let prepared = prepare(&scenario, catalog(), dir.path(), &mut |_, _, _| {}).unwrap();
    assert_eq!(prepared.catalog.settings.dispatchBatchSeconds, 30);
    let off_network = prepared.summary.skipped.get("requests.off_network").copied().unwrap_or(0);
    assert_eq!(prepared.summary.requests, 6_000);
    assert_eq!(prepared.trips.len() as u64 + off_network, 6_000);
    assert!(prepared.summary.demand.ends_with("(drawn)"), "{}", prepared.summary.demand);
    // A window the settings refuse is refused here too.
    let refused = Scenario { batch_seconds: Some(0), ..scenario.clone() };
    assert!(prepare(&refused, catalog(), dir.path(), &mut |_, _, _| {}).is_err());
    // A draw needs rows to draw from.
    let nothing_to_draw = Scenario { requests: None, fleet: Some(3), ..scenario };
    assert!(nothing_to_draw.validate().is_err());
}

#[test]
fn the_manhattan_day_reads_as_400000_requests_in_30_second_batches() {
    let scenario = Scenario::from_file(&repo("data/scenarios/manhattan-400k.toml")).unwrap();
    scenario.validate().unwrap();
    assert_eq!(scenario.draw.as_ref().map(|draw| draw.count), Some(400_000));
    assert_eq!((scenario.batch_seconds, scenario.fleet), (Some(30), Some(2_000)));
    assert!(scenario.requests.as_ref().unwrap().exists(), "{:?}", scenario.requests);
}
