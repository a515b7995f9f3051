//! The `wayfare` binary: parses the command line and hands over to the library.

use clap::Parser;
use tracing_subscriber::EnvFilter;
use wayfare_http::cli::{AdminCommand, Cli, Commands, ImportCommand, MapCommand};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    match Cli::parse().command {
        Commands::Serve(args) => wayfare_http::serve(args.load()?).await,
        Commands::Migrate(args) => wayfare_http::migrate(args.load()?).await,
        Commands::Audit(args) => {
            if !wayfare_http::audit(args.load()?).await? {
                std::process::exit(1);
            }
            Ok(())
        }
        Commands::Admin { command: AdminCommand::Create { email, storage } } => {
            wayfare_http::create_admin(storage.load()?, &email).await
        }
        Commands::Map { command: MapCommand::Prepare { file, storage } } => {
            wayfare_http::prepare_map(storage.load()?, &file).await
        }
        Commands::Import { command: ImportCommand::Exicube(args) } => {
            wayfare_http::import::exicube::run(args.storage.load()?, &args).await.map(|_| ())
        }
        Commands::Simulate(args) => {
            let config = args.storage.load()?;
            tokio::task::spawn_blocking(move || wayfare_http::simulate::run(&config, &args)).await?
        }
        Commands::Export(args) => wayfare_http::archive::export_command(args.storage.load()?, &args.out).await,
        Commands::Import { command: ImportCommand::Wayfare(args) } => {
            wayfare_http::archive::import_command(args.storage.load()?, &args.file).await
        }
    }
}
