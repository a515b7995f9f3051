//! What a live run reports: how each booking ended and the counts of the
//! run, printed for a person and written as `live.json` for scripts.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// How one booking of the run ended, as its rider and driver saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveOutcome {
    /// Driven to the drop and paid in cash (PAID).
    Completed,
    /// Given up by its rider after `cancel_after_s` without a driver.
    CancelledByRider,
    /// Taken by a driver outside the run, or cancelled by someone else.
    EndedElsewhere,
    /// A stage was refused or failed (see the errors).
    Failed,
    /// Still going when the run stopped.
    Open,
}

/// One booking the run made.
#[derive(Debug, Clone, Serialize)]
pub struct LiveBooking {
    /// The request's id in the scenario.
    pub request: String,
    /// The booking's id on the server.
    pub booking: String,
    pub rider: String,
    /// The run's driver who took it.
    pub driver: Option<String>,
    pub outcome: LiveOutcome,
}

/// What a live run did, counted on the client's side.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LiveSummary {
    pub url: String,
    pub speed: f64,
    pub car_type: String,
    /// Demo drivers played: the scenario's fleet, capped by the server's.
    pub drivers: usize,
    pub riders: usize,
    /// Requests in the scenario, and those the server booked.
    pub requests: u64,
    pub booked: u64,
    /// `offer` events the run's drivers were sent.
    pub offers_seen: u64,
    /// Offers accepted and won.
    pub accepted: u64,
    pub declined: u64,
    /// Accepts that came too late: 409 `booking_taken`, or the offer gone.
    pub lost_races: u64,
    /// Offers of bookings made outside the run, declined: their rider's otp
    /// is out of the run's reach, so their trip could not start.
    pub foreign_offers: u64,
    pub completed: u64,
    /// Bookings given up by their rider.
    pub cancelled: u64,
    pub positions_sent: u64,
    /// Refusals and failures by `action: code`, e.g. `start: otp_mismatch`.
    pub errors: BTreeMap<String, u64>,
    /// Of those, the answers that mean a bug: 5xx, `internal_error`,
    /// malformed input.
    pub server_errors: u64,
    pub wall_s: f64,
    pub bookings: Vec<LiveBooking>,
}

impl fmt::Display for LiveSummary {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            out,
            "live run on {} at speed {}: {} {} drivers, {} riders, {:.1} s",
            self.url, self.speed, self.drivers, self.car_type, self.riders, self.wall_s
        )?;
        let columns = ["requests", "booked", "offers", "accepted", "declined", "lost races", "completed", "cancelled"];
        let values = [
            self.requests,
            self.booked,
            self.offers_seen,
            self.accepted,
            self.declined,
            self.lost_races,
            self.completed,
            self.cancelled,
        ];
        for column in columns {
            write!(out, "{column:>11}")?;
        }
        writeln!(out)?;
        for value in values {
            write!(out, "{value:>11}")?;
        }
        writeln!(out)?;
        if self.foreign_offers > 0 {
            writeln!(out, "{} offers of bookings made outside the run declined", self.foreign_offers)?;
        }
        if self.errors.is_empty() {
            return write!(out, "errors: none");
        }
        write!(out, "errors ({} from server faults):", self.server_errors)?;
        for (key, count) in &self.errors {
            write!(out, "\n  {key:<40} {count:>6}")?;
        }
        Ok(())
    }
}

/// `live.json` in `out`: the summary, for scripts.
pub fn write_summary(out: &Path, summary: &LiveSummary) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let mut json = serde_json::to_string_pretty(summary).expect("the summary serialises");
    json.push('\n');
    std::fs::write(out.join("live.json"), json)
}
