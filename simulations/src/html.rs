//! `report.html`: one self-contained page drawn from a [`Report`] and its
//! [`Timing`], for a person comparing runs on a laptop or a phone. It loads
//! nothing: the styles are inline, every plot is SVG drawn here, and a
//! Content-Security-Policy forbids fetches, so the file can be mailed or
//! opened offline. The same report gives the same bytes (the page carries
//! no time of its own). It computes no figures: those are `metrics`' work.

use crate::report::{
    CellCount, H3_RESOLUTION, Metrics, Report, RunReport, SERIES_BIN_S, ScenarioSummary, SeriesPoint, Timing,
};
use chrono::Timelike;
use std::collections::BTreeMap;
use std::fmt::{self, Write};

/// `write!` into the page; writing to a `String` cannot fail.
macro_rules! put {
    ($page:expr, $($arg:tt)*) => {{
        let _ = write!($page, $($arg)*);
    }};
}

/// One colour per run, in the order of `Report::runs`, the same in every
/// plot and the table (Tableau 10: distinct, readable on white). Past ten
/// runs they repeat; the legends still name every run.
const RUN_COLOURS: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#9c755f", "#ff9da7", "#76b7b2", "#edc948", "#bab0ac"];

/// Sequential scale for unserved requests on the map (ColorBrewer YlOrRd
/// without its near-white end, so one unserved request still shows).
const UNSERVED_STOPS: [[u8; 3]; 6] =
    [[254, 217, 118], [254, 178, 76], [253, 141, 60], [252, 78, 42], [227, 26, 28], [177, 0, 38]];
/// Cells with requests, all served.
const ALL_SERVED_FILL: &str = "#d5dce4";
/// The requests made, behind the served and unserved lines.
const REQUESTS_FILL: &str = "#dfe5ec";

/// Plot size in SVG user units; the page scales it to its column.
const PLOT_WIDTH: f64 = 440.0;
const PLOT_HEIGHT: f64 = 260.0;
/// The longer side of a map, in user units.
const MAP_SIZE: f64 = 560.0;

