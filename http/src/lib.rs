//! The HTTP and realtime edge of Wayfare: axum REST under `/api/v1`, the
//! Socket.IO endpoint on the same port, sign-in, files, and the `wayfare`
//! binary's commands. It is the only crate that knows about HTTP, sockets,
//! tokens and the outside services; routes validate, authorise and forward
//! to the actors or to storage. It decides no product rule itself.

pub mod archive;
pub mod auth;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod demo;
pub mod documents;
pub mod error;
pub mod export;
pub mod extract;
pub mod files;
pub mod i18n;
pub mod import;
pub mod messages;
pub mod metrics;
pub mod notify;
pub mod openapi;
pub mod payments;
pub mod present;
pub mod realtime;
pub mod routes;
pub mod simulate;
pub mod site;
pub mod state;
#[cfg(test)]
mod test_support;

use crate::auth::delivery::Deliveries;
use crate::config::Config;
use crate::state::AppState;
use axum::Router;
use axum::serve::ListenerExt;
use socketioxide::SocketIo;
use std::sync::Arc;
use wayfare_actors::{BatchRoads, ClusterOptions, Runtime, RuntimeOptions, SystemClock};

/// The answer for a handler that panicked: the panic's text is logged, the
/// caller gets `internal_error`.
fn panicked(panic: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let text = panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    error::ApiError::Internal(format!("a handler panicked: {text}")).into_response()
}

/// Every route of the API and the Socket.IO endpoint on one router (tests
/// call it without a server). Must run inside a Tokio runtime: it starts the
/// sockets' event fan-out.
pub fn app(state: AppState) -> Router {
    app_with_sockets(state).0
}

/// The app and the handle of its Socket.IO server, which `serve` closes on
/// shutdown so that open sockets do not hold it up.
pub fn app_with_sockets(state: AppState) -> (Router, SocketIo) {
    let (sockets, io) = realtime::layer(&state);
    (routes(state).layer(sockets), io)
}

fn routes(state: AppState) -> Router {
    // Registering a route documents it: the document is the routes' own.
    let (api, operations) = routes::api().split_for_parts();
    let mut router = api.merge(openapi::router(openapi::finish(operations)));
    // Unknown API paths answer in the API's error shape; anything else is
    // the web app (index.html for its client-side routes), when built.
    let files = state.config.ui_index().map(|index| ui_files(&state.config.ui_dir, index));
    router = router
        .fallback(move |request: axum::extract::Request| fallback(files.clone(), request))
        .method_not_allowed_fallback(method_not_allowed);
    // A handler that panics answers 500 `internal_error` in the API's shape
    // (logged), instead of dropping the connection with no answer at all.
    router = router.layer(tower_http::catch_panic::CatchPanicLayer::custom(panicked));
    crate::metrics::install();
    // Error messages in the reader's language.
    router = router.layer(axum::middleware::from_fn_with_state(state.clone(), crate::i18n::localize));
    // Last, so it wraps every route above and sees the matched route.
    router.layer(axum::middleware::from_fn(crate::metrics::track)).with_state(state)
}

type WebApp = tower_http::services::ServeDir<tower_http::services::ServeFile>;

/// The built web app. Unknown paths get index.html with 200 (`fallback`, not
/// `not_found_service`, which would answer 404): they are the app's own
/// routes, and a 404 document is an error in the browser's console.
fn ui_files(ui_dir: &std::path::Path, index: std::path::PathBuf) -> WebApp {
    tower_http::services::ServeDir::new(ui_dir).fallback(tower_http::services::ServeFile::new(index))
}

async fn fallback(files: Option<WebApp>, request: axum::extract::Request) -> axum::response::Response {
    use axum::response::IntoResponse;
    use tower::ServiceExt;
    match files {
        Some(files) if !request.uri().path().starts_with("/api/") => match files.oneshot(request).await {
            Ok(response) => response.into_response(),
            Err(error) => error::ApiError::Internal(error.to_string()).into_response(),
        },
        _ => error::ApiError::key(wayfare_engine::ErrorKey::NotFound).into_response(),
    }
}

async fn method_not_allowed() -> axum::response::Response {
    use axum::response::IntoResponse;
    let body =
        serde_json::json!({ "error": { "code": "method_not_allowed", "message": "This method is not allowed here." } });
    (axum::http::StatusCode::METHOD_NOT_ALLOWED, axum::Json(body)).into_response()
}

