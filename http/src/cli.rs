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
    /// Route, search and draw maps from this OpenStreetMap extract
    /// (`.osm.pbf`): sets `maps.provider = "osm"` and `maps.osm_file`.
    #[arg(long, value_name = "FILE.osm.pbf")]
    pub map: Option<PathBuf>,
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
        overrides.map = self.map.clone();
        Config::load(&overrides)
    }
}
