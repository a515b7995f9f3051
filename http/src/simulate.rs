//! `wayfare simulate`: reads the scenario and flags, runs the simulations
//! (crate `wayfare-simulations`) with a progress bar, and says where the
//! report is (docs/simulations.md).

use crate::cli::SimulateArgs;
use crate::config::Config;
use std::io::{IsTerminal, Write};
use wayfare_simulations::players::live::{LiveOptions, run_live, write_summary};
use wayfare_simulations::scenario::Scenario;
use wayfare_simulations::{Catalog, prepare, simulate};

/// The scenario the file and flags make together.
pub fn scenario_of(args: &SimulateArgs) -> anyhow::Result<Scenario> {
    let mut scenario = match &args.scenario {
        Some(path) => Scenario::from_file(path)?,
        None => Scenario { name: "wayfare simulate".into(), ..Scenario::default() },
    };
    if let Some(network) = &args.network {
        scenario.network = network.clone();
    }
    if let Some(requests) = &args.requests {
        scenario.requests = Some(requests.clone());
        scenario.demand = None;
    }
    if let Some(vehicles) = &args.vehicles {
        scenario.vehicles = Some(vehicles.clone());
        scenario.fleet = None;
    }
    if let Some(fleet) = args.fleet {
        scenario.fleet = Some(fleet);
        scenario.vehicles = None;
    }
    if let Some(policy) = &args.policy {
        scenario.policies = vec![policy.clone()];
    }
    if !args.compare.is_empty() {
        scenario.policies = args.compare.clone();
    }
    if !args.fleet_sweep.is_empty() {
        scenario.fleet_sweep = args.fleet_sweep.clone();
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if let Some(seeds) = args.seeds {
        scenario.seeds = seeds;
    }
    if let Some(seconds) = args.cancel_after {
        scenario.riders.cancel_after_s = seconds;
    }
    if let Some(idle) = &args.idle {
        scenario.drivers.idle = serde_json::from_value(serde_json::Value::String(idle.clone()))?;
    }
    if let Some(settings) = &args.settings {
        scenario.settings = Some(settings.clone());
    }
    scenario.validate()?;
    Ok(scenario)
}

/// Runs it all; blocking (the caller keeps it off the async threads).
pub fn run(config: &Config, args: &SimulateArgs) -> anyhow::Result<()> {
    let scenario = scenario_of(args)?;
    let catalog = Catalog { settings: crate::demo::settings(), car_types: crate::demo::car_types() };
    let mut bar = ProgressBar::new();
    if let Some(url) = &args.live {
        return live(config, args, &scenario, catalog, url, &mut bar);
    }
    let (report, timing) =
        simulate(&scenario, catalog, &config.maps_cache_dir(), &args.out, &mut |stage, done, of| {
            bar.show(stage, done, of)
        })?;
    bar.finish();
    println!("{:<28} {:>9} {:>9} {:>10} {:>10} {:>8}", "run", "requests", "served", "wait mean", "wait p95", "wall s");
    for (run, wall) in report.runs.iter().zip(&timing.runs_s) {
        let metrics = &run.metrics;
        println!(
            "{:<28} {:>9} {:>9} {:>9.0}s {:>9.0}s {:>8.2}",
            format!("{} · {} vehicles", run.policy, run.fleet),
            metrics.requests,
            // As the report: 2,499 of 2,500 is 99.96 %, never 100.0 %.
            wayfare_simulations::format::percent(metrics.fulfilment * 100.0).replace(' ', ""),
            metrics.wait_average,
            metrics.wait_p95,
            wall
        );
    }
    if let Some(peak) = timing.peak_rss_mb {
        println!("setup {:.2} s, peak memory {peak:.0} MB", timing.setup_s);
    }
    println!("\n{}", report.conclusion.headline);
    println!("report: {}", args.out.join("report.html").display());
    Ok(())
}

/// Live mode: the same people against a running server. The caller runs
/// this on a blocking thread of the binary's runtime, which drives the sockets.
fn live(
    config: &Config,
    args: &SimulateArgs,
    scenario: &Scenario,
    catalog: Catalog,
    url: &str,
    bar: &mut ProgressBar,
) -> anyhow::Result<()> {
    let prepared =
        prepare(scenario, catalog, &config.maps_cache_dir(), &mut |stage, done, of| bar.show(stage, done, of))?;
    let options = LiveOptions { speed: args.speed, ..LiveOptions::default() };
    let mut show = |stage: &str, done, of| bar.show(stage, done, of);
    let summary = tokio::runtime::Handle::current().block_on(run_live(scenario, &prepared, url, options, &mut show))?;
    bar.finish();
    println!("{summary}");
    write_summary(&args.out, &summary)?;
    println!("summary: {}", args.out.join("live.json").display());
    if summary.server_errors > 0 {
        anyhow::bail!("the server answered {} calls with a fault (5xx or malformed input)", summary.server_errors);
    }
    Ok(())
}

/// One line on stderr redrawn in place on a terminal; a line per stage
/// (and every tenth) otherwise, so logs stay short.
struct ProgressBar {
    terminal: bool,
    last: Option<(String, usize)>,
}

impl ProgressBar {
    fn new() -> ProgressBar {
        ProgressBar { terminal: std::io::stderr().is_terminal(), last: None }
    }

    fn show(&mut self, stage: &str, done: usize, of: usize) {
        let percent = (done * 100).checked_div(of).unwrap_or(100);
        let step = if self.terminal { percent } else { percent / 10 * 10 };
        if self.last.as_ref().is_some_and(|(last, at)| last == stage && *at == step) {
            return;
        }
        let mut stderr = std::io::stderr();
        if self.terminal {
            let filled = percent * 30 / 100;
            let _ = write!(stderr, "\r[{}{}] {percent:>3}% {stage:<40}", "#".repeat(filled), "-".repeat(30 - filled));
        } else {
            let _ = writeln!(stderr, "{percent:>3}% {stage}");
        }
        let _ = stderr.flush();
        self.last = Some((stage.to_string(), step));
    }

    fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
