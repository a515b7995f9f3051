//! The one state every route shares.

use crate::auth::delivery::Deliveries;
use crate::auth::limiter::Limiter;
use crate::config::Config;
use crate::files::FileStore;
use crate::i18n::LanguageCache;
use crate::notify::Notifier;
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
    /// The languages table, cached for server messages (`crate::i18n`).
    pub languages: LanguageCache,
    /// In-app and push notifications (`crate::notify`).
    pub notifier: Arc<Notifier>,
    /// The link to the other nodes, in cluster mode (`crate::cluster`).
    pub cluster: std::sync::OnceLock<Arc<crate::cluster::Link>>,
    /// The payment gateways' settings.
    pub gateways: crate::payments::registry::Gateways,
    /// The OpenID providers' signing keys, for social sign-in.
    pub oidc_keys: crate::auth::oauth::keys::KeyCache,
}

impl AppState {
    /// The state with the push services and the file store of the
    /// configuration; push services that cannot start (an unreadable VAPID
    /// key) are logged and left out, so the app still notifies in-app.
    /// `crate::start` checks both first.
    pub fn new(config: Config, runtime: Runtime, deliveries: Deliveries, maps: Arc<dyn MapsProvider>) -> Self {
        let notifier = Notifier::from_config(&config).unwrap_or_else(|error| {
            tracing::error!(%error, "push services not started; notifications are in-app only");
            Notifier::in_app_only()
        });
        AppState::with_notifier(config, runtime, deliveries, maps, notifier)
    }

    /// The state with a given notifier and the configured file store.
    pub fn with_notifier(
        config: Config,
        runtime: Runtime,
        deliveries: Deliveries,
        maps: Arc<dyn MapsProvider>,
        notifier: Notifier,
    ) -> Self {
        // `start` checked the configuration first; a test's default is the local store.
        let files = crate::files::store_from_config(&config.files, &config.data_dir)
            .expect("the file store configuration is checked at start");
        AppState::from_parts(config, runtime, deliveries, maps, notifier, files)
    }

    /// The state from its parts. Inside a Tokio runtime it also starts
    /// delivering the engine's booking notices.
    pub fn from_parts(
        config: Config,
        runtime: Runtime,
        deliveries: Deliveries,
        maps: Arc<dyn MapsProvider>,
        notifier: Notifier,
        files: Arc<dyn FileStore>,
    ) -> Self {
        let storage = runtime.storage().clone();
        let languages = LanguageCache::default();
        let notifier = Arc::new(notifier);
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(crate::notify::booking_notices(runtime.clone(), languages.clone(), notifier.clone()));
            tokio::spawn(crate::documents::mail::receipt_mails(
                runtime.clone(),
                languages.clone(),
                deliveries.clone(),
                config.reports.utc_offset_minutes,
            ));
        }
        let http_client = reqwest::Client::builder()
            .use_rustls_tls()
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        // `Config::load` refused a configuration with a gateway it does not know.
        let gateways = crate::payments::registry::Gateways::from_config(&config.payments)
            .expect("the payment gateways' settings are checked when the configuration loads");
        AppState(Arc::new(Inner {
            gateways,
            config,
            runtime,
            storage,
            deliveries,
            limiter: Limiter::default(),
            maps,
            files,
            http_client,
            languages,
            notifier,
            cluster: std::sync::OnceLock::new(),
            oidc_keys: Default::default(),
        }))
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
