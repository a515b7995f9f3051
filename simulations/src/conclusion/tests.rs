use super::*;
use crate::report::{Metrics, OverSeeds, ScenarioSummary, SeriesPoint};
use crate::stats;
use std::collections::BTreeMap;

fn metrics(requests: u64, rides: u64, wait: f64, offers: f64) -> Metrics {
    Metrics {
        requests,
        rides,
        rejections: requests - rides,
        rejectionRate: (requests - rides) as f64 / requests as f64,
        cancelledByRider: requests - rides,
        cancelledBySystem: 0,
        neverDispatched: 0,
        fulfilment: rides as f64 / requests as f64,
        wait_average: wait,
        wait_median: wait * 0.9,
        wait_p95: wait * 2.5,
        wait_max: wait * 4.0,
        percentage_WT_below_5: 90.0,
        percentage_WT_below_10: 99.0,
        inVehicleTravelTime_mean: 600.0,
        distance_m_mean: 3_000.0,
        directDistance_m_mean: 3_000.0,
        totalDistance: 1e6,
        totalEmptyDistance: 3e5,
        emptyRatio: 0.3,
        offers_per_booking: offers,
        acceptance_rate: 1.0,
        driver_utilisation: 0.4,
        earnings_mean: 800.0,
        earnings_p10: 500.0,
        earnings_median: 800.0,
        earnings_p90: 1_100.0,
        simulated_s: 86_400,
        events: 10_000,
    }
}

/// A day of 8 quarter hours with `demand` requests and `idle` free drivers in each.
fn run(policy: &str, fleet: u64, metrics: Metrics, demand: u64, idle: u64) -> RunReport {
    let series = (0..8)
        .map(|bin| SeriesPoint {
            start_s: bin * 900,
            demand,
            served: demand,
            unserved: 0,
            idle_drivers: idle + bin % 3,
            mean_wait_s: Some(metrics.wait_average),
        })
        .collect();
    RunReport {
        policy: policy.into(),
        fleet,
        metrics,
        over_seeds: None,
        series,
        wait_histogram: vec![0; 31],
        cells: Vec::new(),
    }
}

/// The run repeated: its riders served and mean wait in each seed.
fn over(mut run: RunReport, rides: &[f64], waits: &[f64]) -> RunReport {
    let requests = run.metrics.requests as f64;
    let shares: Vec<f64> = rides.iter().map(|rides| rides / requests).collect();
    let mut intervals = BTreeMap::new();
    intervals.insert("rides".to_string(), stats::interval(rides).unwrap());
    intervals.insert("fulfilment".to_string(), stats::interval(&shares).unwrap());
    intervals.insert("wait_average".to_string(), stats::interval(waits).unwrap());
    let p95: Vec<f64> = waits.iter().map(|wait| wait * 2.5).collect();
    intervals.insert("wait_p95".to_string(), stats::interval(&p95).unwrap());
    let seeds = (1..=rides.len() as u64).collect();
    run.over_seeds = Some(OverSeeds { seeds, metrics: intervals });
    run
}

fn report(runs: Vec<RunReport>, seeds: u64) -> Report {
    Report {
        scenario: ScenarioSummary {
            name: "test".into(),
            network: "straight-line".into(),
            network_file: None,
            openstreetmap: false,
            demand: "generated".into(),
            demand_layout: "generated".into(),
            requests: runs.first().map_or(0, |run| run.metrics.requests),
            skipped: BTreeMap::new(),
            seed: 1,
            seeds,
            cancel_after_s: 600,
            start: "06:00:00".into(),
            dated: false,
            demand_span_s: 7_199,
            bounds: [39.0, -105.0, 39.1, -104.9],
            currency: Currency { code: "USD".into(), symbol: "$".into(), symbol_after: false, decimals: 2 },
        },
        conclusion: Conclusion::default(),
        runs,
    }
}

fn text(conclusion: &Conclusion) -> String {
    format!("{}\n{}", conclusion.headline, conclusion.reasons.join("\n"))
}

