//! The one state every route shares.

use crate::auth::delivery::Deliveries;
use crate::auth::limiter::Limiter;
use crate::config::Config;
use crate::files::FileStore;
use std::ops::Deref;
use std::sync::Arc;
use wayfare_actors::Runtime;
use wayfare_engine::Millis;
use wayfare_maps::MapsProvider;
use wayfare_storage::Storage;

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub runtime: Runtime,
    pub storage: Arc<dyn Storage>,
    pub deliveries: Deliveries,
    pub limiter: Limiter,
    pub maps: Arc<dyn MapsProvider>,
    /// Uploaded files' bytes (the `files` table says what they are).
    pub files: Arc<dyn FileStore>,
    /// Outgoing calls to payment gateways (Stripe's API).
    pub http_client: reqwest::Client,
}

impl AppState {
    pub fn new(config: Config, runtime: Runtime, deliveries: Deliveries, maps: Arc<dyn MapsProvider>) -> Self {
        // `start` checked the configuration first; a test's default is the local store.
        let files = crate::files::store_from_config(&config.files, &config.data_dir)
            .expect("the file store configuration is checked at start");
        AppState::with_file_store(config, runtime, deliveries, maps, files)
    }

    /// The state with a given file store (tests use an in-memory object store).
    pub fn with_file_store(
        config: Config,
        runtime: Runtime,
        deliveries: Deliveries,
        maps: Arc<dyn MapsProvider>,
        files: Arc<dyn FileStore>,
    ) -> Self {
        let storage = runtime.storage().clone();
        let http_client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        AppState(Arc::new(Inner { config, runtime, storage, deliveries, limiter: Limiter::default(), maps, files, http_client }))
    }

    pub fn now(&self) -> Millis {
        self.runtime.now()
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