const STYLE: &str = "\
:root{--ink:#1f2933;--muted:#52606d;--line:#d9e2ec;--paper:#fff;--best:#dff3dc}
*{box-sizing:border-box}
body{margin:0;background:#f3f5f8;color:var(--ink);font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
main{max-width:1200px;margin:0 auto;padding:12px}
header,section{background:var(--paper);border:1px solid var(--line);border-radius:8px;padding:16px;margin:0 0 14px}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 10px;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:0 0 6px}
h3{font-size:1rem;margin:0 0 4px}
.kicker{margin:0;color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.05em}
.how{color:var(--muted);font-size:.9rem;max-width:75ch;margin:0 0 12px}
.note{color:var(--muted);font-size:.8rem;margin:8px 0 0}
code{font:.85em/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
dl.facts ul{margin:0;padding-left:1.1em}
.table-wrap{overflow-x:auto;max-width:100%;width:max-content;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;vertical-align:top}
thead th{background:#eef2f6;position:sticky;top:0}
tbody th{text-align:left;font-weight:normal;white-space:normal;min-width:11em;max-width:19em}
tr>:first-child{position:sticky;left:0;background:var(--paper);text-align:left;z-index:1}
thead tr>:first-child{background:#eef2f6}
tr.group th{background:#f7f9fb;font-weight:600;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
td.best{background:var(--best);font-weight:600}
.about{display:block;color:var(--muted);font-size:.78rem;line-height:1.3}
.unit{color:var(--muted);font-size:.85em}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.35em;vertical-align:-.05em}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:2px 14px;padding:0;margin:0 0 6px;font-size:.85rem}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,400px),1fr));gap:18px 22px}
.maps{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,340px),1fr));gap:18px 22px}
figure{margin:0;min-width:0}
figure.solo{max-width:580px}
figcaption{color:var(--muted);font-size:.8rem}
svg.plot,svg.map,svg.scale{display:block;width:100%;height:auto}
svg.scale{max-width:520px;margin-bottom:8px}
svg.defs{position:absolute;width:0;height:0;overflow:hidden}
svg text{font-size:13px;fill:#52606d}
svg .grid{stroke:#e4e9ef;stroke-width:1;fill:none}
svg .axis{stroke:#9aa5b1;stroke-width:1;fill:none}
svg .line{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
svg .hit{fill:#1f2933;fill-opacity:0}
svg .hit:hover{fill-opacity:.07}
svg .cells{stroke:#fff;stroke-width:.6;stroke-linejoin:round}
svg .cells use:hover{stroke:#1f2933;stroke-width:1.5}
footer{color:var(--muted);font-size:.8rem;text-align:center;padding:4px 0 16px}
svg.map text{font-size:16px}
tbody th code{overflow-wrap:normal}
@media (max-width:600px){main{padding:6px}header,section{padding:10px;border-radius:6px}body{font-size:14px}
th,td{padding:4px 6px}tbody th{min-width:8em}thead th{white-space:normal;min-width:5.5em}td .unit{display:block}
svg text{font-size:16px}svg.map text{font-size:22px}}
";

/// The whole page for `report`; `timing` is this machine's wall time,
/// shown but never written to `report.json`.
pub fn render(report: &Report, timing: &Timing) -> String {
    let mut page = String::with_capacity(128 * 1024);
    put!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{} · Wayfare simulation</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(&report.scenario.name)
    );
    header(&mut page, &report.scenario, report.runs.len());
    comparison(&mut page, report, timing);
    waits(&mut page, &report.runs);
    over_the_day(&mut page, report);
    unmet_demand(&mut page, report);
    put!(
        page,
        "<footer>Drawn by <code>wayfare simulate</code> from the same figures as <code>report.json</code>.</footer>\n\
         </main>\n</body>\n</html>\n"
    );
    page
}

fn header(page: &mut String, scenario: &ScenarioSummary, runs: usize) {
    put!(
        page,
        "<header>\n<p class=\"kicker\">Wayfare · dispatch simulation</p>\n<h1>{}</h1>\n",
        escape(&scenario.name)
    );
    put!(page, "<dl class=\"facts\">\n<dt>Network</dt><dd><code>{}</code>", escape(&scenario.network));
    match &scenario.network_file {
        Some(file) => put!(page, ", file <code>{}</code></dd>\n", escape(file)),
        None => put!(page, ", no file</dd>\n"),
    }
    put!(
        page,
        "<dt>Demand</dt><dd><code>{}</code>, layout <code>{}</code></dd>\n",
        escape(&scenario.demand),
        escape(&scenario.demand_layout)
    );
    put!(page, "<dt>Requests</dt><dd>{}</dd>\n", count(scenario.requests));
    put!(page, "<dt>Seed</dt><dd>{}</dd>\n", scenario.seed);
    put!(
        page,
        "<dt>Riders give up after</dt><dd>{}</dd>\n",
        with_seconds(minutes_seconds(scenario.cancel_after_s as f64), scenario.cancel_after_s as f64)
    );
    put!(
        page,
        "<dt>Start</dt><dd>{} UTC, requests over {}</dd>\n",
        escape(&scenario.start.replacen('T', " ", 1)),
        with_seconds(hours_minutes_seconds(scenario.demand_span_s as f64), scenario.demand_span_s as f64)
    );
    put!(page, "<dt>Skipped rows</dt><dd>");
    if scenario.skipped.is_empty() {
        put!(page, "none");
    } else {
        put!(page, "<ul>");
        for (reason, rows) in &scenario.skipped {
            put!(page, "<li><code>{}</code>: {}</li>", escape(reason), count(*rows));
        }
        put!(page, "</ul>");
    }
    put!(page, "</dd>\n<dt>Runs</dt><dd>{runs}</dd>\n</dl>\n");
    put!(
        page,
        "<p class=\"note\">Every run replays the same requests with the same seed; \
         only the dispatch policy and the fleet size change between runs.</p>\n</header>\n"
    );
}

// ---------------------------------------------------------------- the table

#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
    /// Not a matter of better or worse (the same demand, or a consequence of
    /// which rides were served).
    Neither,
}

#[derive(Clone, Copy)]
enum Unit {
    Count,
    /// A share from 0 to 1, shown as a percentage.
    Share,
    /// Already a percentage.
    Percent,
    /// Seconds, shown as m:ss.
    Wait,
    /// Seconds, shown as h:mm:ss.
    Span,
    Metres,
    /// Metres, shown in kilometres.
    Kilometres,
    Decimal,
    Money,
}

struct MetricRow {
    name: &'static str,
    about: &'static str,
    unit: Unit,
    better: Better,
    value: fn(&Metrics) -> f64,
}

/// Every field of [`Metrics`], grouped as a reader asks about them.
const METRIC_GROUPS: &[(&str, &[MetricRow])] = &[
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

fn comparison(page: &mut String, report: &Report, timing: &Timing) {
    let runs = &report.runs;
    put!(
        page,
        "<section id=\"comparison\">\n<h2>Runs compared</h2>\n<p class=\"how\"><strong>How to read this.</strong> \
         One column per run. <em>Wait</em> is the time from the request to the driver at the pickup, counted for \
         served riders only. <em>Rejections</em> are every request not served: riders who gave up waiting, bookings \
         the system cancelled, and requests never dispatched. Metric names follow MATSim's DRT module. \
         In rows where lower or higher is clearly better, the best run is highlighted.</p>\n"
    );
    put!(page, "<div class=\"table-wrap\">\n<table>\n<thead><tr><th scope=\"col\">Metric</th>");
    for (index, run) in runs.iter().enumerate() {
        put!(page, "<th scope=\"col\">{}{}</th>", swatch(index), escape(&run_label(run)));
    }
    put!(page, "</tr></thead>\n<tbody>\n");
    let columns = runs.len() + 1;
    for (title, rows) in METRIC_GROUPS {
        put!(page, "<tr class=\"group\"><th colspan=\"{columns}\">{title}</th></tr>\n");
        for row in *rows {
            let values: Vec<f64> = runs.iter().map(|run| (row.value)(&run.metrics)).collect();
            let best = best_of(&values, row.better);
            put!(
                page,
                "<tr id=\"metric-{}\"><th scope=\"row\"><code>{}</code><span class=\"about\">{}</span></th>",
                row.name,
                breakable(row.name),
                row.about
            );
            for (value, is_best) in values.iter().zip(best) {
                let class = if is_best { " class=\"best\"" } else { "" };
                put!(page, "<td{class}>{}</td>", format_metric(*value, row.unit));
            }
            put!(page, "</tr>\n");
        }
    }
    put!(page, "<tr class=\"group\"><th colspan=\"{columns}\">This machine</th></tr>\n");
    let walls: Vec<f64> = (0..runs.len()).map(|index| timing.runs_s.get(index).copied().unwrap_or(f64::NAN)).collect();
    put!(
        page,
        "<tr id=\"wall-time\"><th scope=\"row\">Wall time<span class=\"about\">seconds this run took here</span></th>"
    );
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

fn format_metric(value: f64, unit: Unit) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    match unit {
        Unit::Count => count(value.round().max(0.0) as u64),
        Unit::Share => format!("{} %", number(value * 100.0, 1)),
        Unit::Percent => format!("{} %", number(value, 1)),
        Unit::Wait => with_seconds(minutes_seconds(value), value),
        Unit::Span => with_seconds(hours_minutes_seconds(value), value),
        Unit::Metres => format!("{} m", number(value, 0)),
        Unit::Kilometres => format!("{} km", number(value / 1000.0, 1)),
        Unit::Decimal | Unit::Money => number(value, 2),
    }
}

// ---------------------------------------------------------------- the plots

fn waits(page: &mut String, runs: &[RunReport]) {
    put!(
        page,
        "<section id=\"waits\">\n<h2>How long served riders waited</h2>\n<p class=\"how\"><strong>How to read this.\
         </strong> Served riders counted by their wait, from the request to the driver at the pickup, in one-minute \
         bins: the bin at 3 holds waits from 3:00 to 3:59, and the last bin every longer wait. Riders who gave up \
         are not here but in <code>cancelledByRider</code>. Hover a bin for the counts.</p>\n"
    );
    let bins = runs.iter().map(|run| run.wait_histogram.len()).max().unwrap_or(0);
    if bins == 0 {
        put!(page, "<p>No waits to draw.</p>\n</section>\n");
        return;
    }
    put!(page, "<figure class=\"solo\">\n");
    run_legend(page, runs, &[]);
    let counts = |run: &RunReport, bin: usize| run.wait_histogram.get(bin).copied().unwrap_or(0);
    let highest = runs.iter().flat_map(|run| run.wait_histogram.iter().copied()).max().unwrap_or(0);
    let (y_top, y_ticks) = value_ticks(highest as f64, true);
    let frame = Frame::new(bins as f64, y_top);
    let last = bins - 1;
    let label_every = if bins <= 12 {
        1
    } else if bins <= 24 {
        2
    } else if bins <= 60 {
        5
    } else {
        10
    };
    let mut x_ticks: Vec<(f64, String)> = (0..last)
        .step_by(label_every)
        .filter(|edge| last - edge >= label_every.min(3))
        .map(|edge| (edge as f64, edge.to_string()))
        .collect();
    x_ticks.push((last as f64, format!("≥{last}")));
    open_plot(page, "Served riders by wait in minutes, per run");
    axes(page, &frame, &x_ticks, &y_ticks, "riders", "wait, minutes");
    if runs.len() <= 4 {
        // Side by side within each bin while the bars stay wide enough to see.
        let bar = 0.84 / runs.len() as f64;
        for (index, run) in runs.iter().enumerate() {
            let mut bars = String::new();
            for bin in 0..bins {
                let value = counts(run, bin);
                if value == 0 {
                    continue;
                }
                let left = frame.x(bin as f64 + 0.08 + bar * index as f64);
                let right = frame.x(bin as f64 + 0.08 + bar * (index + 1) as f64);
                let (top, bottom) = (frame.y(value as f64), frame.y(0.0));
                put!(bars, "M{} {}H{}V{}H{}Z", U(left), U(bottom), U(right), U(top), U(left));
            }
            put!(page, "<path fill=\"{}\" d=\"{bars}\"/>\n", run_colour(index));
        }
    } else {
        // Many runs: overlaid outlines, which stay legible where bars would be slivers.
        for (index, run) in runs.iter().enumerate() {
            let mut outline = format!("M{} {}", U(frame.x(0.0)), U(frame.y(0.0)));
            for bin in 0..bins {
                let y = frame.y(counts(run, bin) as f64);
                put!(outline, "V{}H{}", U(y), U(frame.x(bin as f64 + 1.0)));
            }
            put!(outline, "V{}", U(frame.y(0.0)));
            put!(page, "<path class=\"line\" stroke=\"{}\" d=\"{outline}\"/>\n", run_colour(index));
        }
    }
    for bin in 0..bins {
        let range = if bin == last { format!("{bin}:00 or more") } else { format!("{bin}:00 to {bin}:59") };
        let mut tip = format!("Wait {range}");
        for run in runs {
            let served: u64 = run.wait_histogram.iter().sum();
            let value = counts(run, bin);
            let share = if served > 0 { 100.0 * value as f64 / served as f64 } else { 0.0 };
            put!(tip, "\n{}: {} ({} % of served)", run_label(run), count(value), number(share, 1));
        }
        hit_area(page, &frame, bin as f64, bin as f64 + 1.0, &tip);
    }
    put!(page, "</svg>\n</figure>\n</section>\n");
}

fn over_the_day(page: &mut String, report: &Report) {
    let runs = &report.runs;
    let clock = Clock::new(&report.scenario.start);
    put!(
        page,
        "<section id=\"day\">\n<h2>Over the day</h2>\n<p class=\"how\"><strong>How to read this.</strong> \
         Figures per 15 minutes, at clock time (UTC). <em>Served</em>: riders picked up in those 15 minutes; \
         <em>unserved</em>: requests that ended unserved then (gave up, cancelled or never dispatched). The grey \
         steps are the requests made, the same for every run. <em>Idle drivers</em> are on shift and free at the \
         start of the 15 minutes. <em>Mean wait</em> is that of the riders picked up then; a gap means nobody was \
         picked up. Hover the plots for the numbers.</p>\n"
    );
    let bins = runs.iter().map(|run| run.series.len()).max().unwrap_or(0);
    if bins == 0 {
        put!(page, "<p>No time series to draw.</p>\n</section>\n");
        return;
    }
    let demand: Vec<f64> = (0..bins)
        .map(|bin| runs.iter().find_map(|run| run.series.get(bin)).map_or(0.0, |point| point.demand as f64))
        .collect();
    let window = |bin: usize| {
        format!("{}–{}", clock.label(bin as u64 * SERIES_BIN_S), clock.label((bin as u64 + 1) * SERIES_BIN_S))
    };
    let tips = |describe: &dyn Fn(&RunReport, usize) -> String, with_demand: bool| -> Vec<String> {
        (0..bins)
            .map(|bin| {
                let mut tip = window(bin);
                if with_demand {
                    put!(tip, "\nrequests made: {}", count(demand[bin] as u64));
                }
                for run in runs.iter() {
                    put!(tip, "\n{}: {}", run_label(run), describe(run, bin));
                }
                tip
            })
            .collect()
    };
    let lines = |value: &dyn Fn(&RunReport, usize) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
        runs.iter().map(|run| (0..bins).map(|bin| value(run, bin)).collect()).collect()
    };
    let demand_key = [(REQUESTS_FILL, "requests made")];
    put!(page, "<div class=\"plots\">\n");

    let served = TimePlot {
        title: "Served per 15 minutes",
        y_unit: "riders",
        whole: true,
        backdrop: Some(&demand),
        lines: lines(&|run, bin| Some(point(run, bin).map_or(0.0, |point| point.served as f64))),
        tips: tips(&|run, bin| format!("{} served", count(point(run, bin).map_or(0, |point| point.served))), true),
    };
    served.draw(page, runs, &clock, &demand_key);

    let unserved = TimePlot {
        title: "Unserved per 15 minutes",
        y_unit: "requests",
        whole: true,
        backdrop: Some(&demand),
        lines: lines(&|run, bin| Some(point(run, bin).map_or(0.0, |point| point.unserved as f64))),
        tips: tips(&|run, bin| format!("{} unserved", count(point(run, bin).map_or(0, |point| point.unserved))), true),
    };
    unserved.draw(page, runs, &clock, &demand_key);

    let idle = TimePlot {
        title: "Idle drivers",
        y_unit: "drivers",
        whole: true,
        backdrop: None,
        lines: lines(&|run, bin| Some(point(run, bin).map_or(0.0, |point| point.idle_drivers as f64))),
        tips: tips(&|run, bin| format!("{} idle", count(point(run, bin).map_or(0, |point| point.idle_drivers))), false),
    };
    idle.draw(page, runs, &clock, &[]);

    let mean_wait = TimePlot {
        title: "Mean wait of riders picked up",
        y_unit: "minutes",
        whole: false,
        backdrop: None,
        lines: lines(&|run, bin| point(run, bin).and_then(|point| point.mean_wait_s).map(|wait| wait / 60.0)),
        tips: tips(
            &|run, bin| match point(run, bin) {
                Some(SeriesPoint { mean_wait_s: Some(wait), served, .. }) => {
                    format!("{} over {} picked up", minutes_seconds(*wait), count(*served))
                }
                _ => "nobody picked up".to_string(),
            },
            false,
        ),
    };
    mean_wait.draw(page, runs, &clock, &[]);
    put!(page, "</div>\n</section>\n");
}

fn point(run: &RunReport, bin: usize) -> Option<&SeriesPoint> {
    run.series.get(bin)
}

/// One plot over the day: a line per run, optionally over grey steps.
struct TimePlot<'a> {
    title: &'a str,
    y_unit: &'a str,
    /// Counts: whole-number ticks.
    whole: bool,
    backdrop: Option<&'a [f64]>,
    /// Per run, a value per bin; `None` leaves a gap.
    lines: Vec<Vec<Option<f64>>>,
    tips: Vec<String>,
}

impl TimePlot<'_> {
    fn draw(&self, page: &mut String, runs: &[RunReport], clock: &Clock, extra_key: &[(&str, &str)]) {
        let bins = self.tips.len();
        let highest = self
            .lines
            .iter()
            .flatten()
            .flatten()
            .copied()
            .chain(self.backdrop.unwrap_or(&[]).iter().copied())
            .fold(0.0, f64::max);
        let (y_top, y_ticks) = value_ticks(highest, self.whole);
        let span = bins as u64 * SERIES_BIN_S;
        let frame = Frame::new(span as f64, y_top);
        put!(page, "<figure>\n<h3>{}</h3>\n", self.title);
        run_legend(page, runs, extra_key);
        open_plot(page, self.title);
        axes(page, &frame, &clock.ticks(span), &y_ticks, self.y_unit, "clock time, UTC");
        let bin_s = SERIES_BIN_S as f64;
        if let Some(backdrop) = self.backdrop {
            let mut steps = format!("M{} {}", U(frame.x(0.0)), U(frame.y(0.0)));
            for (bin, value) in backdrop.iter().enumerate() {
                put!(steps, "V{}H{}", U(frame.y(*value)), U(frame.x((bin + 1) as f64 * bin_s)));
            }
            put!(steps, "V{}Z", U(frame.y(0.0)));
            put!(page, "<path fill=\"{REQUESTS_FILL}\" d=\"{steps}\"/>\n");
        }
        for (index, values) in self.lines.iter().enumerate() {
            let colour = run_colour(index);
            let at = |bin: usize, value: f64| (frame.x((bin as f64 + 0.5) * bin_s), frame.y(value));
            // Consecutive bins with a value make one line; a lone one is a dot.
            let mut start = 0;
            while start < values.len() {
                if values[start].is_none() {
                    start += 1;
                    continue;
                }
                let end = (start..values.len()).find(|bin| values[*bin].is_none()).unwrap_or(values.len());
                if end - start == 1 {
                    let (x, y) = at(start, values[start].unwrap_or(0.0));
                    put!(page, "<circle fill=\"{colour}\" r=\"2.5\" cx=\"{}\" cy=\"{}\"/>\n", U(x), U(y));
                } else {
                    let points: Vec<String> = (start..end)
                        .map(|bin| {
                            let (x, y) = at(bin, values[bin].unwrap_or(0.0));
                            format!("{},{}", U(x), U(y))
                        })
                        .collect();
                    put!(page, "<polyline class=\"line\" stroke=\"{colour}\" points=\"{}\"/>\n", points.join(" "));
                }
                start = end;
            }
        }
        for (bin, tip) in self.tips.iter().enumerate() {
            hit_area(page, &frame, bin as f64 * bin_s, (bin + 1) as f64 * bin_s, tip);
        }
        put!(page, "</svg>\n</figure>\n");
    }
}

/// The plot area inside a [`PLOT_WIDTH`] × [`PLOT_HEIGHT`] SVG, from 0 to
/// `x_max` and from 0 to `y_max`.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x_max: f64,
    y_max: f64,
}

impl Frame {
    fn new(x_max: f64, y_max: f64) -> Frame {
        Frame { left: 46.0, right: PLOT_WIDTH - 14.0, top: 26.0, bottom: PLOT_HEIGHT - 44.0, x_max, y_max }
    }

    fn x(&self, value: f64) -> f64 {
        self.left + value / self.x_max.max(f64::MIN_POSITIVE) * (self.right - self.left)
    }

    fn y(&self, value: f64) -> f64 {
        self.bottom - value / self.y_max.max(f64::MIN_POSITIVE) * (self.bottom - self.top)
    }
}

fn open_plot(page: &mut String, label: &str) {
    put!(
        page,
        "<svg class=\"plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
        U(PLOT_WIDTH),
        U(PLOT_HEIGHT),
        escape(label)
    );
}

/// Grid lines, axis lines, tick labels and the two axis titles.
fn axes(
    page: &mut String,
    frame: &Frame,
    x_ticks: &[(f64, String)],
    y_ticks: &[(f64, String)],
    y_unit: &str,
    x_unit: &str,
) {
    let mut grid = String::new();
    for (value, _) in y_ticks.iter().filter(|(value, _)| *value > 0.0) {
        put!(grid, "M{} {}H{}", U(frame.left), U(frame.y(*value)), U(frame.right));
    }
    put!(page, "<path class=\"grid\" d=\"{grid}\"/>\n");
    let mut marks = format!("M{} {}H{}", U(frame.left), U(frame.bottom), U(frame.right));
    for (value, _) in x_ticks {
        put!(marks, "M{} {}v5", U(frame.x(*value)), U(frame.bottom));
    }
    put!(page, "<path class=\"axis\" d=\"{marks}\"/>\n");
    for (value, label) in y_ticks {
        put!(
            page,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\".35em\">{}</text>\n",
            U(frame.left - 6.0),
            U(frame.y(*value)),
            escape(label)
        );
    }
    for (value, label) in x_ticks {
        put!(
            page,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            U(frame.x(*value)),
            U(frame.bottom + 22.0),
            escape(label)
        );
    }
    put!(page, "<text x=\"{}\" y=\"{}\">{}</text>\n", U(frame.left - 6.0), U(frame.top - 12.0), escape(y_unit));
    put!(
        page,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        U(frame.right),
        U(frame.bottom + 40.0),
        escape(x_unit)
    );
}

/// A transparent column from `from` to `to` whose tooltip gives the numbers.
fn hit_area(page: &mut String, frame: &Frame, from: f64, to: f64, tip: &str) {
    put!(
        page,
        "<rect class=\"hit\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>\n",
        U(frame.x(from)),
        U(frame.top),
        U(frame.x(to) - frame.x(from)),
        U(frame.bottom - frame.top),
        escape(tip)
    );
}

/// The run colours as an HTML list, plus any other keys of the plot.
fn run_legend(page: &mut String, runs: &[RunReport], extra: &[(&str, &str)]) {
    put!(page, "<ul class=\"legend\">");
    for (index, run) in runs.iter().enumerate() {
        put!(page, "<li>{}{}</li>", swatch(index), escape(&run_label(run)));
    }
    for (colour, label) in extra {
        put!(page, "<li><span class=\"swatch\" style=\"background:{colour}\"></span>{}</li>", escape(label));
    }
    put!(page, "</ul>\n");
}

/// A round top for an axis reaching `highest`, with its ticks from 0: about
/// four intervals, whole numbers for counts.
fn value_ticks(highest: f64, whole: bool) -> (f64, Vec<(f64, String)>) {
    let highest = if highest.is_finite() && highest > 0.0 { highest } else { 1.0 };
    let raw = highest / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|factor| factor * magnitude)
        .filter(|step| !whole || (*step >= 1.0 && step.fract() == 0.0))
        .find(|step| *step >= raw)
        .unwrap_or_else(|| if whole { raw.ceil().max(1.0) } else { 10.0 * magnitude });
    let intervals = (highest / step - 1e-9).ceil().max(1.0) as u64;
    let decimals = (0..3).find(|decimals| {
        let scaled = step * 10f64.powi(*decimals);
        (scaled - scaled.round()).abs() < 1e-6
    });
    let ticks = (0..=intervals)
        .map(|index| {
            let value = index as f64 * step;
            (value, number(value, decimals.unwrap_or(2) as usize))
        })
        .collect();
    (intervals as f64 * step, ticks)
}

/// Clock times of the series: the scenario's start plus seconds, as HH:MM
/// in UTC; as +h:mm from the start when the start cannot be read.
struct Clock {
    start_of_day_s: Option<u64>,
}

impl Clock {
    fn new(start: &str) -> Clock {
        let parsed = chrono::NaiveDateTime::parse_from_str(start, "%Y-%m-%dT%H:%M:%S")
            .ok()
            .or_else(|| chrono::DateTime::parse_from_rfc3339(start).ok().map(|time| time.naive_utc()));
        Clock { start_of_day_s: parsed.map(|time| u64::from(time.time().num_seconds_from_midnight())) }
    }

    fn label(&self, offset_s: u64) -> String {
        match self.start_of_day_s {
            Some(start) => {
                let of_day = (start + offset_s) % 86_400;
                format!("{:02}:{:02}", of_day / 3600, of_day % 3600 / 60)
            }
            None => format!("+{}:{:02}", offset_s / 3600, offset_s % 3600 / 60),
        }
    }

    /// Round clock times within the first `span_s` seconds, at most about six.
    fn ticks(&self, span_s: u64) -> Vec<(f64, String)> {
        const STEPS: [u64; 9] = [900, 1800, 3600, 7200, 10_800, 14_400, 21_600, 43_200, 86_400];
        let step = STEPS.into_iter().find(|step| span_s / step <= 6).unwrap_or(86_400 * (span_s / 86_400 / 6 + 1));
        let start = self.start_of_day_s.unwrap_or(0);
        let first = (step - start % step) % step;
        (first..=span_s).step_by(step as usize).map(|offset| (offset as f64, self.label(offset))).collect()
    }
}

// ---------------------------------------------------------------- the map

fn unmet_demand(page: &mut String, report: &Report) {
    put!(
        page,
        "<section id=\"map\">\n<h2>Where demand went unmet</h2>\n<p class=\"how\"><strong>How to read this.\
         </strong> Each hexagon is an H3 cell (resolution {H3_RESOLUTION}, about 0.7 km²) where requests started. \
         Its colour is the number of those requests left unserved, on the same scale for every run; grey cells \
         had requests, all served. Hover a cell (or press it on a phone) for its counts. North is up.</p>\n"
    );
    let Some(geometry) = MapGeometry::new(&report.runs) else {
        put!(page, "<p>No cells to draw.</p>\n</section>\n");
        return;
    };
    let most_unserved =
        report.runs.iter().flat_map(|run| run.cells.iter()).map(|cell| cell.unserved).max().unwrap_or(0);
    colour_scale(page, most_unserved);
    // Each cell's outline is written once and drawn by reference in every
    // run's map, so more runs do not multiply the geometry.
    put!(page, "<svg class=\"defs\" aria-hidden=\"true\"><defs>\n");
    for (id, outline) in geometry.outlines.iter().enumerate() {
        put!(page, "<path id=\"cell-{id}\" d=\"{outline}\"/>\n");
    }
    put!(page, "</defs></svg>\n<div class=\"maps\">\n");
    for (index, run) in report.runs.iter().enumerate() {
        let unserved: u64 = run.cells.iter().map(|cell| cell.unserved).sum();
        let requests: u64 = run.cells.iter().map(|cell| cell.requests).sum();
        let cells_unserved = run.cells.iter().filter(|cell| cell.unserved > 0).count();
        put!(page, "<figure>\n<h3>{}{}</h3>\n", swatch(index), escape(&run_label(run)));
        put!(
            page,
            "<svg class=\"map\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Unserved requests by cell, {}\">\n\
             <g class=\"cells\">\n",
            U(geometry.width),
            U(geometry.height),
            escape(&run_label(run))
        );
        // Most unmet last, so its outline is not hidden under its neighbours'.
        let mut cells: Vec<&CellCount> = run.cells.iter().collect();
        cells.sort_by(|a, b| a.unserved.cmp(&b.unserved).then_with(|| a.cell.cmp(&b.cell)));
        for cell in cells {
            let Some(id) = geometry.ids.get(cell.cell.as_str()) else { continue };
            let fill = if cell.unserved == 0 {
                ALL_SERVED_FILL.to_string()
            } else {
                unserved_colour(cell.unserved, most_unserved)
            };
            let share = if cell.requests > 0 { 100.0 * cell.unserved as f64 / cell.requests as f64 } else { 0.0 };
            put!(
                page,
                "<use href=\"#cell-{id}\" fill=\"{fill}\"><title>{}\n{} requests, {} unserved ({} %)</title></use>\n",
                escape(&cell.cell),
                count(cell.requests),
                count(cell.unserved),
                number(share, 0)
            );
        }
        put!(page, "</g>\n");
        geometry.scale_bar(page);
        put!(
            page,
            "</svg>\n<figcaption>{} of {} requests unserved, in {} of {} cells",
            count(unserved),
            count(requests),
            count(cells_unserved as u64),
            count(run.cells.len() as u64)
        );
        if report.scenario.openstreetmap {
            put!(page, " · © OpenStreetMap contributors");
        }
        put!(page, "</figcaption>\n</figure>\n");
    }
    put!(page, "</div>\n</section>\n");
}

/// Every cell of every run, projected once: x = lng·cos(mid latitude),
/// y = −lat, fitted into [`MAP_SIZE`] on the longer side.
struct MapGeometry<'a> {
    ids: BTreeMap<&'a str, usize>,
    /// SVG path data, by id.
    outlines: Vec<String>,
    width: f64,
    height: f64,
    /// User units per kilometre.
    per_km: f64,
}

