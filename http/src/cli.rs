//! The `wayfare` command line (DESIGN.md contract).

use crate::config::{Config, Overrides};
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(name = "wayfare", version, about = "Wayfare: taxi and parcel booking with realtime dispatch")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Commands,
}

#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Start the server.
    Serve(ServeArgs),
    /// Apply the database migrations and exit.
    Migrate(StorageArgs),
    /// Check the invariants a crash must never break (wallets against the
    /// ledger, one trip per driver, busy flags, offers); exits 1 when one is
    /// broken (docs/operations.md).
    Audit(StorageArgs),
    /// Manage administrators.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Work with OpenStreetMap extracts.
    Map {
        #[command(subcommand)]
        command: MapCommand,
    },
    /// Replay a day of demand on the dispatch engine and compare policies
    /// (docs/simulations.md).
    Simulate(Box<SimulateArgs>),
    /// Write the whole platform (every table, the uploads) into one archive
    /// file (docs/operations.md "Backups").
    Export(ExportArgs),
    /// Bring data into Wayfare.
    Import {
        #[command(subcommand)]
        command: ImportCommand,
    },
}

/// `wayfare export --out FILE`.
#[derive(Debug, Args, Clone)]
pub struct ExportArgs {
    /// The archive to write (a zip: manifest.json, tables/*.ndjson, files/…).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub storage: StorageArgs,
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Read a `wayfare export` archive into a new, empty database (SQLite
    /// or PostgreSQL): how a city moves to PostgreSQL for cluster mode
    /// (docs/operations.md).
    Wayfare(ImportWayfareArgs),
    /// A Realtime Database export of the original product, with its Storage
    /// files (docs/import-exicube.md). Importing the same export again
    /// changes nothing; run it with the server stopped.
    Exicube(ExicubeArgs),
}

/// `wayfare import wayfare FILE`.
#[derive(Debug, Args, Clone)]
pub struct ImportWayfareArgs {
    /// The archive `wayfare export` wrote.
    pub file: PathBuf,
    #[command(flatten)]
    pub storage: StorageArgs,
}

/// `wayfare import exicube EXPORT.json [--files DIR] [--dry-run]`.
#[derive(Debug, Args, Clone)]
pub struct ExicubeArgs {
    /// The database's JSON (Firebase console: Realtime Database, Export JSON).
    pub export: PathBuf,
    /// A copy of the Storage bucket (`gsutil -m cp -r gs://BUCKET DIR`):
    /// profile images, licences, car type images, parcel photos.
    #[arg(long, value_name = "DIR")]
    pub files: Option<PathBuf>,
    /// Print what would be imported, per node, and change nothing (the
    /// database is not even opened).
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the whole report (every skipped record, every adjustment)
    /// as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub storage: StorageArgs,
}

/// `wayfare simulate [SCENARIO.toml] [flags]`: the flags override the file's fields.
#[derive(Debug, Args, Clone, Default)]
pub struct SimulateArgs {
    /// A scenario file (TOML); without it, the flags say everything.
    pub scenario: Option<PathBuf>,
    /// An `.osm.pbf` extract, an OSMnx node-link `.json` network, or `straight-line`.
    #[arg(long)]
    pub network: Option<String>,
    /// Requests as CSV: NREL HIVE's layout or trip records.
    #[arg(long)]
    pub requests: Option<PathBuf>,
    /// Vehicles as CSV (HIVE's `vehicle_id,lat,lon,…`).
    #[arg(long, conflicts_with = "fleet")]
    pub vehicles: Option<PathBuf>,
    /// A fleet of N vehicles placed where requests start.
    #[arg(long)]
    pub fleet: Option<usize>,
    /// The dispatch policy: broadcast, waves, nearest or batch.
    #[arg(long, conflicts_with = "compare")]
    pub policy: Option<String>,
    /// Several policies side by side, e.g. `broadcast,waves,batch`.
    #[arg(long, value_delimiter = ',')]
    pub compare: Vec<String>,
    /// Fleet sizes side by side, e.g. `10,20,40`.
    #[arg(long, value_delimiter = ',')]
    pub fleet_sweep: Vec<usize>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Repeat every run with N seeds (the seed, the seed + 1, …): the report
    /// gives each figure's mean and 95 % interval.
    #[arg(long, value_name = "N")]
    pub seeds: Option<u64>,
    /// Seconds a rider waits for a driver before giving up.
    #[arg(long, value_name = "SECONDS")]
    pub cancel_after: Option<u64>,
    /// What a free driver does: stays, returns to where riders lately were,
    /// cruises at random, or repositions to the area the server would suggest.
    #[arg(long, value_parser = ["stay", "return", "cruise", "reposition"])]
    pub idle: Option<String>,
    /// Settings and car types as JSON (`{"settings": {…}, "carTypes": […]}`); the demo's by default.
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Where report.json, the CSV series and report.html go (live.json in live mode).
    #[arg(long, default_value = "simulation")]
    pub out: PathBuf,
    /// Play the drivers and riders against the running server at URL, in
    /// real time, instead of simulating (docs/simulations.md "Live mode").
    #[arg(long, value_name = "URL")]
    pub live: Option<String>,
    /// Live mode's clock: scenario seconds per real second.
    #[arg(long, default_value_t = 1.0, requires = "live")]
    pub speed: f64,
    #[command(flatten)]
    pub storage: StorageArgs,
}

#[derive(Debug, Subcommand)]
pub enum MapCommand {
    /// Build an extract's routing graph ahead of time, into the data
    /// directory's cache that `serve --map` reads.
    Prepare {
        /// The extract, an `.osm.pbf` (or `.osm` XML) file.
        file: PathBuf,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create the first admin of an installation.
    Create {
        #[arg(long)]
        email: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Debug, Args, Clone, Default)]
pub struct StorageArgs {
    /// A TOML configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Where the SQLite database and uploads live.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// A `postgres://` URL (SQLite in the data directory when absent).
    #[arg(long)]
    pub database_url: Option<String>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ServeArgs {
    #[command(flatten)]
    pub storage: StorageArgs,
    /// Address to listen on, e.g. 0.0.0.0:8080.
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Seed the demo city once and turn on the dev outbox.
    #[arg(long)]
    pub demo: bool,
    /// Demo mode: visitors look but do not change or export, contacts
    /// masked (sets `demo_mode`; the panel cannot turn it off).
    #[arg(long)]
    pub demo_mode: bool,
    /// Route, search and draw maps from this OpenStreetMap extract
    /// (`.osm.pbf`): sets `maps.provider = "osm"` and `maps.osm_file`.
    #[arg(long, value_name = "FILE.osm.pbf")]
    pub map: Option<PathBuf>,
    /// Cluster mode: several nodes on one PostgreSQL database, linked
    /// through this Redis (sets `cluster.redis_url`).
    #[arg(long, value_name = "redis://HOST:PORT")]
    pub redis_url: Option<String>,
    /// This node's name in the cluster, unique and stable across restarts
    /// (sets `cluster.node`; the host name by default).
    #[arg(long)]
    pub node: Option<String>,
}

impl StorageArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config_file: self.config.clone(),
            data_dir: self.data_dir.clone(),
            database_url: self.database_url.clone(),
            ..Overrides::default()
        }
    }

    #[allow(clippy::result_large_err)] // see `Config::load`
    pub fn load(&self) -> Result<Config, figment::Error> {
        Config::load(&self.overrides())
    }
}

impl ServeArgs {
    #[allow(clippy::result_large_err)] // see `Config::load`
    pub fn load(&self) -> Result<Config, figment::Error> {
        let mut overrides = self.storage.overrides();
        overrides.listen = self.listen;
        overrides.demo = self.demo;
        overrides.demo_mode = self.demo_mode;
        overrides.map = self.map.clone();
        overrides.redis_url = self.redis_url.clone();
        overrides.node = self.node.clone();
        Config::load(&overrides)
    }
}
