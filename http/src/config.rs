//! Configuration: defaults, then a TOML file, then `WAYFARE_*` environment
//! variables (nested keys with `__`, e.g. `WAYFARE_AUTH__CODE_TTL_SECS`),
//! then command-line flags. Every key is documented in docs/configuration.md.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Address and port to listen on.
    pub listen: SocketAddr,
    /// Where the SQLite database, uploads and generated keys live.
    pub data_dir: PathBuf,
    /// `postgres://…` for PostgreSQL; empty for SQLite in `data_dir`.
    pub database_url: Option<String>,
    /// Seed the demo city once and turn the dev outbox on.
    pub demo: bool,
    /// Demo mode (`AllowCriticalEditsAdmin` off): a public showcase where
    /// visitors look but do not change or export, contacts masked. Applied
    /// to the stored settings at every start; the settings API cannot
    /// switch it (issue #34).
    pub demo_mode: bool,
    /// Where the built web app is served from, when it exists.
    pub ui_dir: PathBuf,
    pub auth: AuthConfig,
    pub delivery: DeliveryConfig,
    pub realtime: RealtimeConfig,
    /// What `--demo` seeds into a fresh database.
    pub demo_seed: DemoSeedConfig,
    pub maps: wayfare_maps::MapsConfig,
    pub files: FilesConfig,
    pub payments: PaymentsConfig,
    pub reports: ReportsConfig,
    pub push: PushConfig,
    pub cluster: ClusterConfig,
}

/// Several nodes serving one platform (docs/operations.md "Running several
/// nodes"): on when `redis_url` is set; needs PostgreSQL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClusterConfig {
    /// `redis://host:6379`: the nodes' link (events, driver positions,
    /// forwarded commands). Empty: one node.
    pub redis_url: Option<String>,
    /// This node's name: unique in the cluster and the same across its
    /// restarts (a restarted node takes its own bookings back at once).
    /// When empty, the host name and a suffix made at the first start and
    /// kept in `data_dir/node-name` (`ClusterConfig::node_name`).
    pub node: Option<String>,
    /// How long a node's hold on a booking lasts unless renewed: the
    /// bookings of a node whose heartbeat was not seen to stop are taken
    /// over within about this long.
    pub lease_ttl_ms: u64,
    /// How long a node's heartbeat lasts unless renewed (it is renewed four
    /// times in it): a node silent for this long is declared dead and its
    /// bookings taken over at once.
    pub heartbeat_ttl_ms: u64,
    /// Put before the Redis channel names (several clusters on one Redis).
    pub prefix: String,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            redis_url: None,
            node: None,
            lease_ttl_ms: 5_000,
            heartbeat_ttl_ms: 1_000,
            prefix: "wayfare".to_string(),
        }
    }
}

impl ClusterConfig {
    pub fn enabled(&self) -> bool {
        self.redis_url.as_deref().is_some_and(|url| !url.is_empty())
    }

    /// The configured name; else the one kept in `data_dir/node-name`,
    /// made at the first start as the host name and a random suffix, so
    /// that two nodes on one host (each with its data directory) differ and
    /// a restart on the same data directory keeps its name (and takes its
    /// bookings back at once).
    pub fn node_name(&self, data_dir: &Path) -> anyhow::Result<String> {
        if let Some(name) = self.node.as_deref().map(str::trim).filter(|name| !name.is_empty()) {
            return Ok(name.to_string());
        }
        let file = data_dir.join(NODE_NAME_FILE);
        match std::fs::read_to_string(&file) {
            Ok(name) if !name.trim().is_empty() => return Ok(name.trim().to_string()),
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => anyhow::bail!("the node name in {}: {error}", file.display()),
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|name| name.trim().to_string())
            .filter(|name| !name.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "wayfare".to_string());
        let suffix = &uuid::Uuid::now_v7().simple().to_string()[26..];
        let name = format!("{host}-{suffix}");
        std::fs::create_dir_all(data_dir)?;
        std::fs::write(&file, format!("{name}\n"))
            .map_err(|error| anyhow::anyhow!("the node name in {}: {error}", file.display()))?;
        Ok(name)
    }
}

