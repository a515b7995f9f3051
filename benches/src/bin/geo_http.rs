//! Geo calls through HTTP on a running `wayfare serve --demo` (issue #14,
//! docs/benchmarks.md), one request at a time from one keep-alive
//! connection: `/healthz` (the floor: routing, auth and JSON cost nothing
//! there), `/api/v1/geo/directions` between random points of the demo city,
//! and the basemap's tiles of zooms 12 to 14 over the city, first cut then
//! cached. Prints p50, p99 and max of each.
//!   cargo run --release -p wayfare-benches --bin geo_http -- http://127.0.0.1:8080

use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn percentiles(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let at = |share: f64| samples[((samples.len() as f64 * share) as usize).min(samples.len() - 1)];
    format!("p50 {:?}, p99 {:?}, max {:?} ({} requests)", at(0.5), at(0.99), at(1.0), samples.len())
}

async fn json(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.expect("a body")).expect("JSON")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:8080".to_owned());
    let client = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        client.post(format!("{server}{path}")).header("content-type", "application/json").body(body.to_string())
    };
    let contact = "rider3@demo.wayfare";
    post("/api/v1/auth/otp/request", json!({ "contact": contact })).send().await.expect("the server answers");
    let outbox = json(client.get(format!("{server}/api/v1/dev/outbox?to={contact}")).send().await.unwrap()).await;
    let code = outbox["messages"][0]["code"].as_str().expect("a code: is this `wayfare serve --demo`?").to_owned();
    let signed =
        json(post("/api/v1/auth/otp/verify", json!({ "contact": contact, "code": code })).send().await.unwrap()).await;
    let token = signed["token"].as_str().expect("a token").to_owned();

    let mut state = 0x5EED_u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1_000_000) as f64 / 1_000_000.0
    };
    let mut point = || json!({ "lat": 39.262 + random() * 0.041, "lng": -76.605 + random() * 0.070 });

    let mut floor = Vec::new();
    let mut directions = Vec::new();
    let mut refused = 0;
    for index in 0..2200 {
        let started = Instant::now();
        client.get(format!("{server}/healthz")).send().await.unwrap().bytes().await.unwrap();
        let healthz = started.elapsed();
        let body = json!({ "start": point(), "dest": point() });
        let started = Instant::now();
        let reply = post("/api/v1/geo/directions", body).bearer_auth(&token).send().await.unwrap();
        let ok = reply.status().is_success();
        reply.bytes().await.unwrap();
        let took = started.elapsed();
        refused += usize::from(!ok);
        // The first 200 warm up the connection and the server.
        if index >= 200 {
            floor.push(healthz);
            directions.push(took);
        }
    }
    println!("healthz (the floor): {}", percentiles(floor));
    println!("directions: {}; {refused} answered an error", percentiles(directions));

    let style = json(client.get(format!("{server}/api/v1/geo/basemap/style.json")).send().await.unwrap()).await;
    let template = style["sources"]["basemap"]["tiles"][0].as_str().expect("a basemap").to_owned();
    let bounds: Vec<f64> =
        style["sources"]["basemap"]["bounds"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let tile = |lng: f64, lat: f64, zoom: i32| {
        let n = 2f64.powi(zoom);
        let radians = lat.to_radians();
        let x = ((lng + 180.0) / 360.0 * n) as u32;
        let y = ((1.0 - (radians.tan() + 1.0 / radians.cos()).ln() / std::f64::consts::PI) / 2.0 * n) as u32;
        (x, y)
    };
    let mut urls = Vec::new();
    for zoom in 12..=14 {
        let (x0, y0) = tile(bounds[0], bounds[3], zoom);
        let (x1, y1) = tile(bounds[2], bounds[1], zoom);
        for x in x0..=x1 {
            for y in y0..=y1 {
                urls.push(
                    template
                        .replace("{z}", &zoom.to_string())
                        .replace("{x}", &x.to_string())
                        .replace("{y}", &y.to_string()),
                );
            }
        }
    }
    for pass in ["first request (cut)", "again (cached)"] {
        let mut samples = Vec::new();
        let mut bytes = 0;
        for url in &urls {
            let started = Instant::now();
            bytes += client.get(url).send().await.unwrap().bytes().await.unwrap().len();
            samples.push(started.elapsed());
        }
        println!(
            "tiles, {pass}: {}; {:.1} KiB a tile on average",
            percentiles(samples),
            bytes as f64 / urls.len() as f64 / 1024.0
        );
    }
}
