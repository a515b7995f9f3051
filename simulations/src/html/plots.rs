//! The plots: served riders by wait, and four figures over the day.

use super::text::{U, escape, run_colour, swatch};
use crate::format::{count, minutes_seconds, number, percent};
use crate::report::{Report, RunReport, SERIES_BIN_S, SeriesPoint};
use chrono::Timelike;
use std::fmt::Write;

/// The requests made, behind the served and unserved lines.
const REQUESTS_FILL: &str = "#dfe5ec";

/// Plot size in SVG user units; the page scales it to its column.
const PLOT_WIDTH: f64 = 440.0;
const PLOT_HEIGHT: f64 = 260.0;

pub(super) fn waits(page: &mut String, report: &Report) {
    let runs = &report.runs;
    put!(
        page,
        "<section id=\"waits\">\n<h2>How long served riders waited</h2>\n<p class=\"how\"><strong>How to read this.\
         </strong> Served riders counted by their wait, from the request to the driver at the pickup, in one-minute \
         bins: the bin at 3 holds waits from 3:00 to 3:59. The axis ends just past the longest wait; a bin marked \
         ≥ holds every wait that long or longer. Riders who gave up are not here but in \
         <code>cancelledByRider</code>. Hover a bin for the counts.{}</p>\n",
        first_seed_note(report)
    );
    let all_bins = runs.iter().map(|run| run.wait_histogram.len()).max().unwrap_or(0);
    let longest = runs
        .iter()
        .flat_map(|run| run.wait_histogram.iter().enumerate().filter(|(_, riders)| **riders > 0).map(|(bin, _)| bin))
        .max();
    let Some(longest) = longest else {
        put!(page, "<p>No waits to draw.</p>\n</section>\n");
        return;
    };
    // One empty bin past the longest wait shows where the waits end; the
    // histogram's own last bin holds every longer wait and ends it anyway.
    let bins = (longest + 2).min(all_bins);
    let open_ended = bins == all_bins;
    put!(page, "<figure class=\"solo\">\n");
    run_legend(page, runs, &[]);
    let counts = |run: &RunReport, bin: usize| run.wait_histogram.get(bin).copied().unwrap_or(0);
    let highest = runs.iter().flat_map(|run| run.wait_histogram.iter().copied()).max().unwrap_or(0);
    let (y_top, y_ticks) = value_ticks(highest as f64, true);
    let frame = Frame::new(bins as f64, y_top);
    let last = bins - 1;
    let x_ticks = wait_ticks(bins, open_ended);
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
        let range =
            if bin == last && open_ended { format!("{bin}:00 or more") } else { format!("{bin}:00 to {bin}:59") };
        let mut tip = format!("Wait {range}");
        for run in runs {
            let served: u64 = run.wait_histogram.iter().sum();
            let value = counts(run, bin);
            let share = if served > 0 { 100.0 * value as f64 / served as f64 } else { 0.0 };
            put!(tip, "\n{}: {} ({} of served)", run.label(), count(value), percent(share));
        }
        hit_area(page, &frame, bin as f64, bin as f64 + 1.0, &tip);
    }
    put!(page, "</svg>\n</figure>\n</section>\n");
}

/// Minute labels under `bins` one-minute bins: at bin starts, round steps,
/// and either `≥n` on the open-ended last bin or the minute the axis ends at.
fn wait_ticks(bins: usize, open_ended: bool) -> Vec<(f64, String)> {
    let every = match bins {
        0..=12 => 1,
        13..=24 => 2,
        25..=60 => 5,
        _ => 10,
    };
    let last = bins.saturating_sub(1);
    let end = if open_ended { last } else { bins };
    let mut ticks: Vec<(f64, String)> = (0..end)
        .step_by(every)
        .filter(|edge| end - edge >= every.min(3))
        .map(|edge| (edge as f64, edge.to_string()))
        .collect();
    ticks.push((end as f64, if open_ended { format!("≥{last}") } else { end.to_string() }));
    ticks
}

/// Under a plot of the first seed's runs, which seed that is.
pub(super) fn first_seed_note(report: &Report) -> String {
    if report.scenario.seeds > 1 {
        format!(" These are the first seed's runs (seed {}).", report.scenario.seed)
    } else {
        String::new()
    }
}