/// The runtime's options on a server with these maps: the `batch` dispatch
/// policy times pickups on the roads the estimates use (always with the
/// local `osm` router, with a web service only when `useDistanceMatrix` is on).
pub fn runtime_options(config: &Config, maps: &Arc<dyn wayfare_maps::MapsProvider>) -> RuntimeOptions {
    let local = config.maps.kind() == wayfare_maps::ProviderKind::Osm;
    // `start` settles the name (a default one is kept in the data directory).
    let cluster = config.cluster.enabled().then(|| ClusterOptions {
        node: config.cluster.node.clone().unwrap_or_default(),
        lease_ttl: std::time::Duration::from_millis(config.cluster.lease_ttl_ms.max(300)),
        heartbeat_ttl: std::time::Duration::from_millis(config.cluster.heartbeat_ttl_ms.max(100)),
    });
    let reposition = wayfare_engine::reposition::Settings {
        utc_offset_ms: i64::from(config.reports.utc_offset_minutes) * 60_000,
        ..Default::default()
    };
    RuntimeOptions {
        batch_roads: Some(BatchRoads { maps: maps.clone(), local }),
        cluster,
        reposition,
        ..RuntimeOptions::default()
    }
}

/// Opens storage, applies migrations, seeds the demo when asked, and starts the runtime.
pub async fn start(mut config: Config) -> anyhow::Result<AppState> {
    if config.cluster.enabled() && !config.storage_url().starts_with("postgres") {
        anyhow::bail!(
            "cluster mode (cluster.redis_url) needs PostgreSQL (database_url = \"postgres://…\"): \
             SQLite is one process's database"
        );
    }
    std::fs::create_dir_all(&config.data_dir)?;
    if config.cluster.enabled() {
        config.cluster.node = Some(config.cluster.node_name(&config.data_dir)?);
    }
    if config.demo && config.payments.secrets_key.is_none() {
        // The demo city's panel may keep gateway secrets; a real operator sets their own key.
        config.payments.secrets_key = Some(demo::secrets_key(&config.data_dir)?);
    }
    let storage = wayfare_storage::open(&config.storage_url()).await?;
    // Whether the demo city was seeded now: only then does it get a history.
    let fresh_demo = config.demo && demo::seed_with(storage.as_ref(), &config.demo_seed).await?;
    storage.prepare_earnings_rollup(config.reports.utc_offset_minutes).await?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
    let demo_mode = config.demo_mode || (config.demo && config.demo_seed.demo_mode);
    demo::apply_demo_mode(storage.as_ref(), demo_mode, now).await?;
    messages::seed_languages(storage.as_ref(), now).await?;
    // Before anything starts: a push service that cannot start stops the server.
    let notifier = notify::Notifier::from_config(&config)?;
    let (maps_config, maps_cache) = (config.maps.clone(), config.maps_cache_dir());
    // Loading (or first preparing) a road network is seconds of CPU work.
    let maps = tokio::task::spawn_blocking(move || wayfare_maps::provider_from(&maps_config, &maps_cache)).await??;
    if fresh_demo && config.demo_seed.history_days > 0 {
        demo::history::seed(storage.as_ref(), &maps, &config, now).await?;
    }
    let runtime = Runtime::start(storage, Arc::new(SystemClock), runtime_options(&config, &maps)).await?;
    let deliveries = Deliveries::from_config(&config.delivery)?;
    if deliveries.outbox.is_some() {
        tracing::warn!(
            "the dev outbox is ON: sign-in codes are readable at /api/v1/dev/outbox; never use this in production"
        );
    }
    let files = files::store_from_config(&config.files, &config.data_dir)?;
    if config.payments.test_gateway {
        tracing::warn!(
            "the test payment gateway is ON: its page marks payments paid without money; never use this in production"
        );
    }
    crate::metrics::observe_dispatch(&runtime);
    let cluster = config.cluster.clone();
    let state = AppState::from_parts(config, runtime, deliveries, maps, notifier, files);
    if cluster.enabled() {
        let node = cluster.node.clone().unwrap_or_default();
        let link = cluster::Link::start(&cluster, node, state.runtime.clone(), &state.notifier)?;
        let _ = state.cluster.set(link);
    }
    Ok(state)
}

/// How long a stopping server waits for its sockets to close.
const SOCKETS_CLOSE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves until SIGINT or SIGTERM, then finishes in-flight requests and stops the actors.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let listen = config.listen;
    let state = start(config).await?;
    let runtime = state.runtime.clone();
    // Reminders of expiring documents; expired ones take drivers offline.
    let sweep = routes::applications::spawn_document_sweep(state.clone());
    // One player per city: a cluster's nodes would each play the same people.
    let demo = (state.config.demo && !state.config.cluster.enabled()).then(|| state.clone());
    let (router, sockets) = app_with_sockets(state);
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    tracing::info!(%address, "wayfare listening");
    // The demo city's people, played beside the server (never outside `--demo`).
    let living = demo.map(|state| demo::living::spawn(state, address));
    let shutdown = async move {
        shutdown_signal().await;
        if let Some(living) = living {
            living.stop().await;
        }
        tracing::info!("closing the sockets");
        // A client that will not let go must not keep the server from stopping.
        if tokio::time::timeout(SOCKETS_CLOSE_WITHIN, sockets.close()).await.is_err() {
            tracing::warn!("sockets still open after {SOCKETS_CLOSE_WITHIN:?}: stopping anyway");
        }
    };
    // Small socket packets (acks, events) go out at once instead of waiting
    // for the peer's ACK of the previous one (Nagle).
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
    });
    axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await?;
    sweep.abort();
    tracing::info!("stopping the runtime");
    runtime.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

