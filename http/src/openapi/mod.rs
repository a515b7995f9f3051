//! The OpenAPI 3.1 document of the REST API, served at `/api/openapi.json`,
//! and the interactive docs (Swagger UI, vendored into the binary: nothing
//! is downloaded at build or run time) at `/api/docs`.
//!
//! Operations come from the `#[utoipa::path]` annotations on the handlers;
//! entity schemas from the engine's `openapi` feature. Security and the
//! error responses of each operation come from [`routes::ROUTES`], so every
//! refusal is documented with its translation keys and the status the
//! server really answers. The tests check that every route the router
//! serves is documented and that real answers match their schemas.

pub mod routes;
pub mod schemas;

use crate::error::status_of;
use crate::messages::Messages;
use crate::state::AppState;
use axum::Router;
use routes::Access;
use std::collections::BTreeMap;
use utoipa::OpenApi;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa_swagger_ui::SwaggerUi;
use wayfare_engine::ErrorKey;

/// Where the document is served.
pub const DOCUMENT_PATH: &str = "/api/openapi.json";
/// Where the interactive docs are served.
pub const DOCS_PATH: &str = "/api/docs";

/// Name of the bearer-token security scheme.
pub const BEARER: &str = "bearer";
/// Name of the session-cookie security scheme.
pub const COOKIE: &str = "cookie";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Wayfare API",
        description = "REST API of Wayfare, a taxi and parcel booking platform with realtime dispatch. \
            JSON bodies with the spec's field names; times in milliseconds since the epoch; money as a JSON \
            number rounded to `settings.decimal`. Every refusal is an HTTP status and \
            `{\"error\": {\"code\": <translation key>, \"message\": <text>, \"field\"?: <input field>}}`; \
            each operation lists the keys it can answer with. See docs/api.md for the booking flow and the \
            Socket.IO events.",
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    paths(
        crate::auth::routes::request_code,
        crate::auth::routes::verify_code,
        crate::auth::routes::check_referral,
        crate::auth::routes::me,
        crate::auth::routes::logout,
        crate::auth::routes::outbox,
        crate::routes::catalog::settings,
        crate::routes::catalog::car_types,
        crate::routes::catalog::languages,
        crate::routes::catalog::cancel_reasons,
        crate::routes::catalog::payment_providers,
        crate::routes::bookings::estimate,
        crate::routes::bookings::create,
        crate::routes::bookings::list,
        crate::routes::bookings::read,
        crate::routes::bookings::tasks,
        crate::routes::bookings::accept,
        crate::routes::bookings::decline,
        crate::routes::bookings::arrive,
        crate::routes::bookings::start,
        crate::routes::bookings::reach,
        crate::routes::bookings::pay,
        crate::routes::bookings::rate,
        crate::routes::bookings::cancel,
        crate::routes::bookings::assign,
        crate::routes::bookings::candidates,
        crate::routes::bookings::chat,
        crate::routes::bookings::send_chat,
        crate::routes::bookings::tracking,
        crate::routes::dispatch::timeline,
        crate::routes::dispatch::active,
        crate::routes::dispatch::recent_log,
        crate::routes::dispatch::message,
        crate::routes::drivers::status,
        crate::routes::drivers::location,
        crate::routes::wallet::wallet,
        // ---- admin panel: users, profile, car types, cancel reasons, settings, app info
        crate::routes::users::list,
        crate::routes::users::exists,
        crate::routes::users::add,
        crate::routes::users::read,
        crate::routes::users::edit,
        crate::routes::users::approve,
        crate::routes::applications::signup,
        crate::routes::applications::upload_document,
        crate::routes::applications::my_application,
        crate::routes::applications::queue,
        crate::routes::applications::user_documents,
        crate::routes::applications::reject,
        crate::routes::users::remove,
        crate::routes::users::update_profile,
        crate::routes::admin_catalog::add_car_type,
        crate::routes::admin_catalog::update_car_type,
        crate::routes::admin_catalog::delete_car_type,
        crate::routes::admin_catalog::replace_cancel_reasons,
        crate::routes::admin_catalog::add_cancel_reason,
        crate::routes::admin_catalog::update_cancel_reason,
        crate::routes::admin_catalog::delete_cancel_reason,
        crate::routes::admin_catalog::edit_settings,
        crate::routes::admin_catalog::app_info,
        crate::routes::admin_catalog::edit_app_info,
        // ---- end of admin panel
        // ---- money: wallet credit, withdraws, reports
        crate::routes::wallet::credit_wallet,
        crate::routes::withdraws::create_withdraw,
        crate::routes::withdraws::list_withdraws,
        crate::routes::withdraws::complete_withdraw,
        crate::routes::reports::earnings_report,
        crate::routes::reports::driver_earnings,
        crate::routes::dashboard::earnings,
        crate::routes::geo::autocomplete,
        crate::routes::geo::place,
        crate::routes::geo::address,
        crate::routes::geo::directions,
        crate::routes::geo::matrix,
        crate::routes::geo::basemap_style,
        crate::routes::geo::basemap_tile,
        crate::routes::health::health,
        crate::routes::health::ready,
        // ---- files and payments (issue 6)
        crate::routes::files::my_profile_image,
        crate::routes::files::my_license_image,
        crate::routes::files::license_image,
        crate::routes::files::car_type_image,
        crate::routes::files::parcel_image,
        crate::routes::files::download_file,
        crate::routes::payments::test_checkout,
        crate::routes::payments::test_page,
        crate::routes::payments::test_settle,
        crate::routes::payments::stripe_checkout,
        crate::routes::payments::stripe_webhook,
        // ---- promos, notifications, languages
        crate::routes::promos::list,
        crate::routes::promos::add,
        crate::routes::promos::update,
        crate::routes::promos::remove,
        crate::routes::notifications::send,
        crate::routes::notifications::list,
        crate::routes::notifications::remove,
        crate::routes::notifications::register_token,
        crate::routes::notifications::push_config,
        crate::routes::languages::add,
        crate::routes::languages::update,
        crate::routes::languages::remove,
        crate::routes::languages::make_default,
        // ---- SOS (issue 33)
        crate::routes::sos::raise,
        crate::routes::sos::list,
        crate::routes::sos::read,
        crate::routes::sos::take,
        crate::routes::sos::resolve,
        // ---- mending a booking (issue 34)
        crate::routes::mend::settle,
        crate::routes::mend::complete,
        crate::routes::mend::refund,
        crate::routes::mend::rebook,
        crate::routes::mend::ledger,
        crate::routes::mend::owed,
        crate::metrics::scrape,
    ),
    components(schemas(schemas::ErrorBody, ErrorKey)),
    modifiers(&RouteDocs),
    tags(
        (name = "auth", description = "Sign-in with one-time codes, sessions, and the dev outbox"),
        (name = "catalog", description = "What the app loads at start: settings and car types"),
        (name = "bookings", description = "Estimate, book, list and read bookings"),
        (name = "trip", description = "The booking's state machine: accept, arrive, start, reach, pay, rate, cancel, assign"),
        (name = "drivers", description = "A driver online, streaming positions, and the offers they hold"),
        (name = "chat", description = "Chat between rider and driver, and the trip's tracking points"),
        (name = "wallet", description = "Balances, the wallet ledger, admin credits and withdraw requests"),
        (name = "reports", description = "Driver earnings and the earnings report, as JSON, CSV or XLSX"),
        (name = "users", description = "The users tables of the admin panel, and the signed-in user's profile"),
        (name = "admin", description = "What admins configure: car types, cancellation reasons, settings and app info"),
        (name = "geo", description = "Autocomplete, geocoding, directions and distance matrix through the maps provider"),
        (name = "files", description = "Image uploads (profile photos, licences, car type images, parcel photos) and downloads"),
        (name = "payments", description = "Checkout through a payment gateway (the built-in test gateway, Stripe Checkout) and its confirmation"),
        (name = "operations", description = "Health and Prometheus metrics"),
        (name = "promos", description = "Promo codes: riders list the ones they can use, admins manage them"),
        (name = "notifications", description = "Broadcast notifications (in-app and push) and push registration"),
        (name = "sos", description = "SOS alerts raised during a trip, and how admins and fleet admins take and resolve them"),
        (name = "languages", description = "Languages and their dictionaries; the default language"),
        (name = "dispatch", description = "The live dispatch console: dispatch timelines, active bookings, messages to drivers"),
    ),
)]
pub struct ApiDoc;

