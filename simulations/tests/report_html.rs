//! `report.html` drawn from a hand-made report of two runs: everything a
//! reader needs is on the page, report text is escaped, nothing is loaded
//! from the network, and the same report gives the same bytes.
//!
//! `REPORT_HTML_SAMPLE=/tmp/report-sample.html cargo test -p
//! wayfare-simulations --test report_html` also keeps a fuller sample (a
//! day of series, a city of cells) to open in a browser.

use std::collections::BTreeMap;
use wayfare_simulations::html::render;
use wayfare_simulations::report::{CellCount, Metrics, Report, RunReport, ScenarioSummary, SeriesPoint, Timing};

fn metrics(rides: u64, wait_average: f64, earnings_mean: f64) -> Metrics {
    let requests = 1_000;
    let rejections = requests - rides;
    Metrics {
        requests,
        rides,
        rejections,
        rejectionRate: rejections as f64 / requests as f64,
        cancelledByRider: rejections - 10,
        cancelledBySystem: 7,
        neverDispatched: 3,
        fulfilment: rides as f64 / requests as f64,
        wait_average,
        wait_median: wait_average * 0.9,
        wait_p95: wait_average * 2.5,
        wait_max: wait_average * 4.0,
        percentage_WT_below_5: 60.0,
        percentage_WT_below_10: 90.0,
        inVehicleTravelTime_mean: 780.0,
        distance_m_mean: 5_400.0,
        directDistance_m_mean: 5_400.0,
        totalDistance: 7_654_321.0,
        totalEmptyDistance: 2_100_000.0,
        emptyRatio: 0.274,
        offers_per_booking: 1.4,
        acceptance_rate: 0.81,
        driver_utilisation: 0.62,
        earnings_mean,
        earnings_p10: earnings_mean * 0.5,
        earnings_median: earnings_mean,
        earnings_p90: earnings_mean * 1.6,
        simulated_s: 63_000,
        events: 48_213,
    }
}

/// A pointy-top hexagon around a grid position, corners as [lat, lng].
fn hexagon(column: i32, row: i32) -> Vec<[f64; 2]> {
    let (lat0, lng0, size) = (39.74_f64, -104.99_f64, 0.004_f64);
    let shrink = lat0.to_radians().cos();
    let x = size * 3f64.sqrt() * (column as f64 + row as f64 / 2.0);
    let y = size * 1.5 * row as f64;
    (0..6)
        .map(|corner| {
            let angle = (30.0 + 60.0 * corner as f64).to_radians();
            [lat0 + y + size * angle.sin(), lng0 + (x + size * angle.cos()) / shrink]
        })
        .collect()
}

/// Cells on a hexagonal patch of `radius` rings (0: one cell), unmet demand
/// piling up to the north-east; `worse` scales it.
fn cells(radius: i32, worse: u64) -> Vec<CellCount> {
    let mut cells = Vec::new();
    for column in -radius..=radius {
        for row in (-radius).max(-column - radius)..=radius.min(-column + radius) {
            let requests = 40 + (column * 7 + row * 3).unsigned_abs() as u64;
            let heat = (column + row + 2 * radius).max(0) as u64;
            let unserved = if (column + row) % 3 == 0 { 0 } else { (heat * worse).min(requests) };
            cells.push(CellCount {
                cell: format!("88{:04x}{:04x}fffff", column + 100, row + 100),
                boundary: hexagon(column, row),
                requests,
                unserved,
            });
        }
    }
    cells.sort_by(|a, b| b.unserved.cmp(&a.unserved).then_with(|| a.cell.cmp(&b.cell)));
    cells
}

fn run(policy: &str, fleet: u64, rides: u64, wait_average: f64, bins: u64, radius: i32) -> RunReport {
    let series = (0..bins)
        .map(|bin| {
            // A morning and an evening peak.
            let demand = 10 + (30.0 * ((bin as f64 / bins as f64) * std::f64::consts::TAU).sin().abs()) as u64;
            let unserved = demand * (1_000 - rides) / 1_000 + bin % 3;
            SeriesPoint {
                start_s: bin * 900,
                demand,
                served: demand.saturating_sub(unserved),
                unserved,
                idle_drivers: fleet.saturating_sub(demand / 3),
                // One bin with nobody picked up leaves a gap in the line.
                mean_wait_s: (bin != 5).then_some(wait_average + 30.0 * (bin % 7) as f64),
            }
        })
        .collect();
    let wait_histogram = (0..31u64).map(|minute| if minute == 30 { 12 } else { 80 * 30 / (minute + 4) }).collect();
    RunReport {
        policy: policy.into(),
        fleet,
        metrics: metrics(rides, wait_average, 142.5 + fleet as f64),
        series,
        wait_histogram,
        cells: cells(radius, if policy == "batch" { 1 } else { 3 }),
    }
}

