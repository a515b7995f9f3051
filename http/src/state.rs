//! The one state every route shares.

use crate::auth::delivery::Deliveries;
use crate::auth::limiter::Limiter;
use crate::config::Config;
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
}

impl AppState {
    pub fn new(config: Config, runtime: Runtime, deliveries: Deliveries, maps: Arc<dyn MapsProvider>) -> Self {
        let storage = runtime.storage().clone();
        AppState(Arc::new(Inner { config, runtime, storage, deliveries, limiter: Limiter::default(), maps }))
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
