//! `wayfare simulate --live` (docs/simulations.md "Live mode") run as a user
//! runs it: the real binary plays a small scenario against a real
//! `wayfare serve --demo` on a free port, over REST and Socket.IO. Then the
//! test reads back, as the demo admin, what the server recorded, and checks
//! it is what the run's summary (`live.json`) says happened.

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

mod demo_server;
use demo_server::Server;

/// The demo admin's view of the server, over REST.
struct Admin {
    http: reqwest::Client,
    api: String,
    token: String,
}

impl Admin {
    async fn sign_in(url: &str) -> Admin {
        let http = reqwest::Client::new();
        let api = format!("{url}/api/v1");
        let contact = "admin@demo.wayfare";
        let post = |path: &str, body: Value| {
            http.post(format!("{api}{path}")).header("content-type", "application/json").body(body.to_string()).send()
        };
        let sent = post("/auth/otp/request", json!({ "contact": contact })).await.unwrap();
        assert!(sent.status().is_success(), "code request: {}", sent.status());
        let outbox: Value = serde_json::from_slice(
            &http.get(format!("{api}/dev/outbox?to={contact}")).send().await.unwrap().bytes().await.unwrap(),
        )
        .unwrap();
        let code = outbox["messages"][0]["code"].as_str().expect("a code in the outbox");
        let verified = post("/auth/otp/verify", json!({ "contact": contact, "code": code })).await.unwrap();
        let verified: Value = serde_json::from_slice(&verified.bytes().await.unwrap()).unwrap();
        let token = verified["token"].as_str().expect("a token").to_string();
        Admin { http, api, token }
    }

    async fn get(&self, path: &str) -> Value {
        let answer = self.http.get(format!("{}{path}", self.api)).bearer_auth(&self.token).send().await.unwrap();
        assert!(answer.status().is_success(), "GET {path}: {}", answer.status());
        serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap()
    }
}

/// `count` points spread on a small ring around `centre` (km).
fn ring(centre: (f64, f64), count: usize, km: f64) -> Vec<(f64, f64)> {
    (0..count)
        .map(|index| {
            let angle = index as f64 * 2.399_963;
            let radius = km * (0.6 + 0.4 * (index % 3) as f64 / 2.0);
            let lat = centre.0 + radius * angle.cos() / 111.195;
            let lng = centre.1 + radius * angle.sin() / (111.195 * centre.0.to_radians().cos());
            (lat, lng)
        })
        .collect()
}

/// Fells Point, in the demo map: where the cars wait and most riders are.
const CENTRE: (f64, f64) = (39.2860, -76.5800);
/// Bayview, about 3.5 km east: no driver there ever takes a booking.
const FAR: (f64, f64) = (39.2950, -76.5420);

fn write_scenario(directory: &Path) -> PathBuf {
    // Five rides near the cars, 15 scenario seconds apart, to places about
    // a kilometre away; one far one in the middle.
    let pickups = ring(CENTRE, 5, 0.15);
    let drops = ring(CENTRE, 5, 1.0);
    let mut requests = String::from("request_id,o_lat,o_lon,d_lat,d_lon,departure_time,passengers\n");
    let start = 1_767_254_400;
    for (index, (pickup, drop)) in pickups.iter().zip(&drops).enumerate() {
        let at = start + 15 * index as i64;
        requests.push_str(&format!("near{index},{},{},{},{},{at},1\n", pickup.0, pickup.1, drop.0, drop.1));
        if index == 2 {
            let (lat, lng) = FAR;
            requests.push_str(&format!("far,{lat},{lng},{},{},{},1\n", lat - 0.004, lng + 0.002, at + 5));
        }
    }
    let mut vehicles = String::from("vehicle_id,lat,lon\n");
    for (index, (lat, lng)) in ring(CENTRE, 10, 0.3).iter().enumerate() {
        vehicles.push_str(&format!("v{index},{lat},{lng}\n"));
    }
    std::fs::write(directory.join("requests.csv"), requests).unwrap();
    std::fs::write(directory.join("vehicles.csv"), vehicles).unwrap();
    // Drivers take what is near: the chance of yes falls by half per km, so
    // none ever takes the far ride and its rider gives up.
    let scenario = r#"
name = "live mode test"
network = "straight-line"
requests = "requests.csv"
vehicles = "vehicles.csv"
seed = 11
boarding_s = 30

[drivers]
accept_probability = 1.0
accept_decay_per_km = 0.5
respond_min_s = 2
respond_max_s = 12

[riders]
cancel_after_s = 90
"#;
    let path = directory.join("scenario.toml");
    std::fs::write(&path, scenario).unwrap();
    path
}