#[test]
fn identical_runs_are_said_to_be_identical_and_explained_by_idle_drivers() {
    // 30 requests a quarter hour (2 a minute) and at least 10 of 20 drivers free.
    let same = || metrics(2_500, 2_500, 84.0, 1.0);
    let runs = vec![
        run("broadcast", 20, same(), 30, 10),
        run("waves", 20, same(), 30, 10),
        run("nearest", 20, same(), 30, 10),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended, None);
    assert!(conclusion.headline.starts_with("No policy stands out: broadcast, waves and nearest"), "{conclusion:?}");
    let all = text(&conclusion);
    assert!(all.contains("Broadcast, waves and nearest gave identical figures because drivers were idle"), "{all}");
    assert!(all.contains("at least 10 of the 20 drivers were free (11 on average)"), "{all}");
    assert!(all.contains("requests came at 2.0 a minute (2.0 at most)"), "{all}");
    assert!(all.contains("picked the same nearest driver"), "{all}");
    assert!(all.contains("any of them will do"), "{all}");
}

#[test]
fn alike_runs_with_drivers_short_are_not_put_down_to_idle_drivers() {
    // 60 requests a quarter hour (4 a minute) and as few as 2 drivers free.
    let runs = vec![
        run("waves", 20, metrics(2_500, 2_300, 200.0, 3.0), 60, 2),
        run("nearest", 20, metrics(2_500, 2_301, 200.5, 1.2), 60, 2),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended, None);
    let all = text(&conclusion);
    assert!(all.contains("Waves and nearest gave practically the same results, though drivers were short"), "{all}");
    assert!(!all.contains("idle most of the day"), "{all}");
    // Among equals, the one that bothers drivers least is pointed out.
    assert!(all.contains("nearest sent the fewest offers per booking (1.20 against 3.00 under waves)"), "{all}");
}

#[test]
fn a_policy_with_clearly_shorter_waits_and_as_many_served_is_recommended() {
    let runs = vec![
        run("broadcast", 20, metrics(2_500, 2_499, 83.8, 14.15), 30, 10),
        run("waves", 20, metrics(2_500, 2_500, 83.9, 3.02), 30, 10),
        run("batch", 20, metrics(2_500, 2_500, 72.9, 1.0), 30, 10),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended.as_deref(), Some("batch"));
    assert_eq!(
        conclusion.headline,
        "Use batch: its riders waited least, 1:13 (73 s) on average, 13 % less than under broadcast and waves, \
         the next best, at 1:24 (84 s); and it served as many riders as any policy: 2,500 of 2,500 (100.0 %)."
    );
    let all = text(&conclusion);
    // 2,499 of 2,500 is not rounded up to 100 %.
    assert!(all.contains("broadcast 2,499 (99.96 %)"), "{all}");
    assert!(all.contains("`--seeds 5`"), "{all}");
    assert!(all.contains("Broadcast and waves gave practically the same results"), "{all}");
    let quoted = |run: &str, metric: &str| {
        conclusion.figures.iter().find(|figure| figure.run == run && figure.metric == metric).map(|f| f.shown.clone())
    };
    assert_eq!(quoted("batch · 20 vehicles", "wait_average").as_deref(), Some("1:13 (73 s)"));
    assert_eq!(quoted("broadcast · 20 vehicles", "fulfilment").as_deref(), Some("99.96 %"));
}

#[test]
fn serving_more_riders_beats_shorter_waits() {
    let runs = vec![
        run("waves", 900, metrics(40_000, 32_400, 176.0, 3.9), 30, 10),
        run("batch", 900, metrics(40_000, 36_320, 131.0, 1.3), 30, 10),
        run("broadcast", 900, metrics(40_000, 31_600, 120.0, 28.7), 30, 10),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended.as_deref(), Some("batch"));
    assert!(
        conclusion.headline.starts_with(
            "Use batch: it served the most riders, 36,320 of 40,000 (90.8 %), against 32,400 (81.0 %) under waves"
        ),
        "{}",
        conclusion.headline
    );
    assert!(
        conclusion
            .headline
            .ends_with("broadcast kept waits lower (2:00 (120 s) against 2:11 (131 s) on average) but served fewer."),
        "{}",
        conclusion.headline
    );
}

