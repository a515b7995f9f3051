//! The console's live figures over the last hour of dispatch.
//!
//! Definitions (docs/architecture.md repeats them):
//! - *open bookings*: bookings waiting for a driver now; *waiting longer than
//!   2 / 5 minutes*: those of them waiting since more than that;
//! - *dispatch latency*: from a booking's creation to its first offer;
//! - *offer acceptance rate*: offers accepted over offers answered (accepted,
//!   declined or let expire) — an offer withdrawn because another driver won
//!   or the rider cancelled was never answered;
//! - *time to accept*: from the offer the winning driver got to their accept;
//! - *fulfilment*: of the bookings made in the window whose dispatch is
//!   over, the share that got a driver.

use crate::Millis;
use serde::Serialize;

/// The window the figures cover.
pub const WINDOW_MS: Millis = 60 * 60 * 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A driver accepted.
    Assigned,
    /// Cancelled, or given up, without a driver.
    Unserved,
}

/// One booking's dispatch as the runtime saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchSample {
    pub created: Millis,
    pub first_offer: Option<Millis>,
    pub time_to_accept: Option<Millis>,
    pub outcome: Option<Outcome>,
}

/// How the offers made in the window were answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OfferTally {
    pub accepted: u32,
    pub declined: u32,
    pub expired: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figures {
    pub at: Millis,
    pub online: u32,
    pub available: u32,
    pub open: u32,
    pub waiting_over_2_min: u32,
    pub waiting_over_5_min: u32,
    /// Milliseconds; `None` with no offer in the window.
    pub dispatch_latency_p50: Option<Millis>,
    pub dispatch_latency_p99: Option<Millis>,
    /// 0 to 1; `None` with no answered offer.
    pub acceptance_rate: Option<f64>,
    pub time_to_accept_median: Option<Millis>,
    /// 0 to 1; `None` when no dispatch ended in the window.
    pub fulfilment: Option<f64>,
}

/// The value at `rank` (0 to 1) of sorted values, nearest rank.
fn percentile(sorted: &[Millis], rank: f64) -> Option<Millis> {
    if sorted.is_empty() {
        return None;
    }
    let index = ((rank * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    Some(sorted[index])
}

/// The figures at `now` from the drivers' counts, the open bookings' waiting
/// starts and the samples of bookings made in the last hour (older ones are
/// ignored).
pub fn figures(
    now: Millis,
    online: u32,
    available: u32,
    waiting_since: &[Millis],
    samples: &[DispatchSample],
    offers: OfferTally,
) -> Figures {
    let waited_over =
        |minutes: Millis| waiting_since.iter().filter(|since| now - **since > minutes * 60_000).count() as u32;
    let recent: Vec<&DispatchSample> = samples.iter().filter(|sample| sample.created > now - WINDOW_MS).collect();
    let mut latencies: Vec<Millis> =
        recent.iter().filter_map(|sample| sample.first_offer.map(|offer| (offer - sample.created).max(0))).collect();
    latencies.sort_unstable();
    let mut accept_times: Vec<Millis> = recent.iter().filter_map(|sample| sample.time_to_accept).collect();
    accept_times.sort_unstable();
    let answered = offers.accepted + offers.declined + offers.expired;
    let assigned = recent.iter().filter(|sample| sample.outcome == Some(Outcome::Assigned)).count();
    let ended = recent.iter().filter(|sample| sample.outcome.is_some()).count();
    Figures {
        at: now,
        online,
        available,
        open: waiting_since.len() as u32,
        waiting_over_2_min: waited_over(2),
        waiting_over_5_min: waited_over(5),
        dispatch_latency_p50: percentile(&latencies, 0.5),
        dispatch_latency_p99: percentile(&latencies, 0.99),
        acceptance_rate: (answered > 0).then(|| f64::from(offers.accepted) / f64::from(answered)),
        time_to_accept_median: percentile(&accept_times, 0.5),
        fulfilment: (ended > 0).then(|| assigned as f64 / ended as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_800_000_000_000;
    const MINUTE: Millis = 60_000;

    fn sample(
        created_ago_min: Millis,
        latency_ms: Option<Millis>,
        accept_ms: Option<Millis>,
        outcome: Option<Outcome>,
    ) -> DispatchSample {
        let created = NOW - created_ago_min * MINUTE;
        DispatchSample { created, first_offer: latency_ms.map(|ms| created + ms), time_to_accept: accept_ms, outcome }
    }

    #[test]
    fn counts_the_waiting_bookings_by_how_long_they_waited() {
        let waiting = [NOW - 30_000, NOW - 3 * MINUTE, NOW - 6 * MINUTE, NOW - 2 * MINUTE];
        let figures = figures(NOW, 40, 25, &waiting, &[], OfferTally::default());
        assert_eq!((figures.online, figures.available, figures.open), (40, 25, 4));
        // Exactly two minutes is not longer than two.
        assert_eq!((figures.waiting_over_2_min, figures.waiting_over_5_min), (2, 1));
    }

    #[test]
    fn computes_latency_percentiles_acceptance_and_fulfilment_from_a_known_hour() {
        use Outcome::*;
        let samples = [
            sample(50, Some(100), Some(8_000), Some(Assigned)),
            sample(40, Some(300), Some(12_000), Some(Assigned)),
            sample(30, Some(200), Some(4_000), Some(Assigned)),
            sample(20, Some(900), None, Some(Unserved)),
            sample(10, None, None, Some(Unserved)),
            sample(5, Some(150), None, None),
            // Made more than an hour ago: outside the window.
            sample(70, Some(60_000), Some(90_000), Some(Unserved)),
        ];
        let offers = OfferTally { accepted: 3, declined: 4, expired: 5 };
        let figures = figures(NOW, 10, 4, &[], &samples, offers);
        // Latencies 100, 150, 200, 300, 900: the median is the third, p99 the largest.
        assert_eq!((figures.dispatch_latency_p50, figures.dispatch_latency_p99), (Some(200), Some(900)));
        assert_eq!(figures.acceptance_rate, Some(3.0 / 12.0));
        // Accept times 4 s, 8 s, 12 s.
        assert_eq!(figures.time_to_accept_median, Some(8_000));
        // Three assigned of five ended (the one still dispatching is not counted).
        assert_eq!(figures.fulfilment, Some(0.6));
    }

    #[test]
    fn says_nothing_rather_than_zero_when_nothing_happened() {
        let figures = figures(NOW, 0, 0, &[], &[], OfferTally::default());
        assert_eq!(figures.dispatch_latency_p50, None);
        assert_eq!(figures.acceptance_rate, None);
        assert_eq!(figures.time_to_accept_median, None);
        assert_eq!(figures.fulfilment, None);
    }

    #[test]
    fn the_nearest_rank_percentile_of_a_hundred_values_is_the_ninety_ninth() {
        let values: Vec<Millis> = (1..=100).collect();
        assert_eq!(percentile(&values, 0.99), Some(99));
        assert_eq!(percentile(&values, 0.5), Some(50));
        assert_eq!(percentile(&[7], 0.99), Some(7));
    }
}
