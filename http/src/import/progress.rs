//! How a long import shows it is moving: a progress bar per stage on a
//! terminal, plain lines (one per stage, with its count and time) when the
//! output goes to a file or a pipe, nothing in tests.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Instant;

/// Told of each stage and of the records written in it.
pub trait Progress: Send + Sync {
    /// A stage of `total` records; 0 when that is not known beforehand
    /// (an export reads a table's rows as they come).
    fn stage(&self, name: &str, total: u64);
    fn advance(&self, done: u64);
    fn finish_stage(&self);
}

/// The bar on a terminal, lines elsewhere.
pub fn for_stdout() -> Box<dyn Progress> {
    if std::io::stdout().is_terminal() { Box::new(Bar::default()) } else { Box::new(Lines::default()) }
}

/// Says nothing (tests, `--dry-run`).
pub struct Silent;

impl Progress for Silent {
    fn stage(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish_stage(&self) {}
}

#[derive(Default)]
struct Bar {
    current: Mutex<Option<ProgressBar>>,
}

impl Progress for Bar {
    fn stage(&self, name: &str, total: u64) {
        let (bar, style) = if total == 0 {
            let style = ProgressStyle::with_template("{msg:>24} {spinner} {pos:>9} {per_sec:>12} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            (ProgressBar::new_spinner(), style)
        } else {
            let style = ProgressStyle::with_template("{msg:>24} [{bar:32}] {pos:>9}/{len:9} {per_sec:>12} {elapsed}")
                .map(|style| style.progress_chars("=> "))
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            (ProgressBar::new(total), style)
        };
        bar.set_style(style);
        bar.set_message(name.to_string());
        if let Ok(mut current) = self.current.lock() {
            *current = Some(bar);
        }
    }

    fn advance(&self, done: u64) {
        if let Ok(current) = self.current.lock()
            && let Some(bar) = current.as_ref()
        {
            bar.inc(done);
        }
    }

    fn finish_stage(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some(bar) = current.take()
        {
            bar.finish();
        }
    }
}

#[derive(Default)]
struct Lines {
    current: Mutex<Option<(String, u64, Instant)>>,
}

impl Progress for Lines {
    fn stage(&self, name: &str, _total: u64) {
        if let Ok(mut current) = self.current.lock() {
            *current = Some((name.to_string(), 0, Instant::now()));
        }
    }

    fn advance(&self, done: u64) {
        if let Ok(mut current) = self.current.lock()
            && let Some((_, count, _)) = current.as_mut()
        {
            *count += done;
        }
    }

    fn finish_stage(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some((name, count, started)) = current.take()
        {
            println!("{name}: {count} written in {:.1} s", started.elapsed().as_secs_f64());
        }
    }
}