/// The file in the data directory that keeps a node's default name.
pub const NODE_NAME_FILE: &str = "node-name";

/// Uploaded images (profile photos, licences, car type images, parcel photos).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FilesConfig {
    /// `local` (a directory) or `s3` (an S3-compatible bucket).
    pub store: FileStoreKind,
    /// The directory of the local store; `data_dir/uploads` when empty.
    pub local_dir: Option<PathBuf>,
    /// The largest upload accepted, in bytes (413 `file_too_large` above).
    pub max_upload_bytes: usize,
    pub s3: S3Config,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FileStoreKind {
    #[default]
    Local,
    S3,
}

/// An S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct S3Config {
    pub bucket: String,
    pub region: String,
    /// The service URL for S3-compatible stores (e.g. `http://minio:9000`);
    /// AWS when empty.
    pub endpoint: Option<String>,
    /// Credentials; when empty, the usual AWS environment and instance
    /// credentials are used.
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    /// Put before every key, e.g. `wayfare/`.
    pub prefix: String,
    /// Allow a plain-HTTP endpoint (a local MinIO).
    pub allow_http: bool,
    /// `bucket.host/key` URLs instead of `host/bucket/key`.
    pub virtual_hosted_style: bool,
}

/// Payment gateways (spec §3 payment providers and payment settings, §7
/// checkout form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct PaymentsConfig {
    /// Serve the built-in `test` gateway, whose page pays without money.
    /// Never in production; `--demo` turns it on.
    pub test_gateway: bool,
    /// This server's public URL (`https://ride.example.com`), for the links
    /// a gateway sends the payer back to; taken from the request when empty.
    pub public_url: Option<String>,
    /// The key gateway secrets saved from the panel are encrypted with:
    /// 32 bytes as 64 hex digits. Without it the panel cannot store secrets.
    pub secrets_key: Option<String>,
    /// `[payments.<gateway>]`: a gateway's settings by the original
    /// product's field names (`crate::payments::gateways`), checked at start.
    #[serde(flatten)]
    pub gateways: std::collections::BTreeMap<String, figment::value::Value>,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            store: FileStoreKind::Local,
            local_dir: None,
            max_upload_bytes: 5 * 1024 * 1024,
            s3: S3Config::default(),
        }
    }
}

impl Default for S3Config {
    fn default() -> Self {
        S3Config {
            bucket: String::new(),
            region: "us-east-1".into(),
            endpoint: None,
            access_key_id: None,
            secret_access_key: None,
            prefix: String::new(),
            allow_http: false,
            virtual_hosted_style: false,
        }
    }
}

/// A push service (docs/configuration.md `[push]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PushKind {
    /// The Expo push API, for the mobile apps' `ExponentPushToken[…]` tokens.
    Expo,
    /// Web Push with VAPID, for browsers' push subscriptions.
    Webpush,
}