#[test]
fn with_seeds_a_difference_counts_only_when_the_intervals_do_not_overlap() {
    let apart = vec![
        over(run("waves", 20, metrics(2_500, 2_500, 82.0, 3.0), 30, 10), &[2_500.0; 3], &[80.0, 82.0, 84.0]),
        over(run("batch", 20, metrics(2_500, 2_500, 72.0, 1.0), 30, 10), &[2_500.0; 3], &[70.0, 72.0, 74.0]),
    ];
    let conclusion = conclude(&report(apart, 3));
    assert_eq!(conclusion.recommended.as_deref(), Some("batch"));
    let all = text(&conclusion);
    assert!(all.contains("Over 3 seeds the 95 % intervals of the mean wait do not overlap"), "{all}");
    assert!(all.contains("larger than the spread across seeds"), "{all}");

    let overlapping = vec![
        over(run("waves", 20, metrics(2_500, 2_500, 85.0, 3.0), 30, 10), &[2_500.0; 3], &[75.0, 85.0, 95.0]),
        over(run("batch", 20, metrics(2_500, 2_500, 80.0, 1.0), 30, 10), &[2_500.0; 3], &[70.0, 80.0, 90.0]),
    ];
    let conclusion = conclude(&report(overlapping, 3));
    assert_eq!(conclusion.recommended, None, "{conclusion:?}");
    assert!(text(&conclusion).contains("within the spread across seeds"), "{}", text(&conclusion));
}

#[test]
fn seeds_that_all_give_the_same_figures_say_the_difference_is_not_noise() {
    let runs = vec![
        over(run("waves", 20, metrics(2_500, 2_500, 84.0, 3.0), 30, 10), &[2_500.0; 5], &[84.0; 5]),
        over(run("batch", 20, metrics(2_500, 2_500, 73.0, 1.0), 30, 10), &[2_500.0; 5], &[73.0; 5]),
    ];
    let conclusion = conclude(&report(runs, 5));
    assert_eq!(conclusion.recommended.as_deref(), Some("batch"));
    assert!(text(&conclusion).contains("Each of the 5 seeds gave the same riders served and the same waits"));
}

#[test]
fn a_fleet_sweep_of_one_policy_says_how_many_vehicles_are_enough() {
    let runs = vec![
        run("batch", 600, metrics(40_000, 30_000, 300.0, 1.3), 30, 10),
        run("batch", 900, metrics(40_000, 36_000, 150.0, 1.3), 30, 10),
        run("batch", 1_200, metrics(40_000, 36_200, 120.0, 1.3), 30, 10),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended, None);
    assert_eq!(
        conclusion.headline,
        "Under batch, from 600 to 1,200 vehicles the share of riders served goes from 75.0 % to 90.5 % and the mean \
         wait from 5:00 (300 s) to 2:00 (120 s). 900 vehicles already serve as many riders as 1,200 (90.0 %)."
    );
}

#[test]
fn policies_over_a_sweep_are_chosen_at_each_size() {
    let runs = vec![
        run("waves", 10, metrics(1_000, 700, 300.0, 3.0), 30, 2),
        run("batch", 10, metrics(1_000, 800, 250.0, 1.0), 30, 2),
        run("waves", 20, metrics(1_000, 900, 200.0, 3.0), 30, 2),
        run("batch", 20, metrics(1_000, 950, 150.0, 1.0), 30, 2),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert_eq!(conclusion.recommended.as_deref(), Some("batch"));
    assert_eq!(conclusion.headline, "Use batch: it did best at every fleet size compared (10 and 20 vehicles).");
    assert!(conclusion.reasons[0].starts_with("At 10 vehicles: Use batch: it served the most riders"));
    // Only the figures of the sentences kept are listed.
    for figure in &conclusion.figures {
        assert!(text(&conclusion).contains(&figure.shown), "{figure:?}");
    }
}

#[test]
fn one_run_has_nothing_to_compare() {
    let conclusion = conclude(&report(vec![run("batch", 20, metrics(2_500, 2_499, 72.9, 1.0), 30, 10)], 1));
    assert_eq!(conclusion.recommended, None);
    assert_eq!(
        conclusion.headline,
        "One run, nothing to compare: batch served 2,499 of 2,500 requests (99.96 %) with a mean wait of 1:13 (73 s)."
    );
    assert!(text(&conclusion).contains("`--compare broadcast,waves,nearest,batch`"));
}

#[test]
fn every_figure_quoted_is_in_the_text() {
    let runs = vec![
        run("broadcast", 20, metrics(2_500, 2_499, 83.8, 14.15), 30, 10),
        run("batch", 20, metrics(2_500, 2_500, 72.9, 1.0), 30, 10),
    ];
    let conclusion = conclude(&report(runs, 1));
    assert!(!conclusion.figures.is_empty());
    for figure in &conclusion.figures {
        assert!(text(&conclusion).contains(&figure.shown), "{figure:?}");
    }
}

#[test]
fn no_runs_conclude_nothing() {
    let conclusion = conclude(&report(Vec::new(), 1));
    assert_eq!((conclusion.recommended, conclusion.headline.as_str()), (None, "Nothing was run."));
}
