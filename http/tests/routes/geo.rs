//! The geo calls of spec §7 under `/api/v1/geo`, through the straight-line
//! provider and the Baltimore gazetteer.

use crate::support::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn autocomplete_answers_search_results_shaped_like_predictions() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let reply = app
        .post(
            "/api/v1/geo/autocomplete",
            Some(&rider),
            json!({ "searchKeyword": "fort mchenry", "near": { "lat": 39.28, "lng": -76.6 } }),
        )
        .await;
    let results = reply.expect(200)["searchResults"].as_array().unwrap();
    let first = &results[0];
    assert_eq!(first["place_id"], "bmore:fort-mchenry");
    for field in ["description", "main_text", "secondary_text"] {
        assert!(first[field].as_str().is_some_and(|text| !text.is_empty()), "{field}: {first}");
    }
    let none = app.post("/api/v1/geo/autocomplete", Some(&rider), json!({ "searchKeyword": "zzzzqqq" })).await;
    assert_eq!(none.expect(200), &json!({ "searchResults": [] }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_place_id_resolves_to_coordinates_and_an_unknown_one_is_place_to_coords_error() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let reply = app.post("/api/v1/geo/place", Some(&rider), json!({ "place_id": "bmore:inner-harbor" })).await;
    let place = reply.expect(200);
    assert_eq!(place["coords"], json!({ "lat": 39.2861, "lng": -76.6072 }));
    assert_eq!(place["place_id"], "bmore:inner-harbor");
    assert!(place["address"].as_str().unwrap().contains("E Pratt St"));
    app.post("/api/v1/geo/place", Some(&rider), json!({ "place_id": "bmore:atlantis" }))
        .await
        .refused(400, "place_to_coords_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinates_resolve_to_an_address() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let near =
        app.post("/api/v1/geo/address", Some(&rider), json!({ "latlng": { "lat": 39.26532, "lng": -76.57961 } })).await;
    assert!(near.expect(200)["address"].as_str().unwrap().contains("2400 E Fort Ave"));
    let far = app.post("/api/v1/geo/address", Some(&rider), json!({ "latlng": { "lat": 39.4, "lng": -76.4 } })).await;
    assert_eq!(far.expect(200), &json!({ "address": "39.40000, -76.40000" }));
    let off_earth = json!({ "latlng": { "lat": 123.0, "lng": 0.0 } });
    app.post("/api/v1/geo/address", Some(&rider), off_earth).await.refused_on(400, "invalid_input", "latlng");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directions_take_up_to_twenty_five_waypoints() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let start = json!({ "lat": 39.282, "lng": -76.5933 });
    let dest = json!({ "lat": 39.26532, "lng": -76.57961 });
    let reply = app.post("/api/v1/geo/directions", Some(&rider), json!({ "start": start, "dest": dest })).await;
    let route = reply.expect(200);
    assert!(route["distance_in_km"].as_f64().unwrap() > 2.0);
    assert!(route["time_in_secs"].as_u64().unwrap() > 0);
    assert!(route["polylinePoints"].as_str().is_some_and(|line| !line.is_empty()));
    assert_eq!(route["coords"][0], json!({ "latitude": 39.282, "longitude": -76.5933 }));
    let waypoints = |count: usize| -> Vec<Value> {
        (0..count).map(|step| json!({ "lat": 39.28 - step as f64 * 0.0005, "lng": -76.59 })).collect()
    };
    let twenty_five = json!({ "start": start, "dest": dest, "waypoints": waypoints(25) });
    let reply = app.post("/api/v1/geo/directions", Some(&rider), twenty_five).await;
    assert_eq!(reply.expect(200)["coords"].as_array().unwrap().len(), 27);
    let twenty_six = json!({ "start": start, "dest": dest, "waypoints": waypoints(26) });
    app.post("/api/v1/geo/directions", Some(&rider), twenty_six).await.refused(400, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_distance_matrix_has_a_row_per_origin() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let a = json!({ "lat": 39.282, "lng": -76.5933 });
    let b = json!({ "lat": 39.2861, "lng": -76.6072 });
    let c = json!({ "lat": 39.26532, "lng": -76.57961 });
    let reply = app.post("/api/v1/geo/matrix", Some(&rider), json!({ "start": [a, b], "dest": [c] })).await;
    let rows = reply.expect(200)["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].as_array().unwrap().len(), 1);
    assert!(rows[0][0]["distance_km"].as_f64().unwrap() > 0.0 && rows[0][0]["time_secs"].as_u64().unwrap() > 0);
    let many: Vec<Value> = (0..26).map(|_| a.clone()).collect();
    let too_large = json!({ "start": many, "dest": (0..25).map(|_| c.clone()).collect::<Vec<Value>>() });
    app.post("/api/v1/geo/matrix", Some(&rider), too_large).await.refused(400, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_geo_bodies_are_invalid_input() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    for path in [
        "/api/v1/geo/autocomplete",
        "/api/v1/geo/place",
        "/api/v1/geo/address",
        "/api/v1/geo/directions",
        "/api/v1/geo/matrix",
    ] {
        app.post(path, Some(&rider), json!({ "nonsense": true })).await.refused_on(400, "invalid_input", "body");
        app.post_raw(path, Some(&rider), "application/json", "[").await.refused_on(400, "invalid_input", "body");
    }
}

/// Found by schemathesis: autocomplete took a `near` off the earth
/// (`lng: -181`) and the matrix answered `{"rows": [[]]}` for an origin off
/// the earth, both 200; directions answered `no_route_found` and the
/// address lookup `invalid_input` without a field. Every coordinate is now
/// checked first: `invalid_input` on the field that holds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinates_off_the_earth_are_invalid_input_on_their_field() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let here = json!({ "lat": 39.2858, "lng": -76.6097 });
    let table = [
        ("/api/v1/geo/autocomplete", json!({ "searchKeyword": "Fort", "near": { "lat": 0.0, "lng": -181 } }), "near"),
        ("/api/v1/geo/address", json!({ "latlng": { "lat": 90.5, "lng": 0.0 } }), "latlng"),
        ("/api/v1/geo/directions", json!({ "start": { "lat": -91, "lng": 0 }, "dest": here }), "start"),
        ("/api/v1/geo/directions", json!({ "start": here, "dest": { "lat": 0, "lng": 180.5 } }), "dest"),
        (
            "/api/v1/geo/directions",
            json!({ "start": here, "dest": here, "waypoints": [here, { "lat": 1e300, "lng": 0 }] }),
            "waypoints",
        ),
        ("/api/v1/geo/matrix", json!({ "start": [{ "lat": 0.0, "lng": -181 }], "dest": [] }), "start"),
        ("/api/v1/geo/matrix", json!({ "start": [here], "dest": [{ "lat": 95, "lng": 0 }] }), "dest"),
    ];
    for (path, body, field) in table {
        let reply = app.post(path, Some(&rider), body.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.error_code(), reply.error_field()),
            (400, "invalid_input", Some(field)),
            "{path} with {body}"
        );
    }
    // On the earth, the same calls answer.
    app.post("/api/v1/geo/autocomplete", Some(&rider), json!({ "searchKeyword": "Fort", "near": here }))
        .await
        .expect(200);
    app.post("/api/v1/geo/matrix", Some(&rider), json!({ "start": [here], "dest": [here] })).await.expect(200);
}

// ---- the basemap

async fn with_baltimore_map() -> TestApp {
    let mut setup = Setup::default();
    setup.config.maps.osm_file =
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/baltimore.osm.pbf"));
    TestApp::start(setup).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_basemap_style_names_tiles_on_the_host_the_browser_used_and_no_outside_fonts() {
    let app = with_baltimore_map().await;
    let request = |headers: &[(&str, &str)]| {
        let mut builder = axum::http::Request::builder().uri("/api/v1/geo/basemap/style.json");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    };
    // Public: a visitor's landing page draws it before signing in.
    let reply = app.send(request(&[("host", "rides.example:8080")])).await;
    let style = reply.expect(200);
    assert_eq!(style["version"], 8);
    let source = &style["sources"]["basemap"];
    assert_eq!(source["type"], "vector");
    assert_eq!(source["attribution"], "© OpenStreetMap contributors");
    assert_eq!(source["maxzoom"], 14);
    let tiles = source["tiles"][0].as_str().unwrap();
    assert!(tiles.starts_with("http://rides.example:8080/api/v1/geo/basemap/tiles/{z}/{x}/{y}?v="), "{tiles}");
    // Baltimore's box.
    let bounds: Vec<f64> = source["bounds"].as_array().unwrap().iter().map(|value| value.as_f64().unwrap()).collect();
    assert!(bounds[0] < -76.6 && bounds[2] > -76.5 && bounds[1] < 39.25 && bounds[3] > 39.3, "{bounds:?}");
    // Labels in the browser's fonts: no glyphs or sprite to fetch from anywhere.
    assert!(style.get("glyphs").is_none() && style.get("sprite").is_none());
    let layers: Vec<&str> =
        style["layers"].as_array().unwrap().iter().map(|layer| layer["id"].as_str().unwrap()).collect();
    for layer in ["water", "building", "road", "road-label-major", "place-label"] {
        assert!(layers.contains(&layer), "{layer} in {layers:?}");
    }
    assert_eq!(reply.header(axum::http::header::CACHE_CONTROL), Some("no-cache"));
    // Behind a proxy, the forwarded host and scheme.
    let reply = app
        .send(request(&[("host", "10.0.0.5"), ("x-forwarded-host", "rides.example"), ("x-forwarded-proto", "https")]))
        .await;
    let tiles = reply.expect(200)["sources"]["basemap"]["tiles"][0].as_str().unwrap().to_owned();
    assert!(tiles.starts_with("https://rides.example/api/v1/geo/basemap/tiles/"), "{tiles}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basemap_tiles_are_vector_tiles_cached_for_a_day_and_out_of_the_grid_is_not_found() {
    let app = with_baltimore_map().await;
    // The zoom-14 tile over Fells Point.
    let reply = app.get("/api/v1/geo/basemap/tiles/14/4706/6245", None).await;
    assert_eq!(reply.status.as_u16(), 200);
    assert_eq!(reply.header(axum::http::header::CONTENT_TYPE), Some("application/vnd.mapbox-vector-tile"));
    assert_eq!(reply.header(axum::http::header::CACHE_CONTROL), Some("public, max-age=86400"));
    let bytes = reply.body.as_str().map(str::len).unwrap_or_default();
    assert!(bytes > 10_000, "a city tile holds streets and buildings: {bytes} bytes");
    // Far from Baltimore: empty, not an error.
    let empty = app.get("/api/v1/geo/basemap/tiles/14/0/0", None).await;
    assert_eq!((empty.status.as_u16(), empty.body.clone()), (200, Value::Null));
    app.get("/api/v1/geo/basemap/tiles/15/9412/12490", None).await.refused(404, "not_found");
    app.get("/api/v1/geo/basemap/tiles/3/8/0", None).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_map_there_is_no_basemap() {
    let app = TestApp::demo().await;
    app.get("/api/v1/geo/basemap/style.json", None).await.refused(404, "not_found");
    app.get("/api/v1/geo/basemap/tiles/14/4706/6245", None).await.refused(404, "not_found");
}