/// Notifications to devices. With no sender, notifications are in-app only
/// (over the socket) and nothing leaves the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PushConfig {
    /// The push services to use, e.g. `["expo", "webpush"]`; empty for none.
    pub senders: Vec<PushKind>,
    /// Where Expo push messages are POSTed.
    pub expo_url: String,
    /// An Expo access token, when the Expo project requires one.
    pub expo_access_token: Option<String>,
    /// The VAPID `sub` claim: a `mailto:` or `https:` contact for push services.
    pub web_push_subject: String,
    /// The VAPID private key file; `vapid_private_key` in the data directory
    /// by default, generated at first start.
    pub vapid_key_file: Option<PathBuf>,
    /// Accept plain-http push endpoints (local push servers and tests only).
    pub web_push_allow_http: bool,
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig {
            senders: Vec::new(),
            expo_url: "https://exp.host/--/api/v2/push/send".into(),
            expo_access_token: None,
            web_push_subject: "mailto:admin@wayfare.local".into(),
            vapid_key_file: None,
            web_push_allow_http: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthConfig {
    /// How long a sign-in code is valid.
    pub code_ttl_secs: u64,
    /// Wrong tries allowed per code.
    pub max_attempts: u32,
    /// Codes one contact may ask for per window.
    pub codes_per_contact: u32,
    /// Code requests one client address may make per window.
    pub codes_per_client: u32,
    /// The rate-limit window.
    pub window_secs: u64,
    /// Session lifetime.
    pub session_days: u32,
    /// Mark the session cookie `Secure` (behind HTTPS).
    pub cookie_secure: bool,
    /// Reverse proxies and load balancers (addresses or CIDR ranges) whose
    /// `X-Forwarded-For` names the client for the per-client limit; from any
    /// other peer the header is ignored, since anyone can send it.
    pub trusted_proxies: TrustedProxies,
    /// Social sign-in providers (issue #37), each `[auth.oauth.<name>]`.
    pub oauth: OAuthConfig,
}

/// The social sign-in providers' credentials. A provider is offered when
/// its platform setting is on (`GoogleLoginEnabled`, `AppleLoginEnabled`,
/// `FacebookLoginEnabled`) and its client id and secret are set here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct OAuthConfig {
    pub google: OAuthProviderConfig,
    pub apple: OAuthProviderConfig,
    pub facebook: OAuthProviderConfig,
}

/// One provider's client at the provider, and its endpoints when they are
/// not the provider's own (a test's fake, a proxy). An endpoint left empty is
/// the provider's (`crate::auth::oauth::endpoints`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct OAuthProviderConfig {
    pub client_id: Option<String>,
    /// The client secret. Apple's is a JWT the operator signs with their
    /// ES256 key (valid up to 6 months) and renews: it is taken as given.
    pub client_secret: Option<String>,
    pub authorize_url: Option<String>,
    pub token_url: Option<String>,
    /// Where Facebook's person is read (the Graph API's `/me`).
    pub userinfo_url: Option<String>,
    /// Where an OpenID provider's signing keys are read.
    pub jwks_url: Option<String>,
    /// The `iss` an OpenID provider's ID tokens carry.
    pub issuer: Option<String>,
}

impl OAuthProviderConfig {
    /// Whether the client id and secret are both set.
    pub fn configured(&self) -> bool {
        self.client_id.as_deref().is_some_and(|id| !id.is_empty())
            && self.client_secret.as_deref().is_some_and(|secret| !secret.is_empty())
    }
}

impl OAuthConfig {
    pub fn provider(&self, provider: wayfare_engine::social::SocialProvider) -> &OAuthProviderConfig {
        use wayfare_engine::social::SocialProvider;
        match provider {
            SocialProvider::Google => &self.google,
            SocialProvider::Apple => &self.apple,
            SocialProvider::Facebook => &self.facebook,
        }
    }
}

/// Addresses or CIDR ranges (`10.0.0.0/8`, `127.0.0.1`, `::1`), checked when
/// the configuration loads.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct TrustedProxies(Vec<(std::net::IpAddr, u8)>);

impl TrustedProxies {
    pub fn contains(&self, address: std::net::IpAddr) -> bool {
        use std::net::IpAddr;
        self.0.iter().any(|&(network, bits)| match (network, address.to_canonical()) {
            (IpAddr::V4(network), IpAddr::V4(address)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
                u32::from(network) & mask == u32::from(address) & mask
            }
            (IpAddr::V6(network), IpAddr::V6(address)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
                u128::from(network) & mask == u128::from(address) & mask
            }
            _ => false,
        })
    }
}

impl TryFrom<Vec<String>> for TrustedProxies {
    type Error = String;

