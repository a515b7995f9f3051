//! Prometheus metrics at `GET /metrics`, in the text exposition format.
//!
//! - `wayfare_http_requests_total` and `wayfare_http_request_duration_seconds`
//!   (histogram), by `method`, `route` and `status`. `route` is the matched
//!   route template (`/api/v1/bookings/{id}`), never the raw path, so the
//!   number of series stays bounded; requests no route matched are
//!   `unmatched`.
//! - `wayfare_online_drivers`, `wayfare_available_drivers`,
//!   `wayfare_active_bookings`, `wayfare_active_bookings_by_status` and
//!   `wayfare_pending_timers` (gauges), `wayfare_actor_restarts_total` by
//!   `actor` (a counter): read from the runtime's counts at each scrape.
//! - `wayfare_sqlite_memory_bytes` (gauge, SQLite storage only): what SQLite
//!   holds, page caches first.
//! - `wayfare_dispatch_latency_seconds` (histogram): from a Book Now
//!   booking's creation (`bookingDate`) to its first `OfferMade` event, as a
//!   task subscribed to the runtime's event bus sees it.
//!
//! The recorder is process-wide and installed once ([`install`]), however
//! many apps a process builds (the tests build several); it opens no port of
//! its own: the axum handler renders it.

use crate::openapi::refusals::public;
use crate::routes::ApiRouter;
use crate::state::AppState;
use ::metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Instant;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use utoipa_axum::routes;
use wayfare_actors::{Event, Runtime};
use wayfare_engine::{BookingId, BookingStatus, MINUTE_MS};
use wayfare_storage::Backend;

pub mod names;

pub use names::{
    ACTIVE_BOOKINGS, ACTIVE_BOOKINGS_BY_STATUS, ACTOR_RESTARTS, AVAILABLE_DRIVERS, CLUSTER_FORWARDED, CLUSTER_LINK_UP,
    CLUSTER_TAKEN_OVER, DISPATCH_LATENCY, HTTP_DURATION, HTTP_REQUESTS, ONLINE_DRIVERS, PENDING_TIMERS, SQLITE_MEMORY,
    UNMATCHED_ROUTE,
};

/// Seconds; requests are expected in milliseconds.
const HTTP_BUCKETS: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// Seconds; an offer is expected within tens of milliseconds, but a booking
/// that found no driver at first is offered on a later retry, minutes on.
const DISPATCH_BUCKETS: &[f64] =
    &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0];

/// Bookings remembered as already offered; past this the memory is dropped
/// rather than grow without bound (a booking forgotten that way and
/// offered again would be counted twice).
const MAX_REMEMBERED_BOOKINGS: usize = 100_000;

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process-wide recorder the first time; returns its handle.
pub fn install() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(HTTP_DURATION.into()), HTTP_BUCKETS)
            .and_then(|builder| {
                builder.set_buckets_for_metric(Matcher::Full(DISPATCH_LATENCY.into()), DISPATCH_BUCKETS)
            })
            .expect("the bucket lists are not empty")
            .build_recorder();
        let handle = recorder.handle();
        if let Err(error) = ::metrics::set_global_recorder(recorder) {
            // Another recorder came first: /metrics then shows nothing we record.
            tracing::error!(%error, "a metrics recorder was already installed; /metrics will be empty");
        }
        describe();
        handle
    })
}

fn describe() {
    describe_counter!(HTTP_REQUESTS, "HTTP requests answered, by method, matched route and status");
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "Time to answer an HTTP request, by method, matched route and status"
    );
    describe_gauge!(ONLINE_DRIVERS, "Drivers online (in the dispatch index)");
    describe_gauge!(AVAILABLE_DRIVERS, "Drivers online and not busy with a trip");
    describe_gauge!(ACTIVE_BOOKINGS, "Bookings neither COMPLETE nor CANCELLED with a live actor");
    describe_gauge!(ACTIVE_BOOKINGS_BY_STATUS, "Active bookings by status");
    describe_counter!(ACTOR_RESTARTS, "Booking and driver actors restarted from storage after a failure, by actor");
    describe_gauge!(PENDING_TIMERS, "Timers waiting: offer deadlines, Book Later dispatches, auto-cancels");
    describe_gauge!(
        SQLITE_MEMORY,
        Unit::Bytes,
        "SQLite storage: memory SQLite holds in this process (page caches, statements)"
    );
    describe_gauge!(CLUSTER_LINK_UP, "Cluster mode: 1 while this node hears itself through Redis, else 0");
    describe_counter!(
        CLUSTER_FORWARDED,
        "Cluster mode: commands forwarded to the node serving their booking, by outcome (ok, refused, unavailable)"
    );
    describe_counter!(CLUSTER_TAKEN_OVER, "Cluster mode: bookings this node took over from a node that stopped");
    describe_histogram!(
        DISPATCH_LATENCY,
        Unit::Seconds,
        "From a Book Now booking's creation to its first offer to drivers"
    );
}

