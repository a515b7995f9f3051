//! The OpenAPI 3.1 document of the REST API, served at `/api/openapi.json`,
//! and the interactive docs (Swagger UI, vendored into the binary: nothing
//! is downloaded at build or run time) at `/api/docs`.
//!
//! Operations come from the `#[utoipa::path]` annotations on the handlers,
//! collected by the routers that serve them (`crate::routes::api`); entity
//! schemas from the engine's `openapi` feature. Security and the error
//! responses of each operation come from the [`refusals`] its handler
//! declares, so every refusal is documented with its translation keys and
//! the status the server really answers. The tests check that every route
//! the router serves is documented and that real answers match their schemas.

pub mod refusals;
pub mod schemas;

use crate::error::status_of;
use crate::messages::Messages;
use crate::state::AppState;
use axum::Router;
use refusals::{Access, Refusals};
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
    components(schemas(schemas::ErrorBody, ErrorKey)),
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
    finish(crate::routes::api().into_openapi())
}

/// The document around the routes' operations: [`ApiDoc`]'s title, tags and
/// shared schemas, the security schemes, and each operation's security and
/// error responses from the refusals its handler declares.
pub fn finish(operations: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    let mut openapi = ApiDoc::openapi();
    openapi.merge(operations);
    document_refusals(&mut openapi);
    name_the_time_schema(openapi)
}

/// `GET /api/openapi.json` and the Swagger UI under `/api/docs`.
pub fn router(document: utoipa::openapi::OpenApi) -> Router<AppState> {
    SwaggerUi::new(DOCS_PATH).url(DOCUMENT_PATH, document).into()
}

/// Adds the security schemes, and to every operation its security and its
/// error responses from its [`Refusals`].
fn document_refusals(openapi: &mut utoipa::openapi::OpenApi) {
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
    for item in openapi.paths.paths.values_mut() {
        let operations = [&mut item.get, &mut item.post, &mut item.put, &mut item.patch, &mut item.delete];
        for operation in operations.into_iter().filter_map(Option::as_mut) {
            // A missing declaration is caught by the tests; the document still serves.
            if let Some(refusals) = Refusals::take(operation) {
                document_route(operation, &refusals);
            }
        }
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

fn document_route(operation: &mut Operation, route: &Refusals) {
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
    for key in route.errors.iter() {
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