    fn try_from(entries: Vec<String>) -> Result<Self, String> {
        let parse = |entry: &str| -> Option<(std::net::IpAddr, u8)> {
            let (address, bits) = entry.split_once('/').map_or((entry, None), |(address, bits)| (address, Some(bits)));
            let address: std::net::IpAddr = address.trim().parse().ok()?;
            let most = if address.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(bits) => bits.trim().parse::<u8>().ok().filter(|bits| *bits <= most)?,
                None => most,
            };
            Some((address, bits))
        };
        entries
            .iter()
            .map(|entry| {
                parse(entry).ok_or_else(|| format!("trusted_proxies: {entry:?} is not an address or a CIDR range"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl From<TrustedProxies> for Vec<String> {
    fn from(proxies: TrustedProxies) -> Self {
        proxies.0.iter().map(|(address, bits)| format!("{address}/{bits}")).collect()
    }
}

/// How sign-in codes reach people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeliveryConfig {
    /// Keep every message in memory and serve it at `/api/v1/dev/outbox`.
    /// For development and demos only: it shows sign-in codes to anyone.
    pub dev_outbox: bool,
    /// `smtp://user:password@host:port` or `smtps://…`; e-mail codes are
    /// refused when neither this nor the dev outbox is set.
    pub smtp_url: Option<String>,
    pub email_from: String,
    /// A Twilio-compatible endpoint, e.g.
    /// `https://api.twilio.com/2010-04-01/Accounts/SID/Messages.json`.
    pub sms_url: Option<String>,
    pub sms_account: Option<String>,
    pub sms_token: Option<String>,
    pub sms_from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RealtimeConfig {
    /// How often the admins' `drivers` feed is sent, at most.
    pub drivers_feed_ms: u64,
    /// How often consoles are sent the live figures.
    pub console_ms: u64,
    /// How often consoles are sent the H3 supply and demand cells.
    pub hexes_ms: u64,
}

/// The platform's reporting time zone, as a fixed offset (UTC by default).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportsConfig {
    /// Minutes east of UTC that earnings months are cut in (e.g. -300 for
    /// UTC−5). The monthly earnings roll-up is kept in this offset and is
    /// rebuilt from the bookings at start when it changes; every server on
    /// one database must use the same value.
    pub utc_offset_minutes: i32,
}

/// The demo city's size and dispatch policy. Read only when the demo is
/// seeded, i.e. on the first `--demo` start on an empty database; later
/// starts keep what the database holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DemoSeedConfig {
    /// Demo drivers (`driver1@demo.wayfare` … `driverN@demo.wayfare`). The
    /// realtime load generator seeds 2,000 this way.
    pub drivers: u32,
    /// `batch` (the default), `waves`, `broadcast` or `nearest`. The realtime test uses
    /// `broadcast` so that five drivers near a pickup are all offered it.
    pub dispatch_policy: wayfare_engine::DispatchPolicy,
    /// Run the demo city in demo mode (as the top-level `demo_mode`, for a
    /// `--demo` server only). The browser tests run one such server.
    pub demo_mode: bool,
    /// The living demo's switch as first seeded (the panel's `livingDemo`
    /// setting afterwards): demo drivers and riders played by the server.
    /// The test harnesses that drive the demo people themselves turn it off.
    pub living: bool,
    /// Days of past trips seeded into a fresh demo (0: none).
    pub history_days: u32,
    /// Demo seconds per real second for the living demo's drives and
    /// boarding (read at every start; the browser test speeds trips up).
    pub living_speed: f64,
}

impl DemoSeedConfig {
    /// Demo drivers of a fresh demo, unless the config says otherwise.
    pub const DEFAULT_DRIVERS: u32 = 20;
    /// Days of past trips a fresh demo is seeded with, unless the config
    /// says otherwise.
    pub const DEFAULT_HISTORY_DAYS: u32 = 14;
}

impl Default for DemoSeedConfig {
    fn default() -> Self {
        DemoSeedConfig {
            drivers: DemoSeedConfig::DEFAULT_DRIVERS,
            dispatch_policy: wayfare_engine::DispatchPolicy::default(),
            demo_mode: false,
            living: true,
            history_days: DemoSeedConfig::DEFAULT_HISTORY_DAYS,
            living_speed: 1.0,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "0.0.0.0:8080".parse().expect("valid default address"),
            data_dir: PathBuf::from("wayfare-data"),
            database_url: None,
            demo: false,
            demo_mode: false,
            ui_dir: PathBuf::from("ui/dist"),
            auth: AuthConfig::default(),
            delivery: DeliveryConfig::default(),
            realtime: RealtimeConfig::default(),
            demo_seed: DemoSeedConfig::default(),
            maps: wayfare_maps::MapsConfig::default(),
            files: FilesConfig::default(),
            payments: PaymentsConfig::default(),
            reports: ReportsConfig::default(),
            push: PushConfig::default(),
            cluster: ClusterConfig::default(),
        }
    }
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            code_ttl_secs: 600,
            max_attempts: 5,
            codes_per_contact: 5,
            codes_per_client: 30,
            window_secs: 600,
            session_days: 30,
            cookie_secure: false,
            trusted_proxies: TrustedProxies::default(),
            oauth: OAuthConfig::default(),
        }
    }
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        DeliveryConfig {
            dev_outbox: false,
            smtp_url: None,
            email_from: "Wayfare <no-reply@wayfare.local>".into(),
            sms_url: None,
            sms_account: None,
            sms_token: None,
            sms_from: None,
        }
    }
}