/// Room around the cells, and below them for the scale bar.
const MAP_PAD: f64 = 8.0;
const MAP_FOOT: f64 = 30.0;

impl<'a> MapGeometry<'a> {
    fn new(runs: &'a [RunReport]) -> Option<MapGeometry<'a>> {
        let mut boundaries: BTreeMap<&str, &[[f64; 2]]> = BTreeMap::new();
        for cell in runs.iter().flat_map(|run| run.cells.iter()) {
            if cell.boundary.len() >= 3 && cell.boundary.iter().flatten().all(|degrees| degrees.is_finite()) {
                boundaries.entry(cell.cell.as_str()).or_insert(&cell.boundary);
            }
        }
        let corners = || boundaries.values().flat_map(|boundary| boundary.iter());
        let south = corners().map(|corner| corner[0]).reduce(f64::min)?;
        let north = corners().map(|corner| corner[0]).reduce(f64::max)?;
        let west = corners().map(|corner| corner[1]).reduce(f64::min)?;
        let east = corners().map(|corner| corner[1]).reduce(f64::max)?;
        let shrink = ((south + north) / 2.0).to_radians().cos();
        let (across, up) = (((east - west) * shrink).max(1e-9), (north - south).max(1e-9));
        let per_degree = MAP_SIZE / across.max(up);
        let project = |corner: &[f64; 2]| {
            (MAP_PAD + (corner[1] - west) * shrink * per_degree, MAP_PAD + (north - corner[0]) * per_degree)
        };
        let mut ids = BTreeMap::new();
        let mut outlines = Vec::with_capacity(boundaries.len());
        for (id, (cell, boundary)) in boundaries.into_iter().enumerate() {
            let mut outline = String::new();
            for (index, corner) in boundary.iter().enumerate() {
                let (x, y) = project(corner);
                put!(outline, "{}{} {}", if index == 0 { "M" } else { "L" }, U(x), U(y));
            }
            outline.push('Z');
            ids.insert(cell, id);
            outlines.push(outline);
        }
        Some(MapGeometry {
            ids,
            outlines,
            width: across * per_degree + 2.0 * MAP_PAD,
            height: up * per_degree + 2.0 * MAP_PAD + MAP_FOOT,
            // A degree of latitude is 111.32 km.
            per_km: per_degree / 111.32,
        })
    }

    /// A round distance at the bottom left, at most a third of the width.
    fn scale_bar(&self, page: &mut String) {
        let fits = |km: f64| km * self.per_km <= (self.width - 2.0 * MAP_PAD) / 3.0;
        let Some(km) = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
            .into_iter()
            .rev()
            .find(|km| fits(*km))
        else {
            return;
        };
        let (x, y, length) = (MAP_PAD, self.height - 10.0, km * self.per_km);
        let label = if km < 1.0 { format!("{} m", km * 1000.0) } else { format!("{km} km") };
        put!(
            page,
            "<path class=\"axis\" d=\"M{} {}v-5M{} {}H{}v-5\"/><text x=\"{}\" y=\"{}\">{label}</text>\n",
            U(x),
            U(y - 5.0),
            U(x),
            U(y),
            U(x + length),
            U(x + length + 6.0),
            U(y)
        );
    }
}

/// The colour of `unserved` on a square-root scale up to `most`: unmet
/// demand is skewed, and a linear scale would leave most cells pale.
fn unserved_colour(unserved: u64, most: u64) -> String {
    let position = (unserved as f64 / most.max(1) as f64).sqrt().clamp(0.0, 1.0) * (UNSERVED_STOPS.len() - 1) as f64;
    let low = (position.floor() as usize).min(UNSERVED_STOPS.len() - 2);
    let fraction = position - low as f64;
    let channel = |index: usize| {
        UNSERVED_STOPS[low][index] as f64
            + (UNSERVED_STOPS[low + 1][index] as f64 - UNSERVED_STOPS[low][index] as f64) * fraction
    };
    format!("#{:02x}{:02x}{:02x}", channel(0).round() as u8, channel(1).round() as u8, channel(2).round() as u8)
}

/// The map's key: the all-served grey, then the gradient from 1 to `most`
/// with ticks where the square-root scale puts them.
fn colour_scale(page: &mut String, most: u64) {
    let (width, height) = (480.0, 50.0);
    let (bar_left, bar_right, bar_top) = (86.0, width - 16.0, 8.0);
    put!(
        page,
        "<svg class=\"scale\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Colour scale of unserved requests\">\n\
         <rect x=\"0\" y=\"{}\" width=\"26\" height=\"14\" fill=\"{ALL_SERVED_FILL}\"/>\
         <text x=\"32\" y=\"{}\">none</text>\n",
        U(width),
        U(height),
        U(bar_top),
        U(bar_top + 11.0)
    );
    if most == 0 {
        put!(page, "<text x=\"{}\" y=\"{}\">every request served</text>\n</svg>\n", U(bar_left), U(bar_top + 11.0));
        return;
    }
    put!(page, "<defs><linearGradient id=\"unserved-scale\">");
    for (index, stop) in UNSERVED_STOPS.iter().enumerate() {
        put!(
            page,
            "<stop offset=\"{}\" stop-color=\"#{:02x}{:02x}{:02x}\"/>",
            U(index as f64 / (UNSERVED_STOPS.len() - 1) as f64 * 100.0).percent(),
            stop[0],
            stop[1],
            stop[2]
        );
    }
    put!(
        page,
        "</linearGradient></defs>\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"url(#unserved-scale)\"/>\n",
        U(bar_left),
        U(bar_top),
        U(bar_right - bar_left)
    );
    let at = |value: u64| bar_left + (value as f64 / most as f64).sqrt() * (bar_right - bar_left);
    let (_, ticks) = value_ticks(most as f64, true);
    let mut values: Vec<u64> = vec![1];
    values.extend(ticks.iter().map(|(value, _)| *value as u64).filter(|value| *value > 1 && *value < most));
    values.push(most);
    values.dedup();
    // Labels closer than this would overlap; the ends win.
    let mut placed: Vec<f64> = Vec::new();
    let mut marks = String::new();
    for (index, value) in values.iter().enumerate() {
        let x = at(*value);
        let is_end = index == 0 || index == values.len() - 1;
        if !is_end && (placed.iter().any(|left| x - left < 44.0) || at(most) - x < 44.0) {
            continue;
        }
        placed.push(x);
        put!(marks, "M{} {}v5", U(x), U(bar_top + 14.0));
        put!(
            page,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            U(x),
            U(bar_top + 34.0),
            count(*value)
        );
    }
    put!(page, "<path class=\"axis\" d=\"{marks}\"/>\n</svg>\n");
}

// ---------------------------------------------------------------- text

/// A metric name that may wrap where a reader would break it (at a capital
/// or after an underscore) rather than anywhere in a narrow column.
fn breakable(name: &str) -> String {
    let mut wrapped = String::with_capacity(name.len() + 16);
    for (index, character) in name.char_indices() {
        if index > 0 && character.is_ascii_uppercase() {
            wrapped.push_str("<wbr>");
        }
        wrapped.push(character);
        if character == '_' {
            wrapped.push_str("<wbr>");
        }
    }
    wrapped
}

fn run_label(run: &RunReport) -> String {
    let vehicles = if run.fleet == 1 { "vehicle" } else { "vehicles" };
    format!("{} · {} {vehicles}", run.policy, count(run.fleet))
}

fn run_colour(index: usize) -> &'static str {
    RUN_COLOURS[index % RUN_COLOURS.len()]
}

fn swatch(index: usize) -> String {
    format!("<span class=\"swatch\" style=\"background:{}\"></span>", run_colour(index))
}

/// Text from the report made safe inside HTML elements and quoted attributes.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

fn count(value: u64) -> String {
    group_thousands(&value.to_string())
}

/// `value` with `decimals` places and thousands separated by commas.
fn number(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    let digits = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) =
        digits.split_once('.').map_or((digits.as_str(), None), |(whole, fraction)| (whole, Some(fraction)));
    let is_zero = digits.chars().all(|character| character == '0' || character == '.');
    let sign = if value < 0.0 && !is_zero { "-" } else { "" };
    match fraction {
        Some(fraction) => format!("{sign}{}.{fraction}", group_thousands(whole)),
        None => format!("{sign}{}", group_thousands(whole)),
    }
}

