//! `report.html` drawn from a hand-made report of two runs: everything a
//! reader needs is on the page, report text is escaped, nothing is loaded
//! from the network, and the same report gives the same bytes.
//!
//! `REPORT_HTML_SAMPLE=/tmp/report-sample.html cargo test -p
//! wayfare-simulations --test report_html` also keeps a fuller sample (a
//! day of series, a city of cells) to open in a browser.

use std::collections::BTreeMap;
use wayfare_engine::LatLng;
use wayfare_simulations::basemap::{RoadClass, RoadLine, Roads};
use wayfare_simulations::conclusion::conclude;
use wayfare_simulations::format::Currency;
use wayfare_simulations::html::render;
use wayfare_simulations::report::{
    CellCount, Conclusion, Metrics, OverSeeds, Report, RunReport, ScenarioSummary, SeriesPoint, Timing,
};
use wayfare_simulations::stats;

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
        metrics: metrics(rides, wait_average, if policy == "batch" { 162.5 } else { 150.0 }),
        over_seeds: None,
        series,
        wait_histogram,
        cells: cells(radius, if policy == "batch" { 1 } else { 3 }),
    }
}

fn dollars() -> Currency {
    Currency { code: "USD".into(), symbol: "$".into(), symbol_after: false, decimals: 2 }
}

fn report(name: &str, openstreetmap: bool, bins: u64, radius: i32) -> Report {
    let mut report = Report {
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
            seeds: 1,
            cancel_after_s: 600,
            start: "2026-01-01T06:00:00".into(),
            dated: true,
            demand_span_s: bins * 900 - 1,
            bounds: [39.70, -105.03, 39.78, -104.95],
            currency: dollars(),
        },
        conclusion: Conclusion::default(),
        runs: vec![run("batch", 20, 930, 245.0, bins, radius), run("nearest", 20, 870, 402.0, bins, radius)],
    };
    report.conclusion = conclude(&report);
    report
}

/// The page of `report` with no roads under its maps.
fn page(report: &Report) -> String {
    render(report, &timing(), &Roads::none())
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

/// Text of an HTML fragment without its tags.
fn plain(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for character in html.chars() {
        match character {
            '<' => in_tag = true,
            '>' => in_tag = false,
            other if !in_tag => text.push(other),
            _ => {}
        }
    }
    text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
}

/// The cells of a table row, as text, in run order.
fn texts(row: &str) -> Vec<String> {
    row.split("<td").skip(1).map(|cell| plain(&format!("<td{}", &cell[..cell.find("</td>").unwrap()]))).collect()
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
    let html = page(&report);
    assert!(html.contains("batch · 20 vehicles"));
    assert!(html.contains("nearest · 20 vehicles"));
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
    assert!(metric_row(&html, "earnings_mean").contains("$162.50"));
    assert!(metric_row(&html, "events").contains("48,213"));
}

#[test]
fn the_best_run_of_each_comparable_row_is_highlighted() {
    let html = page(&three_cell_report("Denver downtown", true));
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
    let html = page(&three_cell_report("Denver downtown", true));
    let wall = row(&html, "wall-time");
    assert!(wall.contains("1.50 s") && wall.contains("0.75 s"));
    assert_eq!(best_cells(wall), [false, true]);
    assert!(html.contains("3.21 s"));
    assert!(html.contains("312 MB"));
    assert!(html.contains("kept out of <code>report.json</code>"));
}

#[test]
fn the_page_says_what_was_simulated() {
    let html = page(&three_cell_report("Denver downtown", true));
    let start = html.find("<section id=\"scenario\">").unwrap();
    let header = &html[start..start + html[start..].find("</section>").unwrap()];
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
        "USD ($)",
    ] {
        assert!(header.contains(fact), "the page shows {fact}");
    }
}

#[test]
fn plots_and_maps_are_inline_svg() {
    let html = page(&three_cell_report("Denver downtown", true));
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
    let with = page(&three_cell_report("Denver downtown", true));
    assert_eq!(with.matches("© OpenStreetMap contributors").count(), 2);
    let without = page(&three_cell_report("Denver downtown", false));
    assert!(!without.contains("OpenStreetMap"));
}

#[test]
fn report_text_is_escaped() {
    let html = page(&three_cell_report("Rush <script>alert(\"hi\")</script> & co", true));
    assert!(!html.contains("<script"));
    assert!(html.contains("Rush &lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; co"));
}