fn report(name: &str, openstreetmap: bool, bins: u64, radius: i32) -> Report {
    Report {
        scenario: ScenarioSummary {
            name: name.into(),
            network: "osm".into(),
            network_file: Some("denver <downtown>.osm.pbf".into()),
            openstreetmap,
            demand: "denver_demo_requests.csv".into(),
            demand_layout: "hive".into(),
            requests: 1_000,
            skipped: BTreeMap::from([("requests.bad_coordinates".into(), 3), ("vehicles.missing_field".into(), 1)]),
            seed: 42,
            cancel_after_s: 600,
            start: "2026-01-01T06:00:00".into(),
            demand_span_s: bins * 900 - 1,
            bounds: [39.70, -105.03, 39.78, -104.95],
        },
        runs: vec![run("batch", 20, 930, 245.0, bins, radius), run("nearest", 12, 870, 402.0, bins, radius)],
    }
}

fn timing() -> Timing {
    Timing { setup_s: 3.21, runs_s: vec![1.5, 0.75], peak_rss_mb: Some(312.4) }
}

/// Two hours of series and three cells, one of them with every request served.
fn three_cell_report(name: &str, openstreetmap: bool) -> Report {
    let mut report = report(name, openstreetmap, 8, 1);
    for run in &mut report.runs {
        run.cells.sort_by(|a, b| a.cell.cmp(&b.cell));
        run.cells.truncate(3);
        run.cells.sort_by(|a, b| b.unserved.cmp(&a.unserved).then_with(|| a.cell.cmp(&b.cell)));
    }
    report
}

/// The table row with this id, from its start to its end.
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!("<tr id=\"{id}\">")).unwrap_or_else(|| panic!("no row {id}"));
    let end = start + html[start..].find("</tr>").expect("the row ends");
    &html[start..end]
}

fn metric_row<'a>(html: &'a str, name: &str) -> &'a str {
    row(html, &format!("metric-{name}"))
}

/// Which cells of a row are highlighted as best, in run order.
fn best_cells(row: &str) -> Vec<bool> {
    row.split("<td").skip(1).map(|cell| cell.starts_with(" class=\"best\"")).collect()
}

#[test]
fn both_runs_and_every_metric_are_in_the_table() {
    let report = three_cell_report("Denver downtown", true);
    let html = render(&report, &timing());
    assert!(html.contains("batch · 20 vehicles"));
    assert!(html.contains("nearest · 12 vehicles"));
    let fields = serde_json::to_value(&report.runs[0].metrics).unwrap();
    for name in fields.as_object().unwrap().keys() {
        assert_eq!(html.matches(&format!("<tr id=\"metric-{name}\">")).count(), 1, "one row for {name}");
        // Shown as written, though it may wrap between its words.
        let shown = metric_row(&html, name).split("<code>").nth(1).unwrap().split("</code>").next().unwrap();
        assert_eq!(&shown.replace("<wbr>", ""), name);
        assert_eq!(best_cells(metric_row(&html, name)).len(), 2, "a value per run for {name}");
    }
    // Formats a reader can take in at a glance.
    assert!(metric_row(&html, "wait_average").contains("4:05 <span class=\"unit\">(245 s)</span>"));
    assert!(metric_row(&html, "fulfilment").contains("93.0 %"));
    assert!(metric_row(&html, "totalDistance").contains("7,654.3 km"));
    assert!(metric_row(&html, "earnings_mean").contains("162.50"));
    assert!(metric_row(&html, "events").contains("48,213"));
}

#[test]
fn the_best_run_of_each_comparable_row_is_highlighted() {
    let html = render(&three_cell_report("Denver downtown", true), &timing());
    assert_eq!(best_cells(metric_row(&html, "wait_average")), [true, false]);
    assert_eq!(best_cells(metric_row(&html, "fulfilment")), [true, false]);
    assert_eq!(best_cells(metric_row(&html, "rejections")), [true, false]);
    assert_eq!(best_cells(metric_row(&html, "earnings_mean")), [true, false]);
    // Equal in both runs, or neither better nor worse: nothing to highlight.
    assert_eq!(best_cells(metric_row(&html, "percentage_WT_below_5")), [false, false]);
    assert_eq!(best_cells(metric_row(&html, "requests")), [false, false]);
    assert_eq!(best_cells(metric_row(&html, "totalDistance")), [false, false]);
}

#[test]
fn wall_time_setup_and_memory_are_shown_apart_from_the_report() {
    let html = render(&three_cell_report("Denver downtown", true), &timing());
    let wall = row(&html, "wall-time");
    assert!(wall.contains("1.50 s") && wall.contains("0.75 s"));
    assert_eq!(best_cells(wall), [false, true]);
    assert!(html.contains("3.21 s"));
    assert!(html.contains("312 MB"));
    assert!(html.contains("kept out of <code>report.json</code>"));
}

