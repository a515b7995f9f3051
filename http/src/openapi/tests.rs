use super::*;
use crate::test_support::{Answer, TestApp};
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The docs themselves: Swagger UI's pages and the document.
const DOCS_ROUTES: [&str; 4] = ["/api/docs", "/api/docs/", "/api/docs/{*rest}", DOCUMENT_PATH];

const PROBED_METHODS: [Method; 5] = [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE];

fn document_json() -> Value {
    serde_json::to_value(document()).expect("the document serialises")
}

/// `(method, path)` of every operation in the document.
fn documented_operations(document: &Value) -> BTreeSet<(String, String)> {
    let mut operations = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                operations.insert((method.to_string(), path.clone()));
            }
        }
    }
    operations
}

/// The route templates the router holds, read from its debug form (axum
/// has no public route table). The sanity checks below fail loudly if a new
/// axum writes it differently.
fn router_paths(router: &axum::Router) -> BTreeSet<String> {
    let debug = format!("{router:?}");
    // Only the routes, not the fallback router's internal catch-all.
    let routes = debug.split_once("fallback_router:").map_or(debug.as_str(), |(routes, _)| routes);
    routes
        .split("RouteId(")
        .skip(1)
        .filter_map(|piece| piece.split_once("): \"").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split_once('"').map(|(path, _)| path.to_string()))
        .filter(|path| !path.contains("__private__axum"))
        .collect()
}

/// A path a request can be sent to: each `{param}` becomes a fresh id.
fn concrete(template: &str) -> String {
    template
        .split('/')
        .map(|segment| if segment.starts_with('{') { uuid::Uuid::now_v7().to_string() } else { segment.to_string() })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `(method, template)` the router answers: a method a route does not
/// serve is 405; anything else means it is served. No request carries a
/// session or a body, so none gets past its extractors.
async fn served_operations(app: &TestApp) -> BTreeSet<(String, String)> {
    let paths = router_paths(&app.router);
    assert!(
        paths.contains("/healthz") && paths.contains("/api/v1/bookings/{id}/accept"),
        "cannot read the route table from {paths:?}"
    );
    let mut served = BTreeSet::new();
    for template in paths.iter().filter(|path| !DOCS_ROUTES.contains(&path.as_str())) {
        for method in PROBED_METHODS {
            let answer = app.call(method.clone(), &concrete(template), None, None).await;
            if answer.status != StatusCode::METHOD_NOT_ALLOWED {
                served.insert((method.as_str().to_lowercase(), template.clone()));
            }
        }
    }
    served
}

#[test]
fn the_document_is_openapi_3_1_json() {
    let text = serde_json::to_string(&document()).unwrap();
    let document: Value = serde_json::from_str(&text).unwrap();
    let version = document["openapi"].as_str().unwrap();
    assert!(version.starts_with("3.1."), "{version}");
    assert_eq!(document["info"]["title"], "Wayfare API");
    assert!(document["components"]["securitySchemes"][BEARER].is_object());
    assert_eq!(document["components"]["securitySchemes"][COOKIE]["in"], "cookie");
    assert_eq!(document["components"]["securitySchemes"][COOKIE]["name"], crate::auth::extract::SESSION_COOKIE);
}

#[tokio::test]
async fn the_document_and_the_docs_are_served() {
    let app = TestApp::demo().await;
    let served = app.call(Method::GET, DOCUMENT_PATH, None, None).await;
    assert_eq!(served.status, StatusCode::OK);
    assert!(served.content_type.starts_with("application/json"), "{}", served.content_type);
    assert!(served.json()["openapi"].as_str().unwrap().starts_with("3.1."));
    assert_eq!(served.json(), document_json());

    let page = app.call(Method::GET, "/api/docs/", None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("swagger-ui"), "{}", page.text);
    let initializer = app.call(Method::GET, "/api/docs/swagger-initializer.js", None, None).await;
    assert!(initializer.text.contains(DOCUMENT_PATH), "the UI loads our document: {}", initializer.text);
}

/// A route added to a router with `.route(…)` instead of `routes!(…)` fails
/// here, and so does a documented route no router serves.
#[tokio::test]
async fn every_route_the_router_serves_is_documented_and_nothing_else() {
    let app = TestApp::demo().await;
    let served = served_operations(&app).await;
    let documented = documented_operations(&document_json());
    let undocumented: Vec<_> = served.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "served but not in the OpenAPI document (annotate the handler and register it with `routes!`): {undocumented:?}"
    );
    let stale: Vec<_> = documented.difference(&served).collect();
    assert!(stale.is_empty(), "documented but not served: {stale:?}");
    assert!(served.len() >= 34, "{served:?}");
}