#[test]
fn the_page_loads_nothing() {
    let html = page(&three_cell_report("Denver downtown", true));
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
    assert_eq!(page(&small), page(&small.clone()));

    let fuller = report("Denver downtown · batch against nearest", true, 64, 9);
    let html = render(&fuller, &timing(), &street_grid());
    assert_eq!(html, render(&fuller, &timing(), &street_grid()));
    // 271 cells and a grid of streets in two maps stay well under a megabyte.
    assert!(html.len() < 1_000_000, "{} bytes", html.len());
    if let Ok(path) = std::env::var("REPORT_HTML_SAMPLE") {
        std::fs::write(&path, &html).unwrap();
    }
}

#[test]
fn an_empty_report_still_renders() {
    let mut empty = three_cell_report("Nothing yet", false);
    empty.runs.clear();
    let html = render(&empty, &Timing { setup_s: 0.1, runs_s: Vec::new(), peak_rss_mb: None }, &street_grid());
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
    let html = render(&report("Denver downtown", true, 64, 3), &timing(), &street_grid());
    assert!(html.contains("<path id=\"road-primary\""));
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

/// Streets every 200 m over the test cells: primaries north–south, minor
/// streets east–west with a kink every 20 m (so they keep their points when
/// simplified), and one road far away that no map shows.
fn street_grid() -> Roads {
    let mut lines = Vec::new();
    for step in -20..=20 {
        let lng = -104.99 + step as f64 * 0.0023;
        lines.push(RoadLine {
            class: RoadClass::Primary,
            points: vec![LatLng::new(39.70, lng), LatLng::new(39.78, lng)],
        });
        let lat = 39.74 + step as f64 * 0.0018;
        let points = (0..400)
            .map(|index| LatLng::new(lat + (index % 2) as f64 * 0.00005, -105.03 + index as f64 * 0.0002))
            .collect();
        lines.push(RoadLine { class: RoadClass::Minor, points });
    }
    lines.push(RoadLine {
        class: RoadClass::Motorway,
        points: vec![LatLng::new(40.5, -104.0), LatLng::new(40.6, -104.1)],
    });
    Roads { lines }
}

#[test]
fn the_page_opens_with_a_conclusion_whose_figures_are_the_tables() {
    let report = three_cell_report("Denver downtown", true);
    let html = page(&report);
    let conclusion = html.find("<div class=\"conclusion\"").expect("a conclusion");
    assert!(conclusion < html.find("<section id=\"comparison\">").unwrap(), "the conclusion comes first");
    // Batch served 93.0 % against 87.0 %: the one to use.
    assert_eq!(report.conclusion.recommended.as_deref(), Some("batch"));
    assert!(html.contains("<strong>Use batch: it served the most riders, 930 of 1,000 (93.0 %)"));
    assert!(!report.conclusion.figures.is_empty());
    let columns: Vec<String> = report.runs.iter().map(|run| run.label()).collect();
    for figure in &report.conclusion.figures {
        let column = columns.iter().position(|label| *label == figure.run).expect("a run of the table");
        let shown = &texts(metric_row(&html, &figure.metric))[column];
        assert_eq!(shown, &figure.shown, "{figure:?}");
    }
}

#[test]
fn a_share_short_of_all_never_reads_100_percent() {
    let mut report = three_cell_report("Denver downtown", true);
    let metrics = &mut report.runs[0].metrics;
    (metrics.requests, metrics.rides, metrics.fulfilment, metrics.rejectionRate) = (2_500, 2_499, 0.9996, 0.0004);
    let html = page(&report);
    assert_eq!(texts(metric_row(&html, "fulfilment"))[0], "99.96 %");
    assert_eq!(texts(metric_row(&html, "rejectionRate"))[0], "0.04 %");
}

#[test]
fn money_carries_the_currency_of_the_settings() {
    let mut report = three_cell_report("Lyon", true);
    report.scenario.currency = Currency { code: "EUR".into(), symbol: "€".into(), symbol_after: true, decimals: 2 };
    let html = page(&report);
    assert_eq!(texts(metric_row(&html, "earnings_mean"))[0], "162.50 €");
    assert!(html.contains("Drivers' earnings per driver on shift, EUR"));
    assert!(html.contains("Money is in EUR (€)"));
}

#[test]
fn the_wait_histogram_ends_just_past_the_longest_wait() {
    let mut report = three_cell_report("Denver downtown", true);
    for run in &mut report.runs {
        run.wait_histogram = (0..31u64).map(|minute| if minute <= 5 { 100 - 15 * minute } else { 0 }).collect();
    }
    let html = page(&report);
    let waits = &html[html.find("<section id=\"waits\">").unwrap()..html.find("<section id=\"day\">").unwrap()];
    // Bins 0 to 6 drawn, the axis ending at 7 minutes; no bar room for minutes 7 to 30.
    assert_eq!(waits.matches("<title>Wait ").count(), 7);
    assert!(waits.contains(">7</text>") && !waits.contains(">≥30</text>") && !waits.contains(">8</text>"));
}

#[test]
fn a_day_without_a_date_shows_times_of_day() {
    let mut report = report("HIVE Denver demo", true, 64, 1);
    report.scenario.start = "00:02:00".into();
    report.scenario.dated = false;
    let html = page(&report);
    assert!(!html.contains("1970") && !html.contains("UTC"));
    assert!(html.contains("<dd>00:02:00, a time of day (the requests carry no date)"));
    assert!(html.contains(">06:00</text>") && html.contains("time of day</text>"));
}

#[test]
fn seeds_put_each_figures_interval_under_it() {
    let mut report = three_cell_report("Denver downtown", true);
    report.scenario.seeds = 3;
    for (run, waits) in report.runs.iter_mut().zip([[240.0, 245.0, 250.0], [400.0, 402.0, 404.0]]) {
        let mut metrics = BTreeMap::new();
        metrics.insert("wait_average".to_string(), stats::interval(&waits).unwrap());
        metrics.insert("rides".to_string(), stats::interval(&[930.0; 3]).unwrap());
        run.over_seeds = Some(OverSeeds { seeds: vec![42, 43, 44], metrics });
    }
    let html = page(&report);
    let waits = texts(metric_row(&html, "wait_average"));
    // The mean, then its interval: 245 ± 4.303 × 5 / √3.
    assert!(waits[0].starts_with("4:05 (245 s)95 % CI 3:53–4:17 (233–257 s)"), "{}", waits[0]);
    assert!(texts(metric_row(&html, "rides"))[0].ends_with("the same in all 3 seeds"));
    assert!(html.contains("Each run was repeated with 3 seeds (42 to 44)") && html.contains("Student's t"));
    assert!(html.contains("<dt>Seeds</dt><dd>42 to 44: every run repeated 3 times</dd>"));
}

#[test]
fn the_maps_are_drawn_over_the_roads_in_the_apps_colours() {
    let report = three_cell_report("Denver downtown", true);
    let html = render(&report, &timing(), &street_grid());
    // Each class once, drawn by reference under the cells of every map.
    assert_eq!(html.matches("<path id=\"road-primary\"").count(), 1);
    assert_eq!(html.matches("<use href=\"#roads\" clip-path=\"url(#map-frame)\"/>").count(), 2);
    assert!(html.contains("stroke=\"#fde2a6\"") && html.contains("stroke=\"#d7b574\""));
    for map in html.split("<svg class=\"map\"").skip(1) {
        let map = &map[..map.find("</svg>").unwrap()];
        assert!(map.find("#roads").unwrap() < map.find("<g class=\"cells\"").unwrap());
        assert!(map.contains(">© OpenStreetMap contributors</text>"));
    }
    // The road far from every cell is left out.
    assert!(!html.contains("road-motorway"));
    // Without roads (straight lines), the maps are the cells alone.
    assert!(!page(&report).contains("#roads"));
}

#[test]
fn a_dense_network_is_thinned_to_what_keeps_the_page_small() {
    let report = three_cell_report("Denver downtown", true);
    let mut roads = street_grid();
    // 200 minor streets of 2,000 kinked points each across the cells:
    // 400,000 points in the map's frame.
    for step in 0..200 {
        let lat = 39.735 + step as f64 * 0.00006;
        let points = (0..2_000)
            .map(|index| LatLng::new(lat + (index % 2) as f64 * 0.00003, -105.0 + index as f64 * 0.00001))
            .collect();
        roads.lines.push(RoadLine { class: RoadClass::Minor, points });
    }
    let html = render(&report, &timing(), &roads);
    // The primaries stay; the minor streets that would not fit are dropped.
    assert!(html.contains("road-primary") && !html.contains("road-minor"));
    assert!(html.len() < 3_000_000, "{} bytes", html.len());
}