/// Applies the migrations (opening storage does) and exits.
/// `wayfare map prepare FILE`: builds the extract's routing graph into the
/// cache `serve` reads, drawing a progress bar on stderr.
pub async fn prepare_map(config: Config, file: &std::path::Path) -> anyhow::Result<()> {
    use std::io::Write as _;
    let (file, cache) = (file.to_path_buf(), config.maps_cache_dir());
    let started = std::time::Instant::now();
    let origin = tokio::task::spawn_blocking(move || {
        wayfare_maps::osm::cache::load_or_prepare(&file, &cache, |stage, done, of| {
            let share = if of == 0 { 1.0 } else { done as f64 / of as f64 };
            let filled = (share * 30.0).round() as usize;
            eprint!("\r[{}{}] {:>3.0}% {stage:<32}", "#".repeat(filled), "-".repeat(30 - filled), share * 100.0);
            let _ = std::io::stderr().flush();
        })
        .map(|(_, origin)| origin)
    })
    .await??;
    eprintln!();
    match origin {
        wayfare_maps::osm::cache::Origin::Cached => println!("already prepared: {}", config.maps_cache_dir().display()),
        wayfare_maps::osm::cache::Origin::Prepared => {
            println!("prepared in {:.1} s into {}", started.elapsed().as_secs_f64(), config.maps_cache_dir().display())
        }
    }
    Ok(())
}

pub async fn migrate(config: Config) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.data_dir)?;
    wayfare_storage::open(&config.storage_url()).await?;
    tracing::info!("migrations applied");
    Ok(())
}

/// Prints what [`wayfare_storage::Storage::audit`] finds, as JSON on stdout
/// and a verdict on stderr; true when every invariant holds.
pub async fn audit(config: Config) -> anyhow::Result<bool> {
    // Opening a missing SQLite file would create an empty one that audits clean.
    let sqlite = config.database_url.as_deref().is_none_or(str::is_empty);
    if sqlite && !config.database_path().exists() {
        anyhow::bail!(
            "no database at {}: give the server's --data-dir or --database-url",
            config.database_path().display()
        );
    }
    let storage = wayfare_storage::open(&config.storage_url()).await?;
    let audit = storage.audit().await?;
    println!("{}", serde_json::to_string_pretty(&audit)?);
    if audit.is_clean() {
        eprintln!(
            "audit: clean ({} users, {} bookings, {} active)",
            audit.users, audit.bookings, audit.active_bookings
        );
    } else {
        eprintln!("audit: INVARIANTS BROKEN (see the lists above)");
    }
    Ok(audit.is_clean())
}

/// Makes the first admin of a real installation.
pub async fn create_admin(config: Config, email: &str) -> anyhow::Result<()> {
    let email = match wayfare_engine::rules::contact::validate_login_contact(email, None, false) {
        Ok(wayfare_engine::rules::contact::Contact::Email(email)) => email,
        _ => anyhow::bail!("{email} is not a valid e-mail address"),
    };
    std::fs::create_dir_all(&config.data_dir)?;
    let storage = wayfare_storage::open(&config.storage_url()).await?;
    if storage.user_by_email(&email).await?.is_some() {
        anyhow::bail!("a user with {email} already exists");
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
    let mut admin =
        wayfare_engine::User::new(wayfare_engine::UserId(uuid::Uuid::now_v7()), wayfare_engine::Role::Admin, now);
    admin.email = email.clone();
    admin.regType = wayfare_engine::RegType::Admin;
    admin.approved = true;
    admin.referralId = wayfare_engine::generate::referral_code(&mut rand::rng());
    storage.insert_user(&admin).await?;
    println!("admin {email} created; sign in with a code sent to that address");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;

    #[tokio::test]
    async fn client_routes_get_the_app_with_200() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index.html");
        std::fs::write(&index, "<!doctype html><title>app</title>").unwrap();
        std::fs::write(dir.path().join("app.js"), "console.log(1)").unwrap();
        for (path, body) in [("/bookings", "<!doctype html>"), ("/app.js", "console.log(1)"), ("/", "<!doctype html>")]
        {
            let response = ui_files(dir.path(), index.clone())
                .oneshot(Request::get(path).body(Body::empty()).unwrap())
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let bytes = axum::body::to_bytes(Body::new(response.into_body()), 1 << 16).await.unwrap();
            assert!(String::from_utf8_lossy(&bytes).starts_with(body), "{path}");
        }
    }
}