/// The whole document.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// `GET /api/openapi.json` and the Swagger UI under `/api/docs`.
pub fn router() -> Router<AppState> {
    SwaggerUi::new(DOCS_PATH).url(DOCUMENT_PATH, document()).into()
}

/// Adds the security schemes, and to every operation its security and its
/// error responses from [`routes::ROUTES`].
struct RouteDocs;

impl utoipa::Modify for RouteDocs {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("`Authorization: Bearer <token>` with the token from `/api/v1/auth/otp/verify`"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            COOKIE,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::auth::extract::SESSION_COOKIE,
                "The HttpOnly session cookie `/api/v1/auth/otp/verify` sets (the web app)",
            ))),
        );
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                ("get", &mut item.get),
                ("post", &mut item.post),
                ("put", &mut item.put),
                ("patch", &mut item.patch),
                ("delete", &mut item.delete),
            ];
            for (method, operation) in operations {
                let Some(operation) = operation.as_mut() else {
                    continue;
                };
                // A missing entry is caught by the tests; the document still serves.
                if let Some(route) = routes::find(method, path) {
                    document_route(operation, route);
                }
            }
        }
        *openapi = name_the_time_schema(std::mem::take(openapi));
    }
}

/// `Millis` is an alias of `i64`, so the derive files every time under a
/// schema named `i64`; the document calls it `Millis` and says what it is.
/// (`Millis` is the engine's only alias of `i64`, so nothing else is renamed.)
fn name_the_time_schema(openapi: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    fn rename_refs(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(fields) => {
                for (name, field) in fields.iter_mut() {
                    if name == "$ref" && field == "#/components/schemas/i64" {
                        *field = "#/components/schemas/Millis".into();
                    } else {
                        rename_refs(field);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(rename_refs),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(&openapi).expect("the document serialises");
    let Some(schemas) = value.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) else {
        return openapi;
    };
    let Some(mut millis) = schemas.remove("i64") else {
        return openapi;
    };
    millis["description"] = "A time: milliseconds since the Unix epoch".into();
    millis["examples"] = serde_json::json!([1_767_225_600_000_i64]);
    schemas.insert("Millis".into(), millis);
    rename_refs(&mut value);
    serde_json::from_value(value).expect("the document reads back")
}

fn document_route(operation: &mut Operation, route: &routes::RouteDoc) {
    let signed_in = [
        SecurityRequirement::new(BEARER, Vec::<String>::new()),
        SecurityRequirement::new(COOKIE, Vec::<String>::new()),
    ];
    operation.security = Some(match route.access {
        Access::Public => Vec::new(),
        // The empty requirement makes the session optional.
        Access::OptionalSession => [SecurityRequirement::default()].into_iter().chain(signed_in).collect(),
        Access::Session => signed_in.to_vec(),
    });
    let mut by_status: BTreeMap<u16, Vec<ErrorKey>> = BTreeMap::new();
    for key in route.errors {
        let keys = by_status.entry(status_of(key.kind()).as_u16()).or_default();
        if !keys.contains(key) {
            keys.push(*key);
        }
    }
    for (status, keys) in by_status {
        operation.responses.responses.insert(status.to_string(), error_response(&keys).into());
    }
    if route.errors.is_empty() {
        // Answered from memory: nothing to refuse and nothing to fail.
        return;
    }
    let server_error = ResponseBuilder::new()
        .description("`internal_error` (details are logged, never shown) or `unavailable` (the dispatch runtime did not answer in time, 503)")
        .content("application/json", ContentBuilder::new().schema(Some(error_schema())).build())
        .build();
    operation.responses.responses.insert("5XX".into(), server_error.into());
}

fn error_schema() -> RefOr<utoipa::openapi::schema::Schema> {
    RefOr::Ref(Ref::from_schema_name("ErrorBody"))
}

/// One response for all keys sharing a status: the keys in the description
/// and one example body per key, with its English text.
fn error_response(keys: &[ErrorKey]) -> utoipa::openapi::response::Response {
    let messages = Messages::english();
    let listed: Vec<String> = keys.iter().map(|key| format!("`{}`", key.as_str())).collect();
    let examples = keys.iter().map(|key| {
        let body = serde_json::json!({ "error": { "code": key.as_str(), "message": messages.text(key.as_str()) } });
        (key.as_str(), ExampleBuilder::new().value(Some(body)).build())
    });
    ResponseBuilder::new()
        .description(format!("The error body with one of: {}", listed.join(", ")))
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(error_schema())).examples_from_iter(examples).build(),
        )
        .build()
}

#[cfg(test)]
mod tests;