/// The refusals each operation's handler declares, read from the routers'
/// own operations (the finished document no longer carries them).
fn declared_refusals() -> BTreeMap<(String, String), Refusals> {
    let operations = crate::routes::api().into_openapi();
    let mut declared = BTreeMap::new();
    for (path, item) in &operations.paths.paths {
        let operations = [
            ("get", &item.get),
            ("post", &item.post),
            ("put", &item.put),
            ("patch", &item.patch),
            ("delete", &item.delete),
        ];
        for (method, operation) in operations {
            if let Some(refusals) = operation.as_ref().and_then(Refusals::of) {
                declared.insert((method.to_string(), path.clone()), refusals);
            }
        }
    }
    declared
}

#[test]
fn every_operation_has_its_access_and_errors_and_nothing_else_is_listed() {
    let document = document_json();
    let documented = documented_operations(&document);
    let declared = declared_refusals();
    for (method, path) in &documented {
        let route = declared.get(&(method.clone(), path.clone())).unwrap_or_else(|| {
            panic!("{method} {path} declares no refusals (`extensions((\"{}\" = json!(…)))`)", refusals::EXTENSION)
        });
        let operation = &document["paths"][path][method];
        assert!(operation.get(refusals::EXTENSION).is_none(), "{method} {path} still carries its declaration");
        let responses = operation["responses"].as_object().unwrap();
        for key in route.errors.iter() {
            let status = status_of(key.kind()).as_u16().to_string();
            let response = &responses[&status];
            assert_eq!(response["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody");
            assert!(
                response["description"].as_str().unwrap().contains(&format!("`{}`", key.as_str())),
                "{method} {path} {status}"
            );
            assert_eq!(
                response["content"]["application/json"]["examples"][key.as_str()]["value"]["error"]["code"],
                key.as_str()
            );
        }
        let security = operation["security"].as_array().unwrap();
        match route.access {
            Access::Public => assert!(security.is_empty(), "{method} {path}"),
            Access::OptionalSession => {
                assert!(security.contains(&json!({})) && security.contains(&json!({ BEARER: [] })))
            }
            Access::Session => {
                assert_eq!(security, &vec![json!({ BEARER: [] }), json!({ COOKIE: [] })], "{method} {path}")
            }
        }
        assert!(
            // A form post's success is a 303 to the next page (the payment gateways).
            responses.keys().any(|status| status.starts_with('2') || status == "303"),
            "{method} {path} has no success answer"
        );
    }
    for (method, path) in declared.keys() {
        assert!(documented.contains(&(method.clone(), path.clone())), "{method} {path} is declared but not documented");
    }
    let ids: Vec<&str> = documented
        .iter()
        .map(|(method, path)| document["paths"][path][method]["operationId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len(), "operation ids are unique: {ids:?}");
}

#[test]
fn entities_have_the_spec_json_shapes() {
    let document = document_json();
    let schemas = &document["components"]["schemas"];
    // Money is a number, ids are uuid strings, times are integers.
    assert_eq!(schemas["Booking"]["properties"]["estimate"]["type"], "number");
    assert_eq!(schemas["CarType"]["properties"]["base_fare"]["type"], "number");
    assert_eq!(schemas["UserId"], json!({ "type": "string", "format": "uuid", "description": "A user of any role." }));
    assert_eq!(schemas["Booking"]["properties"]["id"]["$ref"], "#/components/schemas/BookingId");
    assert_eq!(schemas["Millis"]["type"], "integer");
    assert_eq!(schemas["Booking"]["properties"]["tripdate"]["$ref"], "#/components/schemas/Millis");
    assert!(schemas.get("i64").is_none());
    assert!(!document.to_string().contains("schemas/i64"));
    // The hand-written ones.
    assert_eq!(schemas["Booking"]["properties"]["otp"]["$ref"], "#/components/schemas/Otp");
    assert_eq!(schemas["Otp"]["oneOf"][1]["enum"], json!([false]));
    assert_eq!(schemas["RequestedDrivers"]["additionalProperties"]["enum"], json!([true]));
    // Spec names.
    assert_eq!(schemas["BookingStatus"]["enum"][0], "PAYMENT_PENDING");
    assert!(schemas["ErrorKey"]["enum"].as_array().unwrap().contains(&json!("booking_taken")));
}

// ---- real answers against the document ----------------------------------------

/// The schema a `$ref` names, or the schema itself.
fn resolve<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.trim_start_matches("#/components/schemas/");
            let found = &document["components"]["schemas"][name];
            assert!(!found.is_null(), "no schema {name}");
            resolve(document, found)
        }
        None => schema,
    }
}

