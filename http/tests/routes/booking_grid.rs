//! The panel's bookings grid on the server (spec §2 "Bookings"): sorted by
//! each column with cursors that page it, and the filtered set exported as
//! CSV and XLSX, scoped like the list and refused where the list says.

use crate::money_support::*;
use crate::support::*;
use calamine::{Data, Reader, Xlsx};
use serde_json::Value;
use std::io::Cursor;

fn ids(body: &Value) -> Vec<String> {
    body["items"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap().to_string()).collect()
}

/// Every page of `path` (which has a `?`), `limit` at a time.
async fn every_page(app: &TestApp, path: &str, limit: u32, who: &Session) -> Vec<Value> {
    let mut items = Vec::new();
    let mut after = String::new();
    loop {
        let reply = app.get(&format!("{path}&limit={limit}{after}"), Some(who)).await;
        let body = reply.expect(200).clone();
        items.extend(body["items"].as_array().unwrap().iter().cloned());
        match body["next"].as_str() {
            Some(next) => after = format!("&after={}", query_encode(next)),
            None => return items,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grid_sorts_by_each_column_and_pages_through_it() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    for number in [1, 2, 3, 1, 2] {
        app.book(&rider(number)).await;
        app.advance(MINUTE);
    }
    app.booking_at(&rider(3), &driver(1), Stage::Accepted).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    for (sort, field) in
        [("customer_name", "customer_name"), ("reference", "reference"), ("status", "status"), ("carType", "carType")]
    {
        for order in ["asc", "desc"] {
            let listed = every_page(&app, &format!("/api/v1/bookings?sort={sort}&order={order}"), 2, &admin).await;
            assert_eq!(listed.len(), 6, "{sort} {order}");
            let mut keys: Vec<(String, String)> = listed
                .iter()
                .map(|item| (item[field].as_str().unwrap().to_string(), item["id"].as_str().unwrap().to_string()))
                .collect();
            let seen = keys.clone();
            keys.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            if order == "desc" {
                keys.reverse();
            }
            assert_eq!(
                seen.iter().map(|key| &key.0).collect::<Vec<_>>(),
                keys.iter().map(|key| &key.0).collect::<Vec<_>>(),
                "{sort} {order}"
            );
        }
    }
    let by_cost = every_page(&app, "/api/v1/bookings?sort=trip_cost&order=asc", 4, &admin).await;
    let costs: Vec<f64> = by_cost.iter().map(|item| item["trip_cost"].as_f64().unwrap()).collect();
    assert!(costs.windows(2).all(|pair| pair[0] <= pair[1]), "{costs:?}");
    // A cursor belongs to its sort; another sort refuses it.
    let page = app.get("/api/v1/bookings?sort=customer_name&limit=2", Some(&admin)).await;
    let cursor = page.expect(200)["next"].as_str().unwrap().to_string();
    app.get(&format!("/api/v1/bookings?sort=tripdate&after={}", query_encode(&cursor)), Some(&admin)).await.refused_on(
        400,
        "invalid_input",
        "cursor",
    );
    app.get("/api/v1/bookings?sort=pickup", Some(&admin)).await.refused_on(400, "invalid_input", "query");
}

fn csv_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let text = text.strip_prefix('\u{feff}').expect("a byte-order mark for spreadsheets");
    // The demo's addresses have commas: a small RFC 4180 reader.
    let mut rows = vec![vec![String::new()]];
    let mut quoted = false;
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        let row = rows.last_mut().unwrap();
        match (character, quoted) {
            ('"', true) if characters.peek() == Some(&'"') => {
                characters.next();
                row.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(String::new()),
            ('\r', false) => {}
            ('\n', false) => rows.push(vec![String::new()]),
            (other, _) => row.last_mut().unwrap().push(other),
        }
    }
    rows.pop();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filtered_grid_exports_as_csv_and_xlsx_in_its_order() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    for number in [1, 2, 3] {
        app.book(&rider(number)).await;
        app.advance(MINUTE);
    }
    let accepted = app.booking_at(&rider(2), &driver(4), Stage::Accepted).await;
    let admin = app.sign_in("admin@demo.wayfare").await;

    let listed = every_page(&app, "/api/v1/bookings?status=NEW&sort=customer_name&order=asc", 500, &admin).await;
    let csv = get_raw(&app, "/api/v1/bookings?status=NEW&sort=customer_name&order=asc&format=csv", Some(&admin)).await;
    assert_eq!(csv.status, 200);
    assert_eq!(csv.header(axum::http::header::CONTENT_TYPE), "text/csv; charset=utf-8");
    assert_eq!(csv.header(axum::http::header::CONTENT_DISPOSITION), "attachment; filename=\"bookings.csv\"");
    let rows = csv_rows(&csv.bytes);
    let headers = &rows[0];
    assert_eq!(rows.len(), listed.len() + 1);
    let column = |name: &str| headers.iter().position(|header| header == name).unwrap_or_else(|| panic!("{name}"));
    for (row, item) in rows[1..].iter().zip(&listed) {
        assert_eq!(row.len(), headers.len());
        for field in ["id", "reference", "customer_name", "pickupAddress", "dropAddress", "status", "carType"] {
            assert_eq!(row[column(field)], item[field].as_str().unwrap(), "{field}");
        }
        assert_eq!(row[column("trip_cost")], format!("{:.2}", money(&item["trip_cost"])));
    }
    assert!(rows[1..].iter().all(|row| row[column("id")] != accepted.id.to_string()), "the status filter holds");

    let file = get_raw(&app, "/api/v1/bookings?format=xlsx", Some(&admin)).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.header(axum::http::header::CONTENT_DISPOSITION), "attachment; filename=\"bookings.xlsx\"");
    let mut workbook: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(file.bytes)).expect("a valid xlsx");
    let sheet = workbook.worksheet_range("Bookings").expect("the sheet");
    assert_eq!(sheet.height(), 5, "a header and the four bookings");
    let newest = app.get("/api/v1/bookings?limit=1", Some(&admin)).await;
    let newest = &newest.expect(200)["items"][0];
    assert_eq!(sheet.get_value((1, 0)), Some(&Data::String(newest["id"].as_str().unwrap().to_string())));

    // A fleet admin's file holds their fleet's bookings only.
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let fleet_rows = csv_rows(&get_raw(&app, "/api/v1/bookings?format=csv", Some(&fleet)).await.bytes);
    let fleet_ids: Vec<&String> = fleet_rows[1..].iter().map(|row| &row[0]).collect();
    assert_eq!(fleet_ids, [&accepted.id.to_string()]);
    assert_eq!(ids(app.get("/api/v1/bookings", Some(&fleet)).await.expect(200)), [accepted.id.to_string()]);

    // Riders and drivers list, but do not export.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get("/api/v1/bookings?format=csv", Some(&rider)).await.refused(403, "not_allowed");
    app.get("/api/v1/bookings?format=pdf", Some(&admin)).await.refused_on(400, "invalid_input", "query");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_are_refused_in_demo_mode() {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    app.get("/api/v1/bookings?format=xlsx", Some(&admin)).await.refused(403, "demo_mode");
    app.get("/api/v1/bookings", Some(&admin)).await.expect(200);
}
