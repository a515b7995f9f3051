//! Every metric a reader sees, once: its name, what it counts, its unit and
//! which way is better. The report's table is drawn from this list and the
//! conclusion reads the same figures, so the two never disagree.

use crate::format::Unit;
use crate::report::{Metrics, RunReport};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
    /// Not a matter of better or worse (the same demand, or a consequence of
    /// which rides were served).
    Neither,
}

/// A metric as the report shows it.
pub struct MetricRow {
    /// Its field in [`Metrics`] and `report.json`.
    pub name: &'static str,
    /// What it counts, in a few words.
    pub about: &'static str,
    pub unit: Unit,
    pub better: Better,
    pub value: fn(&Metrics) -> f64,
}

/// Every field of [`Metrics`], grouped as a reader asks about them.
pub const METRIC_GROUPS: &[(&str, &[MetricRow])] = &[
    (
        "Riders",
        &[
            MetricRow {
                name: "requests",
                about: "made",
                unit: Unit::Count,
                better: Better::Neither,
                value: |m| m.requests as f64,
            },
            MetricRow {
                name: "rides",
                about: "picked up and taken to their destination",
                unit: Unit::Count,
                better: Better::Higher,
                value: |m| m.rides as f64,
            },
            MetricRow {
                name: "fulfilment",
                about: "rides ÷ requests",
                unit: Unit::Share,
                better: Better::Higher,
                value: |m| m.fulfilment,
            },
            MetricRow {
                name: "rejections",
                about: "not served, for any reason",
                unit: Unit::Count,
                better: Better::Lower,
                value: |m| m.rejections as f64,
            },
            MetricRow {
                name: "rejectionRate",
                about: "rejections ÷ requests",
                unit: Unit::Share,
                better: Better::Lower,
                value: |m| m.rejectionRate,
            },
            MetricRow {
                name: "cancelledByRider",
                about: "gave up waiting",
                unit: Unit::Count,
                better: Better::Lower,
                value: |m| m.cancelledByRider as f64,
            },
            MetricRow {
                name: "cancelledBySystem",
                about: "no driver in time, or the offered driver declined",
                unit: Unit::Count,
                better: Better::Lower,
                value: |m| m.cancelledBySystem as f64,
            },
            MetricRow {
                name: "neverDispatched",
                about: "no booking could be made (no route)",
                unit: Unit::Count,
                better: Better::Lower,
                value: |m| m.neverDispatched as f64,
            },
        ],
    ),
    (
        "Waits of served riders",
        &[
            MetricRow {
                name: "wait_average",
                about: "mean",
                unit: Unit::Wait,
                better: Better::Lower,
                value: |m| m.wait_average,
            },
            MetricRow {
                name: "wait_median",
                about: "half waited less",
                unit: Unit::Wait,
                better: Better::Lower,
                value: |m| m.wait_median,
            },
            MetricRow {
                name: "wait_p95",
                about: "95 % waited less",
                unit: Unit::Wait,
                better: Better::Lower,
                value: |m| m.wait_p95,
            },
            MetricRow {
                name: "wait_max",
                about: "longest",
                unit: Unit::Wait,
                better: Better::Lower,
                value: |m| m.wait_max,
            },
            MetricRow {
                name: "percentage_WT_below_5",
                about: "waited under 5 minutes",
                unit: Unit::Percent,
                better: Better::Higher,
                value: |m| m.percentage_WT_below_5,
            },
            MetricRow {
                name: "percentage_WT_below_10",
                about: "waited under 10 minutes",
                unit: Unit::Percent,
                better: Better::Higher,
                value: |m| m.percentage_WT_below_10,
            },
        ],
    ),
    (
        "Trips and fleet",
        &[
            MetricRow {
                name: "inVehicleTravelTime_mean",
                about: "pickup to drop, mean",
                unit: Unit::Wait,
                better: Better::Neither,
                value: |m| m.inVehicleTravelTime_mean,
            },
            MetricRow {
                name: "distance_m_mean",
                about: "with the rider on board, mean per ride",
                unit: Unit::Metres,
                better: Better::Neither,
                value: |m| m.distance_m_mean,
            },
            MetricRow {
                name: "directDistance_m_mean",
                about: "route from pickup to drop, mean per ride",
                unit: Unit::Metres,
                better: Better::Neither,
                value: |m| m.directDistance_m_mean,
            },
            MetricRow {
                name: "totalDistance",
                about: "every vehicle, every kilometre",
                unit: Unit::Kilometres,
                better: Better::Neither,
                value: |m| m.totalDistance,
            },
            MetricRow {
                name: "totalEmptyDistance",
                about: "with no rider on board",
                unit: Unit::Kilometres,
                better: Better::Neither,
                value: |m| m.totalEmptyDistance,
            },
            MetricRow {
                name: "emptyRatio",
                about: "empty ÷ total distance",
                unit: Unit::Share,
                better: Better::Lower,
                value: |m| m.emptyRatio,
            },
            MetricRow {
                name: "offers_per_booking",
                about: "offers sent per request dispatched",
                unit: Unit::Decimal,
                better: Better::Neither,
                value: |m| m.offers_per_booking,
            },
            MetricRow {
                name: "acceptance_rate",
                about: "answers that were yes",
                unit: Unit::Share,
                better: Better::Higher,
                value: |m| m.acceptance_rate,
            },
            MetricRow {
                name: "driver_utilisation",
                about: "shift time going to a pickup or with a rider",
                unit: Unit::Share,
                better: Better::Higher,
                value: |m| m.driver_utilisation,
            },
        ],
    ),
    (
        "Drivers' earnings per driver on shift",
        &[
            MetricRow {
                name: "earnings_mean",
                about: "mean",
                unit: Unit::Money,
                better: Better::Higher,
                value: |m| m.earnings_mean,
            },
            MetricRow {
                name: "earnings_p10",
                about: "the lowest-earning tenth earned less",
                unit: Unit::Money,
                better: Better::Higher,
                value: |m| m.earnings_p10,
            },
            MetricRow {
                name: "earnings_median",
                about: "half earned less",
                unit: Unit::Money,
                better: Better::Higher,
                value: |m| m.earnings_median,
            },
            MetricRow {
                name: "earnings_p90",
                about: "a tenth earned more",
                unit: Unit::Money,
                better: Better::Higher,
                value: |m| m.earnings_p90,
            },
        ],
    ),
    (
        "Simulation",
        &[
            MetricRow {
                name: "simulated_s",
                about: "virtual time, first request to last event",
                unit: Unit::Span,
                better: Better::Neither,
                value: |m| m.simulated_s as f64,
            },
            MetricRow {
                name: "events",
                about: "handled by the clock",
                unit: Unit::Count,
                better: Better::Neither,
                value: |m| m.events as f64,
            },
        ],
    ),
];

/// The metric of this name.
pub fn row(name: &str) -> Option<&'static MetricRow> {
    METRIC_GROUPS.iter().flat_map(|(_, rows)| rows.iter()).find(|row| row.name == name)
}

impl RunReport {
    /// The figure a reader compares: the mean over the seeds when the run
    /// was repeated, else the one run's.
    pub fn value(&self, row: &MetricRow) -> f64 {
        match self.over_seeds.as_ref().and_then(|over| over.metric(row.name)) {
            Some(interval) => interval.mean,
            None => (row.value)(&self.metrics),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_has_one_row_found_by_its_name() {
        let names: Vec<&str> = METRIC_GROUPS.iter().flat_map(|(_, rows)| rows.iter().map(|row| row.name)).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        assert_eq!(row("wait_average").map(|row| (row.unit, row.better)), Some((Unit::Wait, Better::Lower)));
        assert_eq!(row("fulfilment").map(|row| (row.unit, row.better)), Some((Unit::Share, Better::Higher)));
        assert!(row("nothing").is_none());
    }
}
