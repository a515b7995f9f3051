//! The runs side by side: a column per run, a row per metric, the best of
//! each comparable row marked; with several seeds each figure is the mean
//! over them, with its 95 % interval under it.

use super::text::{breakable, escape, swatch, wall_seconds, with_seconds};
use crate::figures::{Better, METRIC_GROUPS, MetricRow};
use crate::format::Currency;
use crate::format::{self, Unit, hours_minutes_seconds, minutes_seconds, number};
use crate::report::{Report, RunReport, Timing};
use std::fmt::Write;

pub(super) fn comparison(page: &mut String, report: &Report, timing: &Timing) {
    let runs = &report.runs;
    let currency = &report.scenario.currency;
    put!(
        page,
        "<section id=\"comparison\">\n<h2>Runs compared</h2>\n<p class=\"how\"><strong>How to read this.</strong> \
         One column per run. <em>Wait</em> is the time from the request to the driver at the pickup, counted for \
         served riders only. <em>Rejections</em> are every request not served: riders who gave up waiting, bookings \
         the system cancelled, and requests never dispatched. Money is in {} ({}). Metric names follow MATSim's DRT \
         module. In rows where lower or higher is clearly better, the best run is highlighted.",
        escape(&currency.code),
        escape(&currency.symbol)
    );
    let seeds = report.scenario.seeds;
    if seeds > 1 {
        put!(
            page,
            " Each run was repeated with {seeds} seeds ({} to {}): every figure is the mean over them, and under the \
             figures that compare runs is the 95 % confidence interval of that mean (Student's t, {} degrees of \
             freedom). Two runs differ by more than the spread across seeds where their intervals do not overlap.",
            report.scenario.seed,
            report.scenario.seed.wrapping_add(seeds - 1),
            seeds - 1
        );
    }
    put!(page, "</p>\n<div class=\"table-wrap\">\n<table>\n<thead><tr><th scope=\"col\">Metric</th>");
    for (index, run) in runs.iter().enumerate() {
        put!(page, "<th scope=\"col\">{}{}</th>", swatch(index), escape(&run.label()));
    }
    put!(page, "</tr></thead>\n<tbody>\n");
    let columns = runs.len() + 1;
    for (title, rows) in METRIC_GROUPS {
        let in_money = rows.iter().any(|row| row.unit == Unit::Money);
        let title = if in_money { format!("{title}, {}", escape(&currency.code)) } else { title.to_string() };
        put!(page, "<tr class=\"group\"><th colspan=\"{columns}\">{title}</th></tr>\n");
        for row in *rows {
            let values: Vec<f64> = runs.iter().map(|run| run.value(row)).collect();
            let best = best_of(&values, row.better);
            put!(
                page,
                "<tr id=\"metric-{}\"><th scope=\"row\"><code>{}</code><span class=\"about\">{}</span></th>",
                row.name,
                breakable(row.name),
                row.about
            );
            for ((run, value), is_best) in runs.iter().zip(&values).zip(best) {
                let class = if is_best { " class=\"best\"" } else { "" };
                put!(
                    page,
                    "<td{class}>{}{}</td>",
                    format_metric(*value, row.unit, currency),
                    interval(run, row, currency)
                );
            }
            put!(page, "</tr>\n");
        }
    }
    put!(page, "<tr class=\"group\"><th colspan=\"{columns}\">This machine</th></tr>\n");
    let walls: Vec<f64> = (0..runs.len()).map(|index| timing.runs_s.get(index).copied().unwrap_or(f64::NAN)).collect();
    let about = if seeds > 1 { "seconds this run took here, all its seeds" } else { "seconds this run took here" };
    put!(page, "<tr id=\"wall-time\"><th scope=\"row\">Wall time<span class=\"about\">{about}</span></th>");
    for (wall, is_best) in walls.iter().zip(best_of(&walls, Better::Lower)) {
        let class = if is_best { " class=\"best\"" } else { "" };
        put!(page, "<td{class}>{}</td>", wall_seconds(*wall));
    }
    put!(page, "</tr>\n</tbody>\n</table>\n</div>\n");
    let memory = match timing.peak_rss_mb {
        Some(megabytes) => format!("{} MB", number(megabytes, 0)),
        None => "not reported by the system".to_string(),
    };
    put!(
        page,
        "<p class=\"note\">Setup (reading inputs, preparing the network): {} · Peak memory: {memory}.<br>\
         Wall time and memory depend on the machine, so they are shown here and kept out of \
         <code>report.json</code>, which stays byte-identical for the same inputs and seed.</p>\n</section>\n",
        wall_seconds(timing.setup_s)
    );
}

/// Under a figure that compares runs, its 95 % interval over the seeds.
fn interval(run: &RunReport, row: &MetricRow, currency: &Currency) -> String {
    if row.better == Better::Neither {
        return String::new();
    }
    let Some(interval) = run.over_seeds.as_ref().and_then(|over| over.metric(row.name)) else {
        return String::new();
    };
    if interval.is_constant() {
        return format!("<span class=\"ci\">the same in all {} seeds</span>", interval.values.len());
    }
    format!(
        "<span class=\"ci\">95 % CI {}</span>",
        escape(&format::range(interval.low, interval.high, row.unit, currency))
    )
}

/// Which values are the best of their row: none when the row has no
/// direction, fewer than two runs, or every run is equal.
fn best_of(values: &[f64], better: Better) -> Vec<bool> {
    let finite = || values.iter().copied().filter(|value| value.is_finite());
    let (Some(low), Some(high)) = (finite().reduce(f64::min), finite().reduce(f64::max)) else {
        return vec![false; values.len()];
    };
    let best = match better {
        Better::Lower => low,
        Better::Higher => high,
        Better::Neither => return vec![false; values.len()],
    };
    if finite().count() < 2 || low == high {
        return vec![false; values.len()];
    }
    values.iter().map(|value| *value == best).collect()
}

/// A figure as [`format::metric`] writes it, its seconds set apart.
fn format_metric(value: f64, unit: Unit, currency: &Currency) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    match unit {
        Unit::Wait => with_seconds(minutes_seconds(value), value),
        Unit::Span => with_seconds(hours_minutes_seconds(value), value),
        _ => escape(&format::metric(value, unit, currency)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_value_is_marked_only_when_runs_differ() {
        assert_eq!(best_of(&[3.0, 1.0, 1.0], Better::Lower), [false, true, true]);
        assert_eq!(best_of(&[3.0, 1.0], Better::Higher), [true, false]);
        assert_eq!(best_of(&[2.0, 2.0], Better::Higher), [false, false]);
        assert_eq!(best_of(&[3.0, 1.0], Better::Neither), [false, false]);
        assert_eq!(best_of(&[f64::NAN, 1.0], Better::Lower), [false, false]);
    }

    #[test]
    fn a_cell_reads_as_the_plain_figure_once_its_markup_is_gone() {
        let currency = Currency { code: "USD".into(), symbol: "$".into(), symbol_after: false, decimals: 2 };
        for (value, unit) in [(72.9, Unit::Wait), (0.9996, Unit::Share), (878.684, Unit::Money), (2_499.0, Unit::Count)]
        {
            let cell = format_metric(value, unit, &currency);
            let plain = cell.replace("<span class=\"unit\">", "").replace("</span>", "");
            assert_eq!(plain, format::metric(value, unit, &currency));
        }
    }
}