/// Properties and required names of an object schema, through `allOf`.
fn object_fields(document: &Value, schema: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let schema = resolve(document, schema);
    let mut properties: BTreeSet<String> =
        schema["properties"].as_object().map(|fields| fields.keys().cloned().collect()).unwrap_or_default();
    let mut required: BTreeSet<String> = schema["required"]
        .as_array()
        .map(|names| names.iter().map(|name| name.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        let (more_properties, more_required) = object_fields(document, part);
        properties.extend(more_properties);
        required.extend(more_required);
    }
    (properties, required)
}

/// The object has every required field of the schema and no other field.
fn assert_fits(document: &Value, schema: &Value, value: &Value, context: &str) {
    let (properties, required) = object_fields(document, schema);
    let keys: BTreeSet<String> =
        value.as_object().unwrap_or_else(|| panic!("{context}: not an object: {value}")).keys().cloned().collect();
    let unknown: Vec<_> = keys.difference(&properties).collect();
    assert!(unknown.is_empty(), "{context}: fields not in the schema: {unknown:?}");
    let missing: Vec<_> = required.difference(&keys).collect();
    assert!(missing.is_empty(), "{context}: required fields missing: {missing:?}");
}

/// The answer's status is documented for the operation, and its JSON body fits
/// the documented schema (for arrays, each item fits the item schema).
fn assert_documented(document: &Value, method: &str, template: &str, answer: &Answer) {
    let context = format!("{method} {template} answered {}", answer.status);
    let responses = &document["paths"][template][method]["responses"];
    let status = answer.status.as_u16().to_string();
    let response = match responses.get(&status) {
        Some(response) => response,
        None if answer.status.is_server_error() => &responses["5XX"],
        None => panic!("{context}: status not documented: {}", answer.text),
    };
    let Some(schema) = response["content"]["application/json"].get("schema") else {
        return;
    };
    let body = answer.json();
    let schema = resolve(document, schema);
    match (&body, schema["type"].as_str()) {
        (Value::Array(items), Some("array")) => {
            for item in items {
                assert_fits(document, &schema["items"], item, &context);
            }
        }
        _ => assert_fits(document, schema, &body, &context),
    }
    // The one nested list of bookings worth checking field by field.
    for booking in body["items"].as_array().into_iter().flatten() {
        assert_fits(document, &json!({ "$ref": "#/components/schemas/Booking" }), booking, &context);
    }
}

#[tokio::test]
async fn real_answers_fit_the_documented_statuses_and_schemas() {
    let app = TestApp::demo().await;
    let document = document_json();
    let check = |method: &str, template: &str, answer: &Answer| assert_documented(&document, method, template, answer);

    check("get", "/healthz", &app.call(Method::GET, "/healthz", None, None).await);
    let ready = app.call(Method::GET, "/readyz", None, None).await;
    assert_eq!(ready.status, StatusCode::OK);
    check("get", "/readyz", &ready);
    check("get", "/api/v1/cartypes", &app.call(Method::GET, "/api/v1/cartypes", None, None).await);
    check("get", "/api/v1/settings", &app.call(Method::GET, "/api/v1/settings", None, None).await);
    check("get", "/api/v1/auth/me", &app.call(Method::GET, "/api/v1/auth/me", None, None).await);

    let email = "rider1@demo.wayfare";
    let sent = app.call(Method::POST, "/api/v1/auth/otp/request", None, Some(json!({ "contact": email }))).await;
    check("post", "/api/v1/auth/otp/request", &sent);
    let outbox = app.call(Method::GET, &format!("/api/v1/dev/outbox?to={email}"), None, None).await;
    check("get", "/api/v1/dev/outbox", &outbox);
    let code = outbox.json()["messages"][0]["code"].as_str().unwrap().to_string();
    let wrong = app
        .call(Method::POST, "/api/v1/auth/otp/verify", None, Some(json!({ "contact": email, "code": "000000x" })))
        .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    check("post", "/api/v1/auth/otp/verify", &wrong);
    let signed_in =
        app.call(Method::POST, "/api/v1/auth/otp/verify", None, Some(json!({ "contact": email, "code": code }))).await;
    check("post", "/api/v1/auth/otp/verify", &signed_in);
    let rider = signed_in.json()["token"].as_str().unwrap().to_string();
    let rider_id = signed_in.json()["user"]["id"].as_str().unwrap().to_string();
    check("get", "/api/v1/auth/me", &app.call(Method::GET, "/api/v1/auth/me", Some(&rider), None).await);

    let pickup = json!({ "lat": 39.2860, "lng": -76.5800, "add": "Harbor East, Baltimore" });
    let drop = json!({ "lat": 39.2904, "lng": -76.6122, "add": "Inner Harbor, Baltimore" });
    let trip = json!({ "pickup": pickup, "drop": drop, "carType": "Economy" });
    let estimate = app.call(Method::POST, "/api/v1/bookings/estimate", Some(&rider), Some(trip.clone())).await;
    assert_eq!(estimate.status, StatusCode::OK, "{}", estimate.text);
    check("post", "/api/v1/bookings/estimate", &estimate);
    let created = app.call(Method::POST, "/api/v1/bookings", Some(&rider), Some(trip)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    check("post", "/api/v1/bookings", &created);
    let booking = created.json()["id"].as_str().unwrap().to_string();
    let refused = app.call(Method::POST, "/api/v1/bookings", Some(&rider), Some(json!({ "pickup": pickup }))).await;
    check("post", "/api/v1/bookings", &refused);

    check("get", "/api/v1/bookings", &app.call(Method::GET, "/api/v1/bookings?limit=1", Some(&rider), None).await);
    check(
        "get",
        "/api/v1/bookings/{id}",
        &app.call(Method::GET, &format!("/api/v1/bookings/{booking}"), Some(&rider), None).await,
    );
    check(
        "get",
        "/api/v1/bookings/{id}",
        &app.call(Method::GET, &concrete("/api/v1/bookings/{id}"), Some(&rider), None).await,
    );
    check(
        "post",
        "/api/v1/bookings/{id}/accept",
        &app.call(Method::POST, &format!("/api/v1/bookings/{booking}/accept"), Some(&rider), None).await,
    );
    let chat = format!("/api/v1/bookings/{booking}/chat");
    check("get", "/api/v1/bookings/{id}/chat", &app.call(Method::GET, &chat, Some(&rider), None).await);
    check(
        "get",
        "/api/v1/bookings/{id}/tracking",
        &app.call(Method::GET, &format!("/api/v1/bookings/{booking}/tracking"), Some(&rider), None).await,
    );
    check(
        "get",
        "/api/v1/users/{id}/wallet",
        &app.call(Method::GET, &format!("/api/v1/users/{rider_id}/wallet"), Some(&rider), None).await,
    );
    check(
        "post",
        "/api/v1/geo/autocomplete",
        &app.call(Method::POST, "/api/v1/geo/autocomplete", Some(&rider), Some(json!({ "searchKeyword": "harbor" })))
            .await,
    );
    let directions =
        json!({ "start": { "lat": 39.2860, "lng": -76.5800 }, "dest": { "lat": 39.2904, "lng": -76.6122 } });
    check(
        "post",
        "/api/v1/geo/directions",
        &app.call(Method::POST, "/api/v1/geo/directions", Some(&rider), Some(directions)).await,
    );
    let admin = app.sign_in("admin@demo.wayfare").await;
    let candidates = format!("/api/v1/bookings/{booking}/candidates");
    let listed = app.call(Method::GET, &candidates, Some(&admin), None).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);
    check("get", "/api/v1/bookings/{id}/candidates", &listed);
    let cancel = app
        .call(
            Method::POST,
            &format!("/api/v1/bookings/{booking}/cancel"),
            Some(&rider),
            Some(json!({ "reason": "Changed my plans" })),
        )
        .await;
    check("post", "/api/v1/bookings/{id}/cancel", &cancel);
    let not_new = app.call(Method::GET, &candidates, Some(&admin), None).await;
    assert_eq!(not_new.status, StatusCode::CONFLICT, "{}", not_new.text);
    check("get", "/api/v1/bookings/{id}/candidates", &not_new);

    let driver = app.sign_in("driver1@demo.wayfare").await;
    check("get", "/api/v1/tasks", &app.call(Method::GET, "/api/v1/tasks", Some(&driver), None).await);
    check(
        "post",
        "/api/v1/drivers/me/status",
        &app.call(
            Method::POST,
            "/api/v1/drivers/me/status",
            Some(&driver),
            Some(json!({ "driverActiveStatus": true })),
        )
        .await,
    );
    let location = json!({ "lat": 39.2861, "lng": -76.5801, "heading": 90.0 });
    check(
        "post",
        "/api/v1/drivers/me/location",
        &app.call(Method::POST, "/api/v1/drivers/me/location", Some(&driver), Some(location)).await,
    );
    check("post", "/api/v1/auth/logout", &app.call(Method::POST, "/api/v1/auth/logout", Some(&driver), None).await);
}

// ---- money: wallet credit, withdraws, reports ---------------------------------

#[tokio::test]
async fn money_answers_fit_the_documented_statuses_and_schemas() {
    let app = TestApp::demo().await;
    let document = document_json();
    let check = |method: &str, template: &str, answer: &Answer| assert_documented(&document, method, template, answer);
    let admin = app.sign_in("admin@demo.wayfare").await;
    let driver = app.sign_in("driver4@demo.wayfare").await;
    let me = app.call(Method::GET, "/api/v1/auth/me", Some(&driver), None).await.json();
    let driver_id = me["user"]["id"].as_str().unwrap().to_string();

    let credit_path = format!("/api/v1/users/{driver_id}/wallet/credit");
    let credited = app.call(Method::POST, &credit_path, Some(&admin), Some(json!({ "amount": 50 }))).await;
    assert_eq!(credited.status, StatusCode::CREATED, "{}", credited.text);
    check("post", "/api/v1/users/{id}/wallet/credit", &credited);
    let refused = app.call(Method::POST, &credit_path, Some(&admin), Some(json!({ "amount": 0 }))).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    check("post", "/api/v1/users/{id}/wallet/credit", &refused);

    let created = app.call(Method::POST, "/api/v1/withdraws", Some(&driver), Some(json!({ "amount": 20 }))).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    check("post", "/api/v1/withdraws", &created);
    let request = created.json()["withdraw"].clone();
    assert_fits(&document, &json!({ "$ref": "#/components/schemas/WithdrawRequest" }), &request, "the created request");
    let too_much = app.call(Method::POST, "/api/v1/withdraws", Some(&driver), Some(json!({ "amount": 1000 }))).await;
    assert_eq!(too_much.status, StatusCode::CONFLICT);
    check("post", "/api/v1/withdraws", &too_much);

    // (Not through `assert_documented`, which reads any `items` as bookings.)
    let listed = app.call(Method::GET, "/api/v1/withdraws", Some(&admin), None).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);
    let page_schema =
        &document["paths"]["/api/v1/withdraws"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert_fits(&document, page_schema, &listed.json(), "get /api/v1/withdraws");
    for item in listed.json()["items"].as_array().unwrap() {
        assert_fits(&document, &json!({ "$ref": "#/components/schemas/WithdrawRequest" }), item, "a listed request");
    }
    let complete_path = format!("/api/v1/withdraws/{}/complete", request["id"].as_str().unwrap());
    let completed = app.call(Method::POST, &complete_path, Some(&admin), None).await;
    assert_eq!(completed.status, StatusCode::OK, "{}", completed.text);
    check("post", "/api/v1/withdraws/{id}/complete", &completed);
    let again = app.call(Method::POST, &complete_path, Some(&admin), None).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    check("post", "/api/v1/withdraws/{id}/complete", &again);

    // The rows (none in a fresh demo city) as the engine serialises them.
    let earnings = wayfare_engine::EarningsRow {
        year: 2027,
        month: 1,
        monthsName: "January".into(),
        driverShare: rust_decimal::Decimal::new(125, 1),
        total_rides: 2,
        driverName: "Dana Driver".into(),
        driverVehicleNo: "MD-1".into(),
        driverUId: wayfare_engine::UserId::from_u128(1),
    };
    let zero = rust_decimal::Decimal::ZERO;
    let report_row = wayfare_engine::EarningsReportRow {
        earnings: earnings.clone(),
        discountAmount: zero,
        customerPaid: zero,
        convenienceFee: zero,
        tripCost: zero,
        cancellationFee: zero,
        myEarning: zero,
        rideCost: zero,
    };
    for (schema, row) in [
        ("EarningsRow", serde_json::to_value(&earnings).unwrap()),
        ("EarningsReportRow", serde_json::to_value(&report_row).unwrap()),
    ] {
        assert_fits(&document, &json!({ "$ref": format!("#/components/schemas/{schema}") }), &row, schema);
    }
    for template in ["/api/v1/reports/earnings", "/api/v1/reports/driver-earnings"] {
        let report = app.call(Method::GET, template, Some(&admin), None).await;
        assert_eq!(report.status, StatusCode::OK, "{}", report.text);
        check("get", template, &report);
        let bad = app.call(Method::GET, &format!("{template}?month=1"), Some(&admin), None).await;
        check("get", template, &bad);
        let csv = app.call(Method::GET, &format!("{template}?format=csv"), Some(&admin), None).await;
        assert!(csv.content_type.starts_with("text/csv"), "{}", csv.content_type);
        let documented = &document["paths"][template]["get"]["responses"]["200"]["content"];
        for content_type in
            ["application/json", "text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]
        {
            assert!(documented.get(content_type).is_some(), "{template} documents {content_type}");
        }
    }
    // The dashboard's cards, and a role that may not see them.
    let cards = app.call(Method::GET, "/api/v1/dashboard/earnings", Some(&admin), None).await;
    assert_eq!(cards.status, StatusCode::OK, "{}", cards.text);
    check("get", "/api/v1/dashboard/earnings", &cards);
    check(
        "get",
        "/api/v1/dashboard/earnings",
        &app.call(Method::GET, "/api/v1/dashboard/earnings", Some(&driver), None).await,
    );
}