fn count(summary: &Value, field: &str) -> u64 {
    summary[field].as_u64().unwrap_or_else(|| panic!("no {field} in the summary: {summary}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_mode_plays_a_scenario_on_a_real_server_which_records_what_its_summary_says() {
    let directory = tempfile::tempdir().unwrap();
    // 24 demo drivers: every third (1, 4, …, 22) drives Economy, the
    // scenario's car type, so 8 of the 10 vehicles can be played. `waves`:
    // at 30× the default `batch` window (5 s) is 150 scenario seconds, longer
    // than these riders wait. The policy is the server's, not live mode's;
    // `batch` through the real routes is tested in routes/dispatch.rs.
    let server = Server::start(
        directory.path(),
        &[("WAYFARE_DEMO_SEED__DRIVERS", "24"), ("WAYFARE_DEMO_SEED__DISPATCH_POLICY", "waves")],
    );
    let scenario = write_scenario(directory.path());
    let out = directory.path().join("out");

    let started = Instant::now();
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_wayfare"))
        .arg("simulate")
        .arg(&scenario)
        .args(["--live", &server.url(), "--speed", "30", "--out"])
        .arg(&out)
        .arg("--data-dir")
        .arg(directory.path().join("cli-data"))
        .stdin(Stdio::null())
        .output();
    let run = tokio::time::timeout(Duration::from_secs(120), run).await.expect("the live run ends").unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    println!("{printed}\nlive run: {:.1} s", started.elapsed().as_secs_f64());
    assert!(run.status.success(), "the live run failed ({})\n{printed}\n{}", run.status, server.log_tail());
    assert!(printed.contains("completed"), "the summary is printed: {printed}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(out.join("live.json")).unwrap()).unwrap();

    assert_eq!(summary["drivers"], 8, "the fleet of 10 is capped by the server's 8 Economy drivers");
    assert_eq!(summary["car_type"], "Economy");
    assert_eq!(count(&summary, "requests"), 6);
    assert_eq!(count(&summary, "booked"), 6);
    assert_eq!(summary["errors"], json!({}), "no call refused");
    assert_eq!(count(&summary, "server_errors"), 0);
    assert!(count(&summary, "positions_sent") > 8, "the drivers streamed positions");

    let admin = Admin::sign_in(&server.url()).await;
    let drivers = admin.get("/users?role=driver&search=demo.wayfare&limit=500").await;
    let economy: BTreeMap<String, String> = drivers["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|driver| driver["carType"] == "Economy")
        .map(|driver| (driver["id"].as_str().unwrap().to_string(), driver["email"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(economy.len(), 8);
    for driver in drivers["items"].as_array().unwrap() {
        assert_eq!(driver["driverActiveStatus"], false, "{} went offline at the end", driver["email"]);
    }

    // Every booking on the server is one of the run's, as the run tells it.
    let listed = admin.get("/bookings?limit=500").await;
    let on_server: BTreeMap<String, Value> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|booking| (booking["id"].as_str().unwrap().to_string(), booking.clone()))
        .collect();
    let played = summary["bookings"].as_array().unwrap();
    assert_eq!(
        on_server.keys().cloned().collect::<BTreeSet<_>>(),
        played.iter().map(|b| b["booking"].as_str().unwrap().to_string()).collect()
    );
    let (mut completed, mut cancelled) = (0, 0);
    for booking in played {
        let id = booking["booking"].as_str().unwrap();
        let server_side = &on_server[id];
        let request = booking["request"].as_str().unwrap();
        match booking["outcome"].as_str().unwrap() {
            "completed" => {
                completed += 1;
                assert!(
                    ["PAID", "COMPLETE"].contains(&server_side["status"].as_str().unwrap()),
                    "{request}: {server_side}"
                );
                let driver = server_side["driver"].as_str().expect("a driver");
                assert_eq!(
                    Some(&economy[driver]),
                    booking["driver"].as_str().map(str::to_string).as_ref(),
                    "{request}"
                );
                assert_eq!(server_side["payment_mode"], "cash");
                assert!(server_side["trip_cost"].as_f64().unwrap() > 0.0, "{request} was priced: {server_side}");
            }
            "cancelled_by_rider" => {
                cancelled += 1;
                assert_eq!(server_side["status"], "CANCELLED", "{request}: {server_side}");
                assert_eq!(server_side["cancelledBy"], "rider", "{request}");
                assert!(server_side["driver"].is_null(), "{request} was given up before any driver took it");
            }
            other => panic!("{request} ended {other}: {server_side}"),
        }
    }
    let far = played.iter().find(|booking| booking["request"] == "far").expect("the far request was booked");
    assert_eq!(far["outcome"], "cancelled_by_rider", "nobody takes a ride 3 km away; its rider gives up");
    assert!(completed >= 3, "most near rides are driven: {completed}");
    assert_eq!((completed, cancelled), (count(&summary, "completed"), count(&summary, "cancelled")));

    // The dispatch log agrees with what the drivers saw and answered.
    let (mut offered, mut accepted, mut declined) = (0, 0, 0);
    for id in on_server.keys() {
        let timeline = admin.get(&format!("/bookings/{id}/dispatch")).await;
        for entry in timeline["items"].as_array().unwrap() {
            let drivers: Vec<&str> =
                entry["drivers"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            assert!(drivers.iter().all(|driver| economy.contains_key(*driver)), "only played drivers: {entry}");
            match entry["kind"].as_str().unwrap() {
                "offered" => offered += drivers.len() as u64,
                "accepted" => accepted += 1,
                "withdrawn" if entry["reason"] == "declined" => declined += drivers.len() as u64,
                _ => {}
            }
        }
    }
    assert_eq!(offered, count(&summary, "offers_seen"), "every offer reached a driver's socket");
    assert_eq!(accepted, count(&summary, "accepted"));
    assert_eq!(declined, count(&summary, "declined"));
    assert!(declined >= 3, "the far ride was declined by every driver it was offered to");
    assert_eq!(accepted, completed);
}