#[test]
fn the_header_says_what_was_simulated() {
    let html = render(&three_cell_report("Denver downtown", true), &timing());
    let header = &html[html.find("<header>").unwrap()..html.find("</header>").unwrap()];
    for fact in [
        "<code>osm</code>",
        "denver &lt;downtown&gt;.osm.pbf",
        "denver_demo_requests.csv",
        "<code>hive</code>",
        "1,000",
        "<dd>42</dd>",
        "10:00",
        "2026-01-01 06:00:00 UTC",
        "<code>requests.bad_coordinates</code>: 3",
        "<code>vehicles.missing_field</code>: 1",
    ] {
        assert!(header.contains(fact), "the header shows {fact}");
    }
}

#[test]
fn plots_and_maps_are_inline_svg() {
    let html = render(&three_cell_report("Denver downtown", true), &timing());
    // Histogram, four plots over the day, the colour scale, the shared cell
    // outlines and a map per run.
    assert!(html.matches("<svg").count() >= 5);
    assert_eq!(html.matches("<svg class=\"plot\"").count(), 5);
    assert_eq!(html.matches("<svg class=\"map\"").count(), 2);
    // The histogram's last bin holds every longer wait.
    assert!(html.contains(">≥30</text>"));
    // Clock time on the day plots, from the scenario's start.
    assert!(html.contains(">06:30</text>"));
    // Three cells, each outlined once and drawn in both maps with its counts.
    assert_eq!(html.matches("<path id=\"cell-").count(), 3);
    assert_eq!(html.matches("<use href=\"#cell-").count(), 6);
    assert!(html.contains("requests, 0 unserved"));
}

#[test]
fn openstreetmap_is_credited_only_for_its_data() {
    let with = render(&three_cell_report("Denver downtown", true), &timing());
    assert_eq!(with.matches("© OpenStreetMap contributors").count(), 2);
    let without = render(&three_cell_report("Denver downtown", false), &timing());
    assert!(!without.contains("OpenStreetMap"));
}

#[test]
fn report_text_is_escaped() {
    let html = render(&three_cell_report("Rush <script>alert(\"hi\")</script> & co", true), &timing());
    assert!(!html.contains("<script"));
    assert!(html.contains("Rush &lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; co"));
}

#[test]
fn the_page_loads_nothing() {
    let html = render(&three_cell_report("Denver downtown", true), &timing());
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(!html.contains("src=") && !html.contains("@import"));
    for reference in html.split("href=\"").skip(1) {
        assert!(reference.starts_with('#'), "only links within the page: {}", &reference[..20]);
    }
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
}

#[test]
fn the_same_report_renders_the_same_bytes() {
    let small = three_cell_report("Denver downtown", true);
    assert_eq!(render(&small, &timing()), render(&small.clone(), &timing()));

    let fuller = report("Denver downtown · batch against nearest", true, 64, 9);
    let html = render(&fuller, &timing());
    assert_eq!(html, render(&fuller, &timing()));
    // 271 cells in two maps stay well under a megabyte.
    assert!(html.len() < 1_000_000, "{} bytes", html.len());
    if let Ok(path) = std::env::var("REPORT_HTML_SAMPLE") {
        std::fs::write(&path, &html).unwrap();
    }
}

#[test]
fn an_empty_report_still_renders() {
    let mut empty = three_cell_report("Nothing yet", false);
    empty.runs.clear();
    let html = render(&empty, &Timing { setup_s: 0.1, runs_s: Vec::new(), peak_rss_mb: None });
    assert!(html.contains("No waits to draw") && html.contains("No cells to draw"));
    assert!(html.contains("not reported by the system"));
    assert!(html.ends_with("</html>\n"));
}

/// The numbers each path command takes, or `None` for a command not drawn here.
fn arguments(command: char) -> Option<usize> {
    match command {
        'M' | 'L' => Some(2),
        'H' | 'V' | 'v' => Some(1),
        'Z' => Some(0),
        _ => None,
    }
}

#[test]
fn every_svg_path_is_well_formed() {
    let html = render(&report("Denver downtown", true, 64, 3), &timing());
    let paths: Vec<&str> = html.split(" d=\"").skip(1).map(|rest| &rest[..rest.find('"').unwrap()]).collect();
    // Grid, axis, histogram bars per run, requests made twice, three cells at
    // least, and a scale bar.
    assert!(paths.len() > 20);
    for path in paths {
        let mut rest = path.trim();
        while !rest.is_empty() {
            let command = rest.chars().next().unwrap();
            let wanted = arguments(command).unwrap_or_else(|| panic!("unknown command {command} in {path}"));
            rest = &rest[1..];
            let end = rest.find(|character: char| character.is_ascii_alphabetic()).unwrap_or(rest.len());
            let numbers: Vec<f64> = rest[..end]
                .split([' ', ','])
                .filter(|number| !number.is_empty())
                .map(|number| number.parse().unwrap_or_else(|_| panic!("{number} in {path}")))
                .collect();
            assert_eq!(numbers.len(), wanted, "{command} in {path}");
            rest = rest[end..].trim_start();
        }
    }
}