impl Default for RealtimeConfig {
    fn default() -> Self {
        RealtimeConfig { drivers_feed_ms: 1_000, console_ms: 2_000, hexes_ms: 5_000 }
    }
}

/// The demo city's extract, `data/baltimore.osm.pbf`: next to the working
/// directory (`make run`), else in the source tree the binary was built in.
fn demo_map_file() -> Option<PathBuf> {
    const DEMO_MAP: &str = "data/baltimore.osm.pbf";
    let built_in = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(DEMO_MAP);
    [PathBuf::from(DEMO_MAP), built_in].into_iter().find(|path| path.is_file())
}

/// Flags given on the command line; they win over the file and environment.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config_file: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
    pub database_url: Option<String>,
    pub demo: bool,
    /// `--demo-mode`: run in demo mode.
    pub demo_mode: bool,
    /// `--map FILE`: the OpenStreetMap provider on this extract.
    pub map: Option<PathBuf>,
    /// `--redis-url`: cluster mode.
    pub redis_url: Option<String>,
    /// `--node`: this node's name in the cluster.
    pub node: Option<String>,
}

/// The keys of a `wayfare.toml` that no setting reads (a typo would
/// otherwise be silently ignored). The file parsed already, through figment.
fn unknown_keys(file: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(file) else { return Vec::new() };
    let mut unknown = Vec::new();
    let parsed: Result<Config, _> =
        serde_ignored::deserialize(toml::Deserializer::new(&text), |path| unknown.push(format!("`{path}`")));
    if parsed.is_err() {
        return Vec::new();
    }
    unknown
}