/// `GET /metrics`.
pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(scrape))
}

/// Counts and times every request. Layered on the whole router, so it runs
/// after routing and sees the matched route.
pub async fn track(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(request.method());
    let route = match request.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_string(),
        None => UNMATCHED_ROUTE.to_string(),
    };
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    counter!(HTTP_REQUESTS, "method" => method, "route" => route.clone(), "status" => status.clone()).increment(1);
    histogram!(HTTP_DURATION, "method" => method, "route" => route, "status" => status)
        .record(started.elapsed().as_secs_f64());
    response
}

/// Standard methods by name; anything else is `other`, so a client cannot
/// make up label values.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    summary = "Prometheus metrics",
    description = "Request counts and latencies by method, matched route and status; online and available drivers; active bookings; pending timers; actor restarts; dispatch latency (booking creation to first offer); SQLite's memory; in cluster mode, the link's state, forwarded commands and bookings taken over. Prometheus text format.",
    responses((status = 200, description = "The metrics in Prometheus text format", body = String, content_type = "text/plain")),
    extensions(("x-refusals" = json!(public![]))),
)]
pub(crate) async fn scrape(State(state): State<AppState>) -> Response {
    let handle = install();
    match state.runtime.counts().await {
        Ok(counts) => {
            gauge!(ONLINE_DRIVERS).set(counts.online_drivers as f64);
            gauge!(AVAILABLE_DRIVERS).set(counts.available_drivers as f64);
            gauge!(ACTIVE_BOOKINGS).set(counts.active_bookings as f64);
            // Every active status, so one that emptied shows 0 rather than its last value.
            for status in BookingStatus::ALL.into_iter().filter(|status| status.is_active()) {
                let count = counts.by_status.get(status.as_str()).copied().unwrap_or(0);
                gauge!(ACTIVE_BOOKINGS_BY_STATUS, "status" => status.as_str()).set(count as f64);
            }
            counter!(ACTOR_RESTARTS, "actor" => "booking").absolute(counts.booking_restarts);
            counter!(ACTOR_RESTARTS, "actor" => "driver").absolute(counts.driver_restarts);
            gauge!(PENDING_TIMERS).set(counts.pending_timers as f64);
            if let Some(link) = state.cluster.get() {
                gauge!(CLUSTER_LINK_UP).set(if link.is_up() { 1.0 } else { 0.0 });
                counter!(CLUSTER_TAKEN_OVER).absolute(counts.taken_over);
            }
        }
        // The rest still renders; the gauges keep their last values.
        Err(error) => tracing::warn!(%error, "runtime counts unavailable for metrics"),
    }
    if state.storage.backend() == Backend::Sqlite {
        gauge!(SQLITE_MEMORY).set(wayfare_storage::sqlite::memory_used() as f64);
    }
    handle.run_upkeep();
    (StatusCode::OK, [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], handle.render()).into_response()
}

/// Watches the runtime's events and records each Book Now booking's time
/// from creation to its first offer. Runs until the runtime's event bus closes.
pub fn observe_dispatch(runtime: &Runtime) -> JoinHandle<()> {
    install();
    let mut events = runtime.subscribe();
    let runtime = runtime.clone();
    tokio::spawn(async move {
        let mut offered: HashSet<BookingId> = HashSet::new();
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                // Missed events are missed samples, nothing worse.
                Err(RecvError::Lagged(skipped)) => {
                    tracing::debug!(skipped, "dispatch latency observer lagged");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            match &*event {
                Event::OfferMade { booking, .. } => {
                    let first_offer = !booking.bookLater
                        && booking.dispatch.declined.is_empty()
                        && booking.dispatch.expired.is_empty()
                        && !offered.contains(&booking.id);
                    if !first_offer {
                        continue;
                    }
                    if offered.len() >= MAX_REMEMBERED_BOOKINGS {
                        offered.clear();
                    }
                    offered.insert(booking.id);
                    let waited_ms = runtime.now() - booking.bookingDate;
                    // A clock step backwards, or a booking restored long after it
                    // was made, is no dispatch latency.
                    if (0..=60 * MINUTE_MS).contains(&waited_ms) {
                        histogram!(DISPATCH_LATENCY).record(waited_ms as f64 / 1_000.0);
                    }
                }
                Event::BookingChanged(booking) if !booking.status.is_active() => {
                    offered.remove(&booking.id);
                }
                _ => {}
            }
        }
    })
}

#[cfg(test)]
mod tests;
