//! The names of the metrics the server exports, and the `route` label of
//! unmatched requests. They import nothing, so code that records a metric
//! (the cluster link, for one) need not import the scrape handler and the
//! app's state with it.

pub const HTTP_REQUESTS: &str = "wayfare_http_requests_total";
pub const HTTP_DURATION: &str = "wayfare_http_request_duration_seconds";
pub const ONLINE_DRIVERS: &str = "wayfare_online_drivers";
pub const AVAILABLE_DRIVERS: &str = "wayfare_available_drivers";
pub const ACTIVE_BOOKINGS: &str = "wayfare_active_bookings";
pub const ACTIVE_BOOKINGS_BY_STATUS: &str = "wayfare_active_bookings_by_status";
pub const DISPATCH_LATENCY: &str = "wayfare_dispatch_latency_seconds";
pub const ACTOR_RESTARTS: &str = "wayfare_actor_restarts_total";
pub const PENDING_TIMERS: &str = "wayfare_pending_timers";
pub const CLUSTER_LINK_UP: &str = "wayfare_cluster_link_up";
pub const CLUSTER_FORWARDED: &str = "wayfare_cluster_forwarded_total";
pub const CLUSTER_TAKEN_OVER: &str = "wayfare_cluster_bookings_taken_over_total";
pub const SQLITE_MEMORY: &str = "wayfare_sqlite_memory_bytes";

/// The `route` label of requests no route matched (unknown paths, the web app's files).
pub const UNMATCHED_ROUTE: &str = "unmatched";