impl Config {
    // figment's error is large, but it is made once, at start, and printed.
    #[allow(clippy::result_large_err)]
    pub fn load(overrides: &Overrides) -> Result<Config, figment::Error> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = &overrides.config_file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment = figment.merge(Env::prefixed("WAYFARE_").split("__"));
        let mut config: Config = figment.extract()?;
        let mut problems = Vec::new();
        if let Some(file) = &overrides.config_file {
            let unknown = unknown_keys(file);
            if !unknown.is_empty() {
                problems.push(format!(
                    "{}: unknown settings {} (docs/configuration.md lists them all)",
                    file.display(),
                    unknown.join(", ")
                ));
            }
        }
        // The same checks as `payments::Gateways::from_config`, without the runtime parts.
        if let Err(error) =
            crate::payments::settings::from_config(crate::payments::gateways::ALL, &config.payments.gateways)
        {
            problems.push(error.to_string());
        }
        if let Some(key) = config.payments.secrets_key.as_deref().filter(|key| !key.trim().is_empty())
            && let Err(error) = crate::payments::secrets::SecretsKey::from_hex(key)
        {
            problems.push(error.to_string());
        }
        if !problems.is_empty() {
            return Err(figment::Error::from(problems.join("; ")));
        }
        if let Some(data_dir) = &overrides.data_dir {
            config.data_dir = data_dir.clone();
        }
        if let Some(listen) = overrides.listen {
            config.listen = listen;
        }
        if let Some(url) = &overrides.database_url {
            config.database_url = Some(url.clone());
        }
        if overrides.demo {
            config.demo = true;
        }
        if overrides.demo_mode {
            config.demo_mode = true;
        }
        if let Some(url) = &overrides.redis_url {
            config.cluster.redis_url = Some(url.clone());
        }
        if let Some(node) = &overrides.node {
            config.cluster.node = Some(node.clone());
        }
        if let Some(map) = &overrides.map {
            config.maps.osm_file = Some(map.clone());
            config.maps.provider = Some(wayfare_maps::ProviderKind::Osm);
        }
        if config.demo {
            config.delivery.dev_outbox = true;
            config.payments.test_gateway = true;
            // The demo city's roads, unless a map or provider is configured.
            if config.maps.provider.is_none()
                && config.maps.osm_file.is_none()
                && let Some(file) = demo_map_file()
            {
                config.maps.osm_file = Some(file);
            }
        }
        Ok(config)
    }

    /// Where prepared maps are cached, by their extract's content hash.
    pub fn maps_cache_dir(&self) -> PathBuf {
        self.data_dir.join("maps")
    }

    /// The storage URL: the configured one, or SQLite in the data directory.
    pub fn storage_url(&self) -> String {
        match self.database_url.as_deref().filter(|url| !url.is_empty()) {
            Some(url) => url.to_string(),
            None => format!("sqlite://{}", self.database_path().display()),
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("wayfare.db")
    }

    pub fn uploads_dir(&self) -> PathBuf {
        self.data_dir.join("uploads")
    }

    /// Where the Web Push VAPID private key is kept.
    pub fn vapid_key_path(&self) -> PathBuf {
        self.push.vapid_key_file.clone().unwrap_or_else(|| self.data_dir.join("vapid_private_key"))
    }

    pub fn ui_index(&self) -> Option<PathBuf> {
        let index = self.ui_dir.join("index.html");
        Path::new(&index).exists().then_some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_services_are_chosen_in_the_file() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(&file, "data_dir = \"/var/lib/wayfare\"\n[push]\nsenders = [\"expo\", \"webpush\"]\nweb_push_subject = \"mailto:ops@example.com\"\n").unwrap();
        let config = Config::load(&Overrides { config_file: Some(file), ..Overrides::default() }).unwrap();
        assert_eq!(config.push.senders, [PushKind::Expo, PushKind::Webpush]);
        assert_eq!(config.push.web_push_subject, "mailto:ops@example.com");
        assert_eq!(config.vapid_key_path(), PathBuf::from("/var/lib/wayfare/vapid_private_key"));
    }

    #[test]
    fn trusted_proxies_are_read_from_the_file_and_a_bad_one_stops_the_start() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(&file, "[auth]\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n").unwrap();
        let config = Config::load(&Overrides { config_file: Some(file.clone()), ..Overrides::default() }).unwrap();
        assert!(config.auth.trusted_proxies.contains("10.20.30.40".parse().unwrap()));
        assert!(!config.auth.trusted_proxies.contains("192.168.0.1".parse().unwrap()));
        std::fs::write(&file, "[auth]\ntrusted_proxies = [\"10.0.0.0/40\"]\n").unwrap();
        let error = Config::load(&Overrides { config_file: Some(file), ..Overrides::default() }).unwrap_err();
        assert!(error.to_string().contains("10.0.0.0/40"), "{error}");
    }

    #[test]
    fn the_documented_example_file_loads_with_no_unknown_key() {
        let doc = include_str!("../../docs/configuration.md");
        let example = &doc[doc.find("## Example file").expect("an example section")..];
        let start = example.find("```toml\n").expect("a toml block") + "```toml\n".len();
        let toml = &example[start..start + example[start..].find("```").unwrap()];
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(&file, toml).unwrap();
        let config = Config::load(&Overrides { config_file: Some(file), ..Overrides::default() });
        assert!(config.is_ok(), "{}", config.unwrap_err());
    }

    #[test]
    fn a_mistyped_key_in_the_file_stops_the_start() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(
            &file,
            "listen = \"127.0.0.1:9000\"\n[auth]\ncode_ttl_sec = 60\n[payments]\ntestgateway = true\n",
        )
        .unwrap();
        let error = Config::load(&Overrides { config_file: Some(file), ..Overrides::default() }).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("`auth.code_ttl_sec`") && message.contains("`payments.testgateway`"), "{message}");
    }

    #[test]
    fn social_sign_in_providers_are_read_from_the_file() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(
            &file,
            "[auth.oauth.google]\nclient_id = \"g-id\"\nclient_secret = \"g-secret\"\n\
             [auth.oauth.facebook]\nclient_id = \"f-id\"\ntoken_url = \"http://127.0.0.1:9/token\"\n",
        )
        .unwrap();
        let config = Config::load(&Overrides { config_file: Some(file), ..Overrides::default() }).unwrap();
        assert!(config.auth.oauth.google.configured());
        assert!(!config.auth.oauth.facebook.configured(), "a client id without its secret");
        assert_eq!(config.auth.oauth.facebook.token_url.as_deref(), Some("http://127.0.0.1:9/token"));
        assert!(!config.auth.oauth.apple.configured());
    }

    #[test]
    fn the_default_node_name_is_kept_in_the_data_dir_and_differs_between_data_dirs() {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cluster = ClusterConfig::default();
        let first = cluster.node_name(one.path()).unwrap();
        assert_eq!(cluster.node_name(one.path()).unwrap(), first, "a restart on the same data directory keeps it");
        assert_ne!(cluster.node_name(two.path()).unwrap(), first, "two nodes on one host differ");
        assert_eq!(std::fs::read_to_string(one.path().join(NODE_NAME_FILE)).unwrap().trim(), first);
        let host = first.rsplit_once('-').map(|(host, _)| host).unwrap();
        assert!(!host.is_empty(), "the host's name first: {first}");
        let named = ClusterConfig { node: Some("wayfare-1".into()), ..ClusterConfig::default() };
        assert_eq!(named.node_name(one.path()).unwrap(), "wayfare-1", "a configured name wins");
    }

    #[test]
    fn defaults_listen_on_8080_with_sqlite_in_the_data_dir() {
        let config = Config::load(&Overrides::default()).unwrap();
        assert_eq!(config.listen.port(), 8080);
        assert!(config.storage_url().starts_with("sqlite://"));
        assert!(!config.delivery.dev_outbox);
        assert!(!config.payments.test_gateway, "the test gateway pays without money: off unless asked");
        assert_eq!(config.files.store, FileStoreKind::Local);
        assert!(config.payments.gateways.is_empty(), "no payment gateway unless configured");
    }

    #[test]
    fn a_file_then_flags_override_the_defaults() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("wayfare.toml");
        std::fs::write(&file, "listen = \"127.0.0.1:9000\"\n[auth]\ncode_ttl_secs = 60\n").unwrap();
        let overrides = Overrides { config_file: Some(file), demo: true, ..Overrides::default() };
        let config = Config::load(&overrides).unwrap();
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(config.auth.code_ttl_secs, 60);
        assert!(config.demo && config.delivery.dev_outbox, "demo turns the dev outbox on");
        assert!(config.payments.test_gateway, "and the test payment gateway");
        assert!(config.push.senders.is_empty(), "no push service unless configured");
        let overrides = Overrides { database_url: Some("postgres://db/wayfare".into()), ..Overrides::default() };
        assert_eq!(Config::load(&overrides).unwrap().storage_url(), "postgres://db/wayfare");
    }
}
