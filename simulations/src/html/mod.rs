//! `report.html`: one self-contained page drawn from a [`Report`] and its
//! [`Timing`], for a person comparing runs on a laptop or a phone. It opens
//! with the report's conclusion, then the runs side by side, the plots and
//! the maps over the run's roads. It loads nothing: the styles are inline,
//! every plot is SVG drawn here, and a Content-Security-Policy forbids
//! fetches, so the file can be mailed or opened offline. The same report
//! gives the same bytes (the page carries no time of its own). It computes
//! no figures: those are `metrics`', `stats`' and `conclusion`'s work.

use crate::basemap::Roads;
use crate::conclusion::SMALLEST_DIFFERENCE;
use crate::format::{count, hours_minutes_seconds, minutes_seconds, number};
use crate::report::Conclusion;
use crate::report::{Report, ScenarioSummary, Timing};
use std::fmt::Write;

/// `write!` into the page; writing to a `String` cannot fail.
macro_rules! put {
    ($page:expr, $($arg:tt)*) => {{
        let _ = write!($page, $($arg)*);
    }};
}

mod map;
mod plots;
mod table;
mod text;

use text::{escape, with_code, with_seconds};

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
.conclusion{border-left:4px solid #2f855a;background:#f0faf3;border-radius:4px;padding:10px 14px;margin:4px 0 0}
.conclusion .verdict{margin:0 0 6px;font-size:1.05rem;line-height:1.4}
.conclusion ul{margin:0;padding-left:1.2em;max-width:95ch}
.conclusion li{margin:3px 0}
.ci{display:block;color:var(--muted);font-size:.75rem;font-weight:normal}
svg .roads path{fill:none;stroke-linecap:round;stroke-linejoin:round}
svg.map text.credit{font-size:11px}
svg.map text{font-size:16px}
tbody th code{overflow-wrap:normal}
@media (max-width:600px){main{padding:6px}header,section{padding:10px;border-radius:6px}body{font-size:14px}
th,td{padding:4px 6px}tbody th{min-width:8em}thead th{white-space:normal;min-width:5.5em}td .unit{display:block}
svg text{font-size:16px}svg.map text{font-size:22px}}
";

/// The whole page for `report`; `timing` is this machine's wall time and
/// `roads` the network drawn under the maps, neither written to `report.json`.
pub fn render(report: &Report, timing: &Timing, roads: &Roads) -> String {
    let mut page = String::with_capacity(128 * 1024);
    put!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{} · Wayfare simulation</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(&report.scenario.name)
    );
    header(&mut page, &report.scenario, &report.conclusion);
    table::comparison(&mut page, report, timing);
    facts(&mut page, &report.scenario, report.runs.len());
    plots::waits(&mut page, report);
    plots::over_the_day(&mut page, report);
    map::unmet_demand(&mut page, report, roads);
    put!(
        page,
        "<footer>Drawn by <code>wayfare simulate</code> from the same figures as <code>report.json</code>.</footer>\n\
         </main>\n</body>\n</html>\n"
    );
    page
}

/// The title and, first thing under it, what the runs say.
fn header(page: &mut String, scenario: &ScenarioSummary, conclusion: &Conclusion) {
    put!(
        page,
        "<header>\n<p class=\"kicker\">Wayfare · dispatch simulation</p>\n<h1>{}</h1>\n\
         <div class=\"conclusion\" id=\"conclusion\">\n<p class=\"verdict\"><strong>{}</strong></p>\n",
        escape(&scenario.name),
        with_code(&conclusion.headline)
    );
    if !conclusion.reasons.is_empty() {
        put!(page, "<ul>\n");
        for reason in &conclusion.reasons {
            put!(page, "<li>{}</li>\n", with_code(reason));
        }
        put!(page, "</ul>\n");
    }
    put!(
        page,
        "<p class=\"note\">Computed from the runs below, every figure as the table shows it. Riders served \
         decide first, then the mean wait; a difference counts when it is at least {} % of the larger value and, \
         with several seeds, when the two 95 % intervals do not overlap.</p>\n</div>\n</header>\n",
        number(SMALLEST_DIFFERENCE * 100.0, 0)
    );
}

/// What was simulated: the inputs, the seeds, the clock.
fn facts(page: &mut String, scenario: &ScenarioSummary, runs: usize) {
    put!(page, "<section id=\"scenario\">\n<h2>What was simulated</h2>\n");
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
    if scenario.seeds > 1 {
        put!(
            page,
            "<dt>Seeds</dt><dd>{} to {}: every run repeated {} times</dd>\n",
            scenario.seed,
            scenario.seed.wrapping_add(scenario.seeds - 1),
            scenario.seeds
        );
    } else {
        put!(page, "<dt>Seed</dt><dd>{}</dd>\n", scenario.seed);
    }
    put!(
        page,
        "<dt>Riders give up after</dt><dd>{}</dd>\n",
        with_seconds(minutes_seconds(scenario.cancel_after_s as f64), scenario.cancel_after_s as f64)
    );
    let span = with_seconds(hours_minutes_seconds(scenario.demand_span_s as f64), scenario.demand_span_s as f64);
    if scenario.dated {
        put!(
            page,
            "<dt>Start</dt><dd>{} UTC, requests over {span}</dd>\n",
            escape(&scenario.start.replacen('T', " ", 1))
        );
    } else {
        put!(
            page,
            "<dt>Start</dt><dd>{}, a time of day (the requests carry no date), requests over {span}</dd>\n",
            escape(&scenario.start)
        );
    }
    let currency = &scenario.currency;
    put!(page, "<dt>Currency</dt><dd>{} ({}), the settings'</dd>\n", escape(&currency.code), escape(&currency.symbol));
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
    if scenario.seeds > 1 {
        put!(
            page,
            "<p class=\"note\">Runs with the same seed replay the same requests; only the dispatch policy and the \
             fleet size change between them. The table gives each figure's mean over the seeds; the plots and maps \
             show the first seed's runs.</p>\n</section>\n"
        );
    } else {
        put!(
            page,
            "<p class=\"note\">Every run replays the same requests with the same seed; \
             only the dispatch policy and the fleet size change between runs.</p>\n</section>\n"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::text::{U, breakable};
    use super::*;

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
    fn backticks_become_code_and_the_rest_is_escaped() {
        assert_eq!(with_code("run `--seeds 5` <now>"), "run <code>--seeds 5</code> &lt;now&gt;");
        assert_eq!(with_code("no code"), "no code");
    }
}
