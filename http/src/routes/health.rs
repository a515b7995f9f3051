//! Liveness and readiness.

use crate::error::{ApiError, ApiResult};
use crate::openapi::refusals::public;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use std::time::Duration;
use utoipa_axum::routes;

/// How long readiness waits for the database and for the runtime.
const READY_WITHIN: Duration = Duration::from_secs(2);

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(health)).routes(routes!(ready))
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    summary = "Liveness",
    responses((status = 200, description = "The server is up", body = crate::openapi::schemas::Health)),
    extensions(("x-refusals" = json!(public![]))),
)]
async fn health() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    summary = "Readiness",
    description = "Ready when the database answers a read and the dispatch runtime answers, each within 2 s, and, in cluster mode, the node hears the others through Redis and serves bookings: what a load balancer checks before it sends a node traffic (docs/operations.md).",
    responses(
        (status = 200, description = "Ready", body = crate::openapi::schemas::Health),
        (status = 503, description = "`unavailable`: the database or the runtime did not answer, or the cluster link is down", body = crate::openapi::schemas::ErrorBody)
    ),
    extensions(("x-refusals" = json!(public![]))),
)]
async fn ready(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let unavailable = |what: &str| ApiError::Unavailable(format!("readiness: {what}"));
    tokio::time::timeout(READY_WITHIN, state.storage.settings())
        .await
        .map_err(|_| unavailable("the database timed out"))?
        .map_err(|error| unavailable(&format!("the database: {error}")))?;
    if let Some(link) = state.cluster.get()
        && !(link.is_up() && state.runtime.is_serving())
    {
        return Err(unavailable("the cluster link is down"));
    }
    tokio::time::timeout(READY_WITHIN, state.runtime.ping())
        .await
        .map_err(|_| unavailable("the runtime timed out"))?
        .map_err(|error| unavailable(&format!("the runtime: {error}")))?;
    Ok(Json(json!({ "status": "ready" })))
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestApp;
    use axum::http::{Method, StatusCode};

    #[tokio::test]
    async fn ready_while_the_runtime_answers_and_alive_after() {
        let app = TestApp::demo().await;
        let ready = app.call(Method::GET, "/readyz", None, None).await;
        assert_eq!((ready.status, ready.json()["status"].as_str()), (StatusCode::OK, Some("ready")));
        // A stopped runtime: out of the load balancer, though still alive.
        app.state.runtime.shutdown().await;
        let stopped = app.call(Method::GET, "/readyz", None, None).await;
        assert_eq!(stopped.status, StatusCode::SERVICE_UNAVAILABLE, "{}", stopped.text);
        assert_eq!(stopped.json()["error"]["code"], "unavailable");
        assert_eq!(app.call(Method::GET, "/healthz", None, None).await.status, StatusCode::OK);
    }
}