fn group_thousands(digits: &str) -> String {
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

fn minutes_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    let whole = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", whole / 60, whole % 60)
}

fn hours_minutes_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    let whole = seconds.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", whole / 3600, whole % 3600 / 60, whole % 60)
}

/// A clock-style duration followed by its seconds, which are what
/// `report.json` holds.
fn with_seconds(clock: String, seconds: f64) -> String {
    format!("{clock} <span class=\"unit\">({} s)</span>", number(seconds, 0))
}

fn wall_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_string();
    }
    format!("{} s", number(seconds, if seconds < 10.0 { 2 } else { 1 }))
}

/// An SVG coordinate to one decimal without a trailing `.0`: precise enough
/// on any screen, and it keeps thousands of cells small.
struct U(f64);

impl U {
    fn percent(self) -> String {
        format!("{self}%")
    }
}

impl fmt::Display for U {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = if self.0.is_finite() { (self.0 * 10.0).round() as i64 } else { 0 };
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.abs() / 10, tenths.abs() % 10);
        if tenth == 0 { write!(formatter, "{sign}{whole}") } else { write!(formatter, "{sign}{whole}.{tenth}") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_group_thousands_and_keep_their_sign() {
        assert_eq!(number(1_234_567.891, 2), "1,234,567.89");
        assert_eq!(number(-1234.0, 0), "-1,234");
        assert_eq!(number(-0.001, 1), "0.0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
    }

    #[test]
    fn durations_read_as_clocks() {
        assert_eq!(minutes_seconds(245.4), "4:05");
        assert_eq!(minutes_seconds(3_725.0), "62:05");
        assert_eq!(hours_minutes_seconds(63_000.0), "17:30:00");
    }

    #[test]
    fn metric_names_wrap_at_their_words() {
        assert_eq!(breakable("inVehicleTravelTime_mean"), "in<wbr>Vehicle<wbr>Travel<wbr>Time_<wbr>mean");
        assert_eq!(breakable("rides"), "rides");
    }

    #[test]
    fn coordinates_keep_one_decimal_and_drop_a_trailing_zero() {
        assert_eq!(U(12.04).to_string(), "12");
        assert_eq!(U(12.06).to_string(), "12.1");
        assert_eq!(U(-0.54).to_string(), "-0.5");
        assert_eq!(U(-0.04).to_string(), "0");
    }

    #[test]
    fn axis_ticks_are_round_and_reach_the_highest_value() {
        let (top, ticks) = value_ticks(37.0, true);
        assert_eq!(top, 40.0);
        assert_eq!(ticks.iter().map(|(_, label)| label.as_str()).collect::<Vec<_>>(), ["0", "10", "20", "30", "40"]);
        let (top, ticks) = value_ticks(3.0, true);
        assert_eq!((top, ticks.len()), (3.0, 4));
        let (top, ticks) = value_ticks(0.9, false);
        assert_eq!((top, ticks[1].1.as_str()), (1.0, "0.25"));
    }

    #[test]
    fn the_best_value_is_marked_only_when_runs_differ() {
        assert_eq!(best_of(&[3.0, 1.0, 1.0], Better::Lower), [false, true, true]);
        assert_eq!(best_of(&[3.0, 1.0], Better::Higher), [true, false]);
        assert_eq!(best_of(&[2.0, 2.0], Better::Higher), [false, false]);
        assert_eq!(best_of(&[3.0, 1.0], Better::Neither), [false, false]);
        assert_eq!(best_of(&[f64::NAN, 1.0], Better::Lower), [false, false]);
    }

    #[test]
    fn clock_labels_count_from_the_start_of_the_day() {
        let clock = Clock::new("2026-01-01T06:40:00");
        assert_eq!(clock.label(1_200), "07:00");
        assert_eq!(clock.ticks(4 * 3600).first(), Some(&(1_200.0, "07:00".to_string())));
        assert_eq!(Clock::new("not a time").label(5_400), "+1:30");
    }

    #[test]
    fn the_colour_scale_runs_from_light_to_dark() {
        assert_eq!(unserved_colour(10, 10), "#b10026");
        assert_eq!(unserved_colour(0, 10), "#fed976");
    }
}
