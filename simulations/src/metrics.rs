//! From what a run did to the report's figures (docs/simulations.md
//! "Metrics"): MATSim DRT's customer and vehicle statistics, offers and
//! answers, utilisation and earnings, the 15-minute series, the wait
//! histogram and demand by H3 cell.

use crate::report::{CellCount, H3_RESOLUTION, Metrics, SERIES_BIN_S, SeriesPoint, WAIT_BIN_S};
use crate::sim::{Outcome, RunResult};
use std::collections::BTreeMap;

/// The histogram's last bin holds every wait of this many minutes or more.
pub const WAIT_HISTOGRAM_BINS: usize = 31;

/// The `q` quantile (0 to 1) of sorted values, interpolated between the
/// two nearest ranks; 0 for none.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let rank = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
            sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
        }
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0u64), |(sum, count), value| (sum + value, count + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 { part / whole } else { 0.0 }
}

/// Rounds to 6 decimals: figures stay readable in `report.json` and do not
/// print float noise.
fn tidy(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

pub fn metrics(result: &RunResult) -> Metrics {
    let rides = &result.rides;
    let count = |outcome: Outcome| rides.iter().filter(|ride| ride.outcome == outcome).count() as u64;
    let served: Vec<_> = rides.iter().filter(|ride| ride.outcome == Outcome::Served).collect();
    let requests = rides.len() as u64;
    let mut waits: Vec<f64> =
        served.iter().filter_map(|ride| ride.picked_at.map(|at| (at - ride.request_at) as f64 / 1000.0)).collect();
    waits.sort_by(f64::total_cmp);
    let below = |minutes: f64| {
        100.0 * ratio(waits.iter().filter(|wait| **wait < minutes * 60.0).count() as f64, waits.len() as f64)
    };
    let in_vehicle = mean(served.iter().filter_map(|ride| Some((ride.dropped_at? - ride.picked_at?) as f64 / 1000.0)));
    let distance = mean(served.iter().map(|ride| ride.trip.distance_m));
    let total: f64 = result.drivers.iter().map(|driver| driver.distance_m).sum();
    let empty: f64 = result.drivers.iter().map(|driver| driver.empty_m).sum();
    let dispatched = rides.iter().filter(|ride| ride.outcome != Outcome::NeverDispatched).count() as f64;
    let offers: u64 = rides.iter().map(|ride| u64::from(ride.offers)).sum();
    let busy: i64 = result.drivers.iter().map(|driver| driver.busy_ms).sum();
    let shift: i64 = result.drivers.iter().map(|driver| driver.shift_ms).sum();
    let mut earnings: Vec<f64> =
        result.drivers.iter().filter(|driver| driver.shift_ms > 0).map(|driver| driver.earnings).collect();
    earnings.sort_by(f64::total_cmp);
    let rejections = requests - served.len() as u64;
    Metrics {
        requests,
        rides: served.len() as u64,
        rejections,
        rejectionRate: tidy(ratio(rejections as f64, requests as f64)),
        cancelledByRider: count(Outcome::CancelledByRider),
        cancelledBySystem: count(Outcome::CancelledBySystem),
        neverDispatched: count(Outcome::NeverDispatched),
        fulfilment: tidy(ratio(served.len() as f64, requests as f64)),
        wait_average: tidy(mean(waits.iter().copied())),
        wait_median: tidy(quantile(&waits, 0.5)),
        wait_p95: tidy(quantile(&waits, 0.95)),
        wait_max: tidy(waits.last().copied().unwrap_or(0.0)),
        percentage_WT_below_5: tidy(below(5.0)),
        percentage_WT_below_10: tidy(below(10.0)),
        inVehicleTravelTime_mean: tidy(in_vehicle),
        distance_m_mean: tidy(distance),
        directDistance_m_mean: tidy(distance),
        totalDistance: tidy(total),
        totalEmptyDistance: tidy(empty),
        emptyRatio: tidy(ratio(empty, total)),
        offers_per_booking: tidy(ratio(offers as f64, dispatched)),
        acceptance_rate: tidy(ratio(result.answers_yes as f64, (result.answers_yes + result.answers_no) as f64)),
        driver_utilisation: tidy(ratio(busy as f64, shift as f64)),
        earnings_mean: tidy(mean(earnings.iter().copied())),
        earnings_p10: tidy(quantile(&earnings, 0.1)),
        earnings_median: tidy(quantile(&earnings, 0.5)),
        earnings_p90: tidy(quantile(&earnings, 0.9)),
        simulated_s: (result.end_ms.max(0) / 1000) as u64,
        events: result.events,
    }
}

pub fn series(result: &RunResult, span_ms: i64) -> Vec<SeriesPoint> {
    let bin_ms = SERIES_BIN_S as i64 * 1000;
    let bins = (span_ms.max(0) / bin_ms) as usize + 1;
    let bin = |at: i64| ((at.max(0) / bin_ms) as usize).min(bins - 1);
    let mut points: Vec<SeriesPoint> = (0..bins)
        .map(|index| SeriesPoint {
            start_s: index as u64 * SERIES_BIN_S,
            demand: 0,
            served: 0,
            unserved: 0,
            idle_drivers: result.idle_samples.get(index).copied().unwrap_or(0),
            mean_wait_s: None,
        })
        .collect();
    let mut waits = vec![(0.0, 0u64); bins];
    for ride in &result.rides {
        points[bin(ride.request_at)].demand += 1;
        match ride.outcome {
            Outcome::Served => {
                if let Some(picked) = ride.picked_at {
                    let index = bin(picked);
                    points[index].served += 1;
                    waits[index].0 += (picked - ride.request_at) as f64 / 1000.0;
                    waits[index].1 += 1;
                }
            }
            Outcome::Open => {}
            _ => points[bin(ride.ended_at.unwrap_or(ride.request_at))].unserved += 1,
        }
    }
    for (point, (sum, count)) in points.iter_mut().zip(waits) {
        point.mean_wait_s = (count > 0).then(|| tidy(sum / count as f64));
    }
    points
}

pub fn wait_histogram(result: &RunResult) -> Vec<u64> {
    let mut bins = vec![0u64; WAIT_HISTOGRAM_BINS];
    for ride in result.rides.iter().filter(|ride| ride.outcome == Outcome::Served) {
        if let Some(picked) = ride.picked_at {
            let minute = ((picked - ride.request_at).max(0) as u64 / 1000 / WAIT_BIN_S) as usize;
            bins[minute.min(WAIT_HISTOGRAM_BINS - 1)] += 1;
        }
    }
    bins
}

/// Demand and unmet demand by the H3 cell where requests start, most unmet first.
pub fn cells(result: &RunResult) -> Vec<CellCount> {
    let resolution = h3o::Resolution::try_from(H3_RESOLUTION).expect("a valid H3 resolution");
    let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for ride in &result.rides {
        let Ok(at) = h3o::LatLng::new(ride.origin.lat, ride.origin.lng) else { continue };
        let entry = counts.entry(u64::from(at.to_cell(resolution))).or_default();
        entry.0 += 1;
        if ride.outcome != Outcome::Served {
            entry.1 += 1;
        }
    }
    let mut cells: Vec<CellCount> = counts
        .into_iter()
        .filter_map(|(cell, (requests, unserved))| {
            let cell = h3o::CellIndex::try_from(cell).ok()?;
            let boundary = cell.boundary().iter().map(|corner| [tidy(corner.lat()), tidy(corner.lng())]).collect();
            Some(CellCount { cell: cell.to_string(), boundary, requests, unserved })
        })
        .collect();
    cells.sort_by(|a, b| b.unserved.cmp(&a.unserved).then_with(|| a.cell.cmp(&b.cell)));
    cells
}
