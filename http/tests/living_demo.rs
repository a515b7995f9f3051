//! The living demo (issue #35) as a newcomer meets it: a fresh
//! `wayfare serve --demo` on an empty data directory, with nothing else
//! started. Its demo drivers come online and drive; a booking made by the
//! people's `rider1` is taken by a demo driver and driven to the end; the
//! seeded history fills the dashboard and the earnings report; the people's
//! accounts are never played; and the panel's switch stops it.
//!
//! Drives and boarding run 20 times faster than real time
//! (`demo_seed.living_speed`), so a trip takes seconds; offers and the
//! server's timers keep real time.

use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

mod demo_server;
use demo_server::Server;

struct Client {
    http: reqwest::Client,
    api: String,
}

impl Client {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.api));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let answer = request.send().await.expect("the server answers");
        let status = answer.status().as_u16();
        let bytes = answer.bytes().await.expect("a body");
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str, token: &str) -> Value {
        let (status, body) = self.call(reqwest::Method::GET, path, Some(token), None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    async fn post(&self, path: &str, token: &str, body: Value) -> Value {
        let (status, answer) = self.call(reqwest::Method::POST, path, Some(token), Some(body)).await;
        assert!((200..300).contains(&status), "POST {path}: {status} {answer}");
        answer
    }

    async fn sign_in(&self, contact: &str) -> String {
        let (status, _) =
            self.call(reqwest::Method::POST, "/auth/otp/request", None, Some(json!({ "contact": contact }))).await;
        assert_eq!(status, 200, "code for {contact}");
        let (_, outbox) = self.call(reqwest::Method::GET, &format!("/dev/outbox?to={contact}"), None, None).await;
        let code = outbox["messages"][0]["code"].as_str().expect("a code in the dev outbox").to_string();
        let body = json!({ "contact": contact, "code": code });
        let (status, signed_in) = self.call(reqwest::Method::POST, "/auth/otp/verify", None, Some(body)).await;
        assert_eq!(status, 200, "sign-in of {contact}: {signed_in}");
        signed_in["token"].as_str().expect("a token").to_string()
    }

    /// Every driver, by id: (e-mail, online, position).
    async fn drivers(&self, admin: &str) -> HashMap<String, (String, bool, Option<(f64, f64)>)> {
        let page = self.get("/users?role=driver&limit=500", admin).await;
        page["items"]
            .as_array()
            .expect("a page of drivers")
            .iter()
            .map(|driver| {
                let position = driver["location"]["lat"].as_f64().zip(driver["location"]["lng"].as_f64());
                let online = driver["driverActiveStatus"].as_bool().unwrap_or(false);
                let email = driver["email"].as_str().unwrap_or_default().to_string();
                (driver["id"].as_str().unwrap_or_default().to_string(), (email, online, position))
            })
            .collect()
    }
}

fn people(role: &str) -> [String; 3] {
    [1, 2, 3].map(|number| format!("{role}{number}@demo.wayfare"))
}

/// Metres from `point` to the nearest segment of `line` (flat earth: a few km).
fn metres_from_line(point: (f64, f64), line: &[(f64, f64)]) -> f64 {
    let scale = (111_195.0, 111_195.0 * point.0.to_radians().cos());
    let flat = |(lat, lng): (f64, f64)| ((lat - point.0) * scale.0, (lng - point.1) * scale.1);
    line.windows(2)
        .map(|pair| {
            let (a, b) = (flat(pair[0]), flat(pair[1]));
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let length = dx * dx + dy * dy;
            let t = if length > 0.0 { (-(a.0 * dx + a.1 * dy) / length).clamp(0.0, 1.0) } else { 0.0 };
            let (x, y) = (a.0 + t * dx, a.1 + t * dy);
            (x * x + y * y).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_demo_is_a_city_at_work_that_serves_a_person_and_stops_when_switched_off() {
    let directory = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let server = Server::start(
        directory.path(),
        &[
            ("WAYFARE_DEMO_SEED__LIVING", "true"),
            ("WAYFARE_DEMO_SEED__HISTORY_DAYS", "14"),
            ("WAYFARE_DEMO_SEED__LIVING_SPEED", "20"),
        ],
    );
    let client = Client { http: reqwest::Client::new(), api: format!("{}/api/v1", server.url()) };
    let admin = client.sign_in("admin@demo.wayfare").await;
    let people_drivers = people("driver");

    // Within 60 s of the start at least ten demo drivers are online, and they move.
    let mut moved: HashSet<String> = HashSet::new();
    let mut first_seen: HashMap<String, (f64, f64)> = HashMap::new();
    let online = loop {
        let drivers = client.drivers(&admin).await;
        for (id, (_, online, position)) in &drivers {
            if let (true, Some(position)) = (online, position) {
                let first = *first_seen.entry(id.clone()).or_insert(*position);
                if (first.0 - position.0).abs() + (first.1 - position.1).abs() > 1e-5 {
                    moved.insert(id.clone());
                }
            }
        }
        let online: Vec<&String> = drivers.iter().filter(|(_, driver)| driver.1).map(|(_, driver)| &driver.0).collect();
        if (online.len() >= 10 && moved.len() >= 10) || started.elapsed() > Duration::from_secs(90) {
            break online.len();
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    assert!(online >= 10, "{online} drivers online after {:?}", started.elapsed());
    assert!(moved.len() >= 10, "{} drivers moved after {:?}", moved.len(), started.elapsed());
    assert!(started.elapsed() <= Duration::from_secs(90), "the city took {:?} to come alive", started.elapsed());

    // The seeded history fills the dashboard and the earnings report.
    let dashboard = client.get("/dashboard/earnings", &admin).await;
    assert!(dashboard["rides"]["total"].as_u64().unwrap_or(0) >= 100, "two weeks of rides: {dashboard}");
    let total: f64 = dashboard["total"].as_f64().or_else(|| dashboard["total"].as_str()?.parse().ok()).unwrap_or(0.0);
    assert!(total > 0.0, "the dashboard's total: {dashboard}");
    let report = client.get("/reports/earnings", &admin).await;
    let rows = report["rows"].as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty(), "the earnings report has rows: {report}");
    let earnings = client.get("/reports/driver-earnings", &admin).await;
    assert!(!earnings["rows"].as_array().cloned().unwrap_or_default().is_empty(), "driver earnings: {earnings}");

    // A person books as rider1 and is driven to the end by a demo driver.
    let rider = client.sign_in("rider1@demo.wayfare").await;
    let body = json!({
        "pickup": { "lat": 39.2850, "lng": -76.5900, "add": "" },
        "drop": { "lat": 39.2930, "lng": -76.6080, "add": "" },
        "carType": "Economy",
        "bookLater": false,
        "payment_mode": "cash",
    });
    let booking = client.post("/bookings", &rider, body).await;
    let id = booking["id"].as_str().expect("a booking id").to_string();
    let booked = Instant::now();
    let mut accepted_after = None;
    let seen = loop {
        let seen = client.get(&format!("/bookings/{id}"), &rider).await;
        let status = seen["status"].as_str().unwrap_or_default().to_string();
        if accepted_after.is_none() && !matches!(status.as_str(), "NEW" | "CANCELLED") {
            accepted_after = Some(booked.elapsed());
        }
        if status == "PAID" || status == "CANCELLED" || booked.elapsed() > Duration::from_secs(240) {
            break seen;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    assert_eq!(seen["status"], "PAID", "rider1's trip: {seen}");
    let accepted_after = accepted_after.expect("accepted");
    assert!(accepted_after <= Duration::from_secs(60), "accepted after {accepted_after:?}");
    assert!(!seen["demo"].as_bool().unwrap_or(true), "a person's booking is not demo traffic");
    let driver = seen["driver"].as_str().expect("a driver").to_string();
    let drivers = client.drivers(&admin).await;
    let driver_email = &drivers[&driver].0;
    assert!(!people_drivers.contains(driver_email), "driven by a demo driver, not {driver_email}");
    let rated = client.post(&format!("/bookings/{id}/rate"), &rider, json!({ "rating": 5 })).await;
    assert_eq!(rated["status"], "COMPLETE");

    // The demo driver drove the booked route: its track lies on the roads.
    let coords: Vec<(f64, f64)> = seen["coords"]
        .as_array()
        .expect("the booked route")
        .iter()
        .map(|coord| (coord["latitude"].as_f64().unwrap(), coord["longitude"].as_f64().unwrap()))
        .collect();
    let tracking = client.get(&format!("/bookings/{id}/tracking"), &admin).await;
    let points: Vec<(f64, f64)> = tracking["points"]
        .as_array()
        .expect("tracking points")
        .iter()
        // On board: before, the driver came from wherever it was.
        .filter(|point| matches!(point["status"].as_str(), Some("STARTED" | "REACHED")))
        .filter_map(|point| point["lat"].as_f64().zip(point["lng"].as_f64()))
        .collect();
    assert!(points.len() >= 3, "a track: {tracking}");
    for point in &points {
        let off = metres_from_line(*point, &coords);
        assert!(off < 40.0, "{point:?} is {off:.0} m off the route");
    }

    // The demo's traffic is marked; some was booked by the demo riders meanwhile.
    let recent = client.get("/bookings?sort=bookingDate&limit=100", &admin).await;
    let recent = recent["items"].as_array().expect("bookings").clone();
    assert!(recent.iter().any(|booking| booking["demo"] == true), "demo bookings are marked");

    // The people's accounts were never played.
    for contact in people("rider").iter().skip(1).chain(people_drivers.iter()) {
        let token = client.sign_in(contact).await;
        let theirs = client.get("/bookings?limit=5", &token).await;
        assert_eq!(theirs["items"].as_array().map(Vec::len), Some(0), "{contact} has bookings: {theirs}");
    }
    let drivers = client.drivers(&admin).await;
    for (email, online, _) in drivers.values() {
        if people_drivers.contains(email) {
            assert!(!online, "{email} was taken online");
        }
    }

    // Switched off: no new demo bookings, and every demo driver offline within a minute.
    let (status, answer) =
        client.call(reqwest::Method::PATCH, "/settings", Some(&admin), Some(json!({ "livingDemo": false }))).await;
    assert_eq!(status, 200, "{answer}");
    let off_at = epoch_ms();
    let switched = Instant::now();
    loop {
        let online = client.drivers(&admin).await.values().filter(|driver| driver.1).count();
        if online == 0 {
            break;
        }
        assert!(switched.elapsed() < Duration::from_secs(60), "{online} drivers still online a minute after");
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    // Settings are read every few seconds: anything booked later than that is not the demo's.
    tokio::time::sleep(Duration::from_secs(10)).await;
    let recent = client.get("/bookings?sort=bookingDate&limit=20", &admin).await;
    for booking in recent["items"].as_array().expect("bookings") {
        let at = booking["bookingDate"].as_i64().unwrap_or(0);
        assert!(at <= off_at + 6_000 || booking["demo"] != true, "a demo booking after the switch: {booking}");
    }
    let active = client.get("/bookings?active=true&limit=50", &admin).await;
    let waiting: Vec<&Value> =
        active["items"].as_array().expect("bookings").iter().filter(|booking| booking["status"] == "NEW").collect();
    assert!(waiting.is_empty(), "demo riders left bookings waiting: {waiting:?}");
    drop(server);
}

/// The server runs on this machine: its clock is this one.
fn epoch_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// With the living demo off, the demo's accounts are people's to use: the
/// player touches nothing it did not put online (the browser and realtime
/// tests drive `driver4` and others themselves).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switched_off_the_demo_leaves_its_drivers_to_whoever_drives_them() {
    let directory = tempfile::tempdir().unwrap();
    let server = Server::start(directory.path(), &[("WAYFARE_DEMO_SEED__LIVING", "false")]);
    let client = Client { http: reqwest::Client::new(), api: format!("{}/api/v1", server.url()) };
    let admin = client.sign_in("admin@demo.wayfare").await;
    let driver = client.sign_in("driver4@demo.wayfare").await;
    client.post("/drivers/me/status", &driver, json!({ "driverActiveStatus": true })).await;
    // Longer than the player takes to read the switch.
    tokio::time::sleep(Duration::from_secs(8)).await;
    let drivers = client.drivers(&admin).await;
    let online: Vec<&String> = drivers.values().filter(|driver| driver.1).map(|driver| &driver.0).collect();
    assert_eq!(online, vec!["driver4@demo.wayfare"], "only the person's driver is online");
    let recent = client.get("/bookings?limit=5", &admin).await;
    assert_eq!(recent["items"].as_array().map(Vec::len), Some(0), "no demo bookings: {recent}");
    drop(server);
}