pub(super) fn over_the_day(page: &mut String, report: &Report) {
    let runs = &report.runs;
    let clock = Clock::new(&report.scenario.start);
    let when = if report.scenario.dated { "clock time (UTC)" } else { "the time of day the requests give" };
    put!(
        page,
        "<section id=\"day\">\n<h2>Over the day</h2>\n<p class=\"how\"><strong>How to read this.</strong> \
         Figures per 15 minutes, at {when}. <em>Served</em>: riders picked up in those 15 minutes; \
         <em>unserved</em>: requests that ended unserved then (gave up, cancelled or never dispatched). The grey \
         steps are the requests made, the same for every run. <em>Idle drivers</em> are on shift and free at the \
         start of the 15 minutes. <em>Mean wait</em> is that of the riders picked up then; a gap means nobody was \
         picked up. Hover the plots for the numbers.{}</p>\n",
        first_seed_note(report)
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
                    put!(tip, "\n{}: {}", run.label(), describe(run, bin));
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
        axes(page, &frame, &clock.ticks(span), &y_ticks, self.y_unit, clock.axis_title());
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
        put!(page, "<li>{}{}</li>", swatch(index), escape(&run.label()));
    }
    for (colour, label) in extra {
        put!(page, "<li><span class=\"swatch\" style=\"background:{colour}\"></span>{}</li>", escape(label));
    }
    put!(page, "</ul>\n");
}

/// A round top for an axis reaching `highest`, with its ticks from 0: about
/// four intervals, whole numbers for counts.
pub(super) fn value_ticks(highest: f64, whole: bool) -> (f64, Vec<(f64, String)>) {
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
/// (in UTC when the start is a date); as +h:mm from the start when the
/// start cannot be read.
pub(super) struct Clock {
    start_of_day_s: Option<u64>,
    dated: bool,
}

impl Clock {
    /// From the report's start: an ISO date and time, or only a time of day.
    pub(super) fn new(start: &str) -> Clock {
        let dated = chrono::NaiveDateTime::parse_from_str(start, "%Y-%m-%dT%H:%M:%S")
            .ok()
            .or_else(|| chrono::DateTime::parse_from_rfc3339(start).ok().map(|time| time.naive_utc()))
            .map(|time| time.time());
        let of_day = chrono::NaiveTime::parse_from_str(start, "%H:%M:%S").ok();
        Clock {
            start_of_day_s: dated.or(of_day).map(|time| u64::from(time.num_seconds_from_midnight())),
            dated: dated.is_some(),
        }
    }

    fn axis_title(&self) -> &'static str {
        match (self.start_of_day_s, self.dated) {
            (Some(_), true) => "clock time, UTC",
            (Some(_), false) => "time of day",
            (None, _) => "time from the first request",
        }
    }

    pub(super) fn label(&self, offset_s: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_wait_axis_ends_where_the_waits_do() {
        let labels = |ticks: Vec<(f64, String)>| ticks.into_iter().map(|(_, label)| label).collect::<Vec<_>>();
        // Waits up to 5 minutes: bins 0 to 6, the axis ending at 7.
        assert_eq!(labels(wait_ticks(7, false)), ["0", "1", "2", "3", "4", "5", "6", "7"]);
        // Every bin drawn, the last open-ended.
        let all = labels(wait_ticks(31, true));
        assert_eq!((all.first().map(String::as_str), all.last().map(String::as_str)), (Some("0"), Some("≥30")));
    }

    #[test]
    fn clock_labels_count_from_the_start_of_the_day() {
        let clock = Clock::new("2026-01-01T06:40:00");
        assert_eq!(clock.label(1_200), "07:00");
        assert_eq!(clock.ticks(4 * 3600).first(), Some(&(1_200.0, "07:00".to_string())));
        assert_eq!(clock.axis_title(), "clock time, UTC");
        assert_eq!(Clock::new("not a time").label(5_400), "+1:30");
    }

    #[test]
    fn a_start_without_a_date_gives_times_of_day() {
        let clock = Clock::new("00:02:00");
        assert_eq!(clock.label(6 * 3600 - 120), "06:00");
        assert_eq!(clock.axis_title(), "time of day");
        assert!(clock.ticks(86_400).iter().all(|(_, label)| !label.contains("1970")));
    }
}
