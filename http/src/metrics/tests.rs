use super::*;
use crate::test_support::TestApp;
use axum::http::Method;
use serde_json::{Value, json};
use std::time::Duration;

/// The sample lines of one metric (`name{labels} value` or `name value`).
fn samples<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter(|line| line.strip_prefix(name).is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' ')))
        .collect()
}

async fn scrape_text(app: &TestApp) -> String {
    let answer = app.call(Method::GET, "/metrics", None, None).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.content_type.starts_with("text/plain"), "{}", answer.content_type);
    answer.text
}

#[tokio::test]
async fn requests_are_counted_and_timed_by_method_matched_route_and_status() {
    let app = TestApp::demo().await;
    let booking = uuid::Uuid::now_v7();
    app.call(Method::GET, "/healthz", None, None).await;
    app.call(Method::GET, &format!("/api/v1/bookings/{booking}"), None, None).await;
    app.call(Method::GET, "/no/such/page", None, None).await;
    let text = scrape_text(&app).await;

    let health = r#"wayfare_http_requests_total{method="GET",route="/healthz",status="200"}"#;
    assert!(text.lines().any(|line| line.starts_with(health)), "{text}");
    // The route template, not the path with the id.
    let read = r#"wayfare_http_requests_total{method="GET",route="/api/v1/bookings/{id}",status="401"}"#;
    assert!(text.lines().any(|line| line.starts_with(read)), "{text}");
    assert!(!text.contains(&booking.to_string()), "a raw path leaked into a label");
    assert!(!text.contains("/no/such/page"));
    assert!(text.contains(r#"route="unmatched",status="404""#), "{text}");
    let bucket = r#"wayfare_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="#;
    assert!(text.lines().any(|line| line.starts_with(bucket)), "a histogram with buckets: {text}");
    assert!(text.contains("# TYPE wayfare_http_request_duration_seconds histogram"));
}

#[tokio::test]
async fn runtime_gauges_are_read_at_each_scrape() {
    let app = TestApp::demo().await;
    let text = scrape_text(&app).await;
    for gauge in [ONLINE_DRIVERS, AVAILABLE_DRIVERS, ACTIVE_BOOKINGS, PENDING_TIMERS] {
        assert_eq!(samples(&text, gauge).len(), 1, "{gauge}: {text}");
    }
    for actor in ["booking", "driver"] {
        let restarts = format!(r#"{ACTOR_RESTARTS}{{actor="{actor}"}} "#);
        assert!(text.lines().any(|line| line.starts_with(&restarts)), "{restarts}: {text}");
    }
    assert!(text.contains(r#"wayfare_active_bookings_by_status{status="NEW"}"#), "{text}");
    assert!(!text.contains(r#"status="COMPLETE"}"#), "only active statuses");
    // The demo runs on SQLite, whose caches and statements take memory.
    assert_eq!(app.state.storage.backend(), Backend::Sqlite);
    let sqlite = samples(&text, SQLITE_MEMORY);
    let bytes: f64 =
        sqlite.first().and_then(|line| line.rsplit(' ').next()).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    assert!(bytes > 100_000.0, "SQLite's memory: {sqlite:?}");
}

#[tokio::test]
async fn the_first_offer_of_a_booking_is_timed_from_its_creation() {
    let app = TestApp::demo().await;
    // driver1 drives an Economy car near downtown.
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let online = app
        .call(Method::POST, "/api/v1/drivers/me/status", Some(&driver), Some(json!({ "driverActiveStatus": true })))
        .await;
    assert_eq!(online.status, StatusCode::OK, "{}", online.text);
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver_one = crate::demo::users().into_iter().find(|user| user.email == "driver1@demo.wayfare").unwrap();
    let position = driver_one.location.unwrap();
    let trip = json!({
        "pickup": { "lat": position.lat, "lng": position.lng, "add": "Pickup" },
        "drop": { "lat": 39.2904, "lng": -76.6122, "add": "Inner Harbor, Baltimore" },
        "carType": "Economy",
    });
    let created = app.call(Method::POST, "/api/v1/bookings", Some(&rider), Some(trip)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);

    // The observer is a task of its own: wait for it to see the offer.
    let count = format!("{DISPATCH_LATENCY}_count");
    let observed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let text = scrape_text(&app).await;
            let seen = samples(&text, &count)
                .first()
                .and_then(|line| line.rsplit(' ').next())
                .and_then(|value| value.parse::<f64>().ok());
            if seen.is_some_and(|value| value >= 1.0) {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the offer is observed");
    assert!(observed.contains(&format!("{DISPATCH_LATENCY}_bucket{{le=")), "{observed}");
    assert!(observed.contains("# TYPE wayfare_dispatch_latency_seconds histogram"));
    assert_eq!(samples(&observed, ONLINE_DRIVERS).len(), 1);
}

#[test]
fn installing_twice_gives_the_same_recorder() {
    assert!(std::ptr::eq(install(), install()));
}

#[test]
fn unusual_methods_share_one_label() {
    assert_eq!(method_label(&Method::GET), "GET");
    assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
}

/// docs/grafana/wayfare.json charts and docs/operations.md's table explains
/// these names: a metric renamed here must be renamed there.
#[test]
fn the_dashboard_and_the_operations_page_name_only_metrics_the_server_exports() {
    let exported = [
        HTTP_REQUESTS,
        HTTP_DURATION,
        ONLINE_DRIVERS,
        AVAILABLE_DRIVERS,
        ACTIVE_BOOKINGS,
        ACTIVE_BOOKINGS_BY_STATUS,
        DISPATCH_LATENCY,
        ACTOR_RESTARTS,
        PENDING_TIMERS,
        CLUSTER_LINK_UP,
        CLUSTER_FORWARDED,
        CLUSTER_TAKEN_OVER,
        SQLITE_MEMORY,
    ];
    // Every name a query or a table row of the page uses, a histogram's
    // series suffix taken off.
    let names = |texts: Vec<String>| -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        for text in texts {
            for (start, _) in text.match_indices("wayfare_") {
                let name: String = text[start..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                let base = ["_bucket", "_count", "_sum"]
                    .iter()
                    .find_map(|suffix| name.strip_suffix(suffix).filter(|base| exported.contains(base)))
                    .unwrap_or(&name)
                    .to_string();
                names.insert(base);
            }
        }
        names
    };
    let dashboard: Value = serde_json::from_str(include_str!("../../../docs/grafana/wayfare.json")).unwrap();
    let mut queries = Vec::new();
    let mut stack = vec![&dashboard];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(fields) => {
                if let Some(Value::String(expr)) = fields.get("expr") {
                    queries.push(expr.clone());
                }
                stack.extend(fields.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    let charted = names(queries);
    for name in &charted {
        assert!(exported.contains(&name.as_str()), "the dashboard queries {name}, which the server does not export");
    }
    let missing: Vec<_> = exported.iter().filter(|metric| !charted.contains(**metric)).collect();
    assert!(missing.is_empty(), "the dashboard charts nothing of {missing:?}");

    let rows = include_str!("../../../docs/operations.md").lines().filter(|line| line.starts_with("| `wayfare_"));
    let explained = names(rows.map(str::to_string).collect());
    assert_eq!(explained, exported.iter().map(|name| name.to_string()).collect(), "docs/operations.md's metrics table");
}
