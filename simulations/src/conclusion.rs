//! The report's conclusion (docs/simulations.md "The conclusion"): which
//! policy served most riders, which kept waits lowest and by how much,
//! whether that is more than the spread across seeds, and which policy to
//! use, or why the runs came out alike. A pure function of the report's
//! figures: `report.json` carries it, and the same inputs and seed give the
//! same words.
//!
//! A difference counts when it is at least [`SMALLEST_DIFFERENCE`] of the
//! larger value and, when the runs were repeated with several seeds, the
//! two 95 % intervals (Student's t) do not overlap. Riders served come
//! first: the policy to use serves the most riders, and among those that
//! serve as many, keeps waits lowest.

use crate::figures::{self, MetricRow};
use crate::format;
use crate::format::Currency;
use crate::report::{Conclusion, Figure, Report, RunReport, SERIES_BIN_S};

/// A difference smaller than this share of the larger value is no
/// difference to a reader, whatever the seeds say.
pub const SMALLEST_DIFFERENCE: f64 = 0.01;

/// The conclusion of `report`'s runs.
pub fn conclude(report: &Report) -> Conclusion {
    let mut quoting = Quoting { currency: &report.scenario.currency, figures: Vec::new() };
    let runs: Vec<&RunReport> = report.runs.iter().collect();
    let seeds = report.scenario.seeds.max(1);
    let mut fleets: Vec<u64> = Vec::new();
    for run in &runs {
        if !fleets.contains(&run.fleet) {
            fleets.push(run.fleet);
        }
    }
    let verdict = match fleets.as_slice() {
        [] => Verdict { recommended: None, headline: "Nothing was run.".into(), reasons: Vec::new() },
        [_] => compare_policies(&mut quoting, &runs, seeds),
        _ => compare_fleets(&mut quoting, &runs, &fleets, seeds),
    };
    Conclusion {
        recommended: verdict.recommended.map(|run| run.policy.clone()),
        headline: verdict.headline,
        reasons: verdict.reasons,
        figures: quoting.figures,
    }
}

/// The difference that chose the policy: on which metric, against whom.
#[derive(Clone, Copy)]
struct Deciding<'a> {
    metric: &'static str,
    chosen: &'a RunReport,
    runner_up: &'a RunReport,
}

struct Verdict<'a> {
    recommended: Option<&'a RunReport>,
    headline: String,
    reasons: Vec<String>,
}

/// Writes figures as the table does and keeps a note of each one quoted.
struct Quoting<'a> {
    currency: &'a Currency,
    figures: Vec<Figure>,
}

impl Quoting<'_> {
    fn quote(&mut self, run: &RunReport, metric: &str) -> String {
        let row = metric_row(metric);
        let shown = format::metric(run.value(row), row.unit, self.currency);
        let figure = Figure { run: run.label(), metric: metric.to_string(), shown: shown.clone() };
        if !self.figures.contains(&figure) {
            self.figures.push(figure);
        }
        shown
    }

    /// The 95 % interval of a run's metric over the seeds, as the table writes it.
    fn interval(&self, run: &RunReport, metric: &str) -> Option<String> {
        let row = metric_row(metric);
        let interval = run.over_seeds.as_ref()?.metric(metric)?;
        Some(format::range(interval.low, interval.high, row.unit, self.currency))
    }
}

fn metric_row(name: &str) -> &'static MetricRow {
    figures::row(name).unwrap_or_else(|| panic!("`{name}` is a metric of the table"))
}

const SERVED: &str = "fulfilment";
const WAIT: &str = "wait_average";
const WAIT_P95: &str = "wait_p95";
const OFFERS: &str = "offers_per_booking";

/// Whether `a` and `b` differ on `metric` enough to tell: by at least
/// [`SMALLEST_DIFFERENCE`] of the larger and, with several seeds, with 95 %
/// intervals that do not overlap.
fn differ(a: &RunReport, b: &RunReport, metric: &str) -> bool {
    let row = metric_row(metric);
    let (x, y) = (a.value(row), b.value(row));
    let larger = x.abs().max(y.abs());
    if larger.is_nan() || larger == 0.0 || (x - y).abs() < SMALLEST_DIFFERENCE * larger {
        return false;
    }
    match (interval_of(a, metric), interval_of(b, metric)) {
        (Some(first), Some(second)) => !first.overlaps(second),
        _ => true,
    }
}

fn interval_of<'a>(run: &'a RunReport, metric: &str) -> Option<&'a crate::stats::Interval> {
    run.over_seeds.as_ref()?.metric(metric)
}

/// The run with the best value of `metric` (the first of equals).
fn best<'a>(runs: &[&'a RunReport], metric: &str) -> &'a RunReport {
    let row = metric_row(metric);
    let higher_is_better = row.better == figures::Better::Higher;
    let mut best = runs[0];
    for run in &runs[1..] {
        let (value, leader) = (run.value(row), best.value(row));
        if (higher_is_better && value > leader) || (!higher_is_better && value < leader) {
            best = run;
        }
    }
    best
}

/// The runs that cannot be told from the best on `metric`.
fn leaders<'a>(runs: &[&'a RunReport], metric: &str) -> Vec<&'a RunReport> {
    let leader = best(runs, metric);
    runs.iter().copied().filter(|run| !differ(run, leader, metric)).collect()
}

fn policies(runs: &[&RunReport]) -> String {
    format::and_list(&runs.iter().map(|run| run.policy.clone()).collect::<Vec<_>>())
}

/// Policies compared at one fleet size.
fn compare_policies<'a>(quoting: &mut Quoting<'_>, runs: &[&'a RunReport], seeds: u64) -> Verdict<'a> {
    if let [run] = runs {
        let headline = format!(
            "One run, nothing to compare: {} served {} of {} requests ({}) with a mean wait of {}.",
            run.policy,
            quoting.quote(run, "rides"),
            quoting.quote(run, "requests"),
            quoting.quote(run, SERVED),
            quoting.quote(run, WAIT)
        );
        let reasons = vec![
            "To choose a policy, run several side by side: `--compare broadcast,waves,nearest,batch`.".to_string(),
            seeds_sentence(quoting, runs, None, seeds),
        ];
        return Verdict { recommended: None, headline, reasons };
    }
    let served_leaders = leaders(runs, SERVED);
    let wait_leaders = leaders(&served_leaders, WAIT);
    let recommended = match wait_leaders.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let mut reasons = vec![served_sentence(quoting, runs), wait_sentence(quoting, runs)];
    let (headline, deciding) = match recommended {
        Some(chosen) => {
            let (headline, deciding) = recommend(quoting, runs, &served_leaders, chosen);
            (headline, Some(deciding))
        }
        None => (no_winner(quoting, &wait_leaders), None),
    };
    reasons.push(seeds_sentence(quoting, runs, deciding, seeds));
    for group in alike_groups(runs) {
        reasons.push(explain_alike(&group));
    }
    if recommended.is_none() {
        reasons.push(fewest_offers(quoting, &wait_leaders));
    }
    Verdict { recommended, headline, reasons }
}

/// "Use X: …", and the metric and runner-up that decided it.
fn recommend<'a>(
    quoting: &mut Quoting<'_>,
    runs: &[&'a RunReport],
    served_leaders: &[&'a RunReport],
    chosen: &'a RunReport,
) -> (String, Deciding<'a>) {
    let others: Vec<&RunReport> = runs.iter().copied().filter(|run| !std::ptr::eq(*run, chosen)).collect();
    let wait_row = metric_row(WAIT);
    if served_leaders.len() == 1 {
        // It served clearly more riders than any other policy.
        let runner_up = best(&others, SERVED);
        let mut headline = format!(
            "Use {}: it served the most riders, {} of {} ({}), against {} ({}) under {}",
            chosen.policy,
            quoting.quote(chosen, "rides"),
            quoting.quote(chosen, "requests"),
            quoting.quote(chosen, SERVED),
            quoting.quote(runner_up, "rides"),
            quoting.quote(runner_up, SERVED),
            runner_up.policy
        );
        let fastest = best(runs, WAIT);
        if std::ptr::eq(fastest, chosen) || !differ(fastest, chosen, WAIT) {
            headline.push_str(&format!(", and kept waits lowest, {} on average.", quoting.quote(chosen, WAIT)));
        } else {
            headline.push_str(&format!(
                "; {} kept waits lower ({} against {} on average) but served fewer.",
                fastest.policy,
                quoting.quote(fastest, WAIT),
                quoting.quote(chosen, WAIT)
            ));
        }
        return (headline, Deciding { metric: SERVED, chosen, runner_up });
    }
    // As many riders served as the best: the waits decided.
    let runner_up = best(&others, WAIT);
    let (chosen_wait, runner_up_wait) = (chosen.value(wait_row), runner_up.value(wait_row));
    let shorter = if runner_up_wait > 0.0 { 100.0 * (runner_up_wait - chosen_wait) / runner_up_wait } else { 0.0 };
    let most = best(runs, SERVED);
    let served_row = metric_row(SERVED);
    let served = if chosen.value(served_row) >= most.value(served_row) {
        format!(
            "and it served as many riders as any policy: {} of {} ({})",
            quoting.quote(chosen, "rides"),
            quoting.quote(chosen, "requests"),
            quoting.quote(chosen, SERVED)
        )
    } else {
        format!(
            "and it served practically as many riders as the most: {} against {} under {}",
            quoting.quote(chosen, SERVED),
            quoting.quote(most, SERVED),
            most.policy
        )
    };
    // Every policy that waited as long as the runner-up (to the second) is named.
    let level: Vec<&RunReport> =
        others.iter().copied().filter(|run| (run.value(wait_row) - runner_up_wait).abs() < 0.5).collect();
    let next = if level.len() > 1 {
        format!("{}, the next best,", policies(&level))
    } else {
        format!("{}, the next best,", runner_up.policy)
    };
    let headline = format!(
        "Use {}: its riders waited least, {} on average, {} % less than under {next} at {}; {served}.",
        chosen.policy,
        quoting.quote(chosen, WAIT),
        format::number(shorter, 0),
        quoting.quote(runner_up, WAIT)
    );
    (headline, Deciding { metric: WAIT, chosen, runner_up })
}

fn no_winner(quoting: &mut Quoting<'_>, tied: &[&RunReport]) -> String {
    let shares: Vec<String> = tied.iter().map(|run| quoting.quote(run, SERVED)).collect();
    let waits: Vec<String> = tied.iter().map(|run| quoting.quote(run, WAIT)).collect();
    format!(
        "No policy stands out: {} served practically as many riders ({}) with practically the same mean wait ({}).",
        policies(tied),
        distinct(shares).join(", "),
        distinct(waits).join(", ")
    )
}

fn distinct(mut texts: Vec<String>) -> Vec<String> {
    let mut seen = Vec::new();
    texts.retain(|text| {
        let new = !seen.contains(text);
        if new {
            seen.push(text.clone());
        }
        new
    });
    texts
}

fn served_sentence(quoting: &mut Quoting<'_>, runs: &[&RunReport]) -> String {
    let each: Vec<String> = runs
        .iter()
        .map(|run| format!("{} {} ({})", run.policy, quoting.quote(run, "rides"), quoting.quote(run, SERVED)))
        .collect();
    format!("Riders served of {}: {}.", quoting.quote(runs[0], "requests"), each.join(", "))
}

fn wait_sentence(quoting: &mut Quoting<'_>, runs: &[&RunReport]) -> String {
    let each: Vec<String> = runs.iter().map(|run| format!("{} {}", run.policy, quoting.quote(run, WAIT))).collect();
    let fastest = best(runs, WAIT_P95);
    let slowest = runs.iter().copied().fold(fastest, |slowest, run| {
        if run.value(metric_row(WAIT_P95)) > slowest.value(metric_row(WAIT_P95)) { run } else { slowest }
    });
    let mut sentence = format!("Mean wait: {}.", each.join(", "));
    if differ(fastest, slowest, WAIT_P95) {
        sentence.push_str(&format!(
            " 95 % of riders waited less than {} under {}, {} under {}.",
            quoting.quote(fastest, WAIT_P95),
            fastest.policy,
            quoting.quote(slowest, WAIT_P95),
            slowest.policy
        ));
    }
    sentence
}

/// Whether the deciding difference is larger than the spread across seeds.
fn seeds_sentence(
    quoting: &mut Quoting<'_>,
    runs: &[&RunReport],
    deciding: Option<Deciding<'_>>,
    seeds: u64,
) -> String {
    if seeds <= 1 {
        return "These are one seed's runs, so the spread across seeds is not known: `--seeds 5` repeats every run \
                with five seeds and gives 95 % intervals."
            .to_string();
    }
    let constant = runs.iter().all(|run| {
        run.over_seeds.as_ref().is_some_and(|over| {
            [SERVED, WAIT].iter().all(|metric| over.metric(metric).is_some_and(|interval| interval.is_constant()))
        })
    });
    if constant {
        return format!(
            "Each of the {seeds} seeds gave the same riders served and the same waits: nothing random in this \
             scenario changed who was served or when, so the differences are not noise."
        );
    }
    let Some(Deciding { metric, chosen, runner_up }) = deciding else {
        return format!(
            "Over {seeds} seeds the leaders' 95 % intervals overlap or differ by under {} %: the differences are \
             within the spread across seeds.",
            format::number(SMALLEST_DIFFERENCE * 100.0, 0)
        );
    };
    let what = if metric == SERVED { "served share" } else { "mean wait" };
    match (quoting.interval(chosen, metric), quoting.interval(runner_up, metric)) {
        (Some(first), Some(second)) => format!(
            "Over {seeds} seeds the 95 % intervals of the {what} do not overlap ({} {first}, {} {second}): the \
             difference is larger than the spread across seeds.",
            chosen.policy, runner_up.policy
        ),
        _ => format!("Over {seeds} seeds the difference is larger than the spread across seeds."),
    }
}

/// Runs that cannot be told apart on riders served, mean wait and p95 wait.
fn alike_groups<'a>(runs: &[&'a RunReport]) -> Vec<Vec<&'a RunReport>> {
    let mut groups: Vec<Vec<&RunReport>> = Vec::new();
    for run in runs {
        let alike = |other: &RunReport| [SERVED, WAIT, WAIT_P95].iter().all(|metric| !differ(run, other, metric));
        match groups.iter_mut().find(|group| alike(group[0])) {
            Some(group) => group.push(run),
            None => groups.push(vec![run]),
        }
    }
    groups.retain(|group| group.len() > 1);
    groups
}

/// Why alike runs are alike, from the first one's day: drivers idle and
/// requests per minute at each quarter hour that had requests.
fn explain_alike(group: &[&RunReport]) -> String {
    let identical = group.iter().all(|run| run.metrics == group[0].metrics && run.over_seeds == group[0].over_seeds);
    let verb = if identical { "gave identical figures" } else { "gave practically the same results" };
    let names = policies(group);
    let run = group[0];
    let busy: Vec<_> = run.series.iter().filter(|point| point.demand > 0).collect();
    if busy.is_empty() {
        return format!("{} {verb}.", capitalised(&names));
    }
    let minutes = SERIES_BIN_S as f64 / 60.0;
    let fewest_idle = busy.iter().map(|point| point.idle_drivers).min().unwrap_or(0);
    let mean_idle = busy.iter().map(|point| point.idle_drivers as f64).sum::<f64>() / busy.len() as f64;
    let busiest = busy.iter().map(|point| point.demand).max().unwrap_or(0) as f64 / minutes;
    let per_minute = busy.iter().map(|point| point.demand as f64).sum::<f64>() / busy.len() as f64 / minutes;
    let rate = |value: f64| format::number(value, 1);
    if fewest_idle as f64 > busiest {
        format!(
            "{} {verb} because drivers were idle most of the day: at every quarter hour at least {} of the {} \
             drivers were free ({} on average) while requests came at {} a minute ({} at most), so each request \
             found free drivers nearby and every one of these policies picked the same nearest driver.",
            capitalised(&names),
            format::count(fewest_idle),
            format::count(run.fleet),
            format::number(mean_idle, 0),
            rate(per_minute),
            rate(busiest)
        )
    } else {
        format!(
            "{} {verb}, though drivers were short at times (as few as {} of the {} free at a quarter hour while up \
             to {} requests came a minute): whom these policies offer a booking first did not change who was \
             served or how fast here; more seeds (`--seeds`) may tell them apart.",
            capitalised(&names),
            format::count(fewest_idle),
            format::count(run.fleet),
            rate(busiest)
        )
    }
}

/// Among policies that tie, the one that bothers drivers least.
fn fewest_offers(quoting: &mut Quoting<'_>, tied: &[&RunReport]) -> String {
    let fewest = best(tied, OFFERS);
    let most = tied.iter().copied().fold(fewest, |most, run| {
        if run.value(metric_row(OFFERS)) > most.value(metric_row(OFFERS)) { run } else { most }
    });
    if std::ptr::eq(fewest, most) || !differ(fewest, most, OFFERS) {
        return "They also sent drivers about as many offers per booking: any of them will do.".to_string();
    }
    format!(
        "Of these, {} sent the fewest offers per booking ({} against {} under {}): the one that troubles drivers \
         least.",
        fewest.policy,
        quoting.quote(fewest, OFFERS),
        quoting.quote(most, OFFERS),
        most.policy
    )
}

/// Policies compared at several fleet sizes, or one policy over a sweep.
fn compare_fleets<'a>(quoting: &mut Quoting<'_>, runs: &[&'a RunReport], fleets: &[u64], seeds: u64) -> Verdict<'a> {
    let at = |fleet: u64| runs.iter().copied().filter(|run| run.fleet == fleet).collect::<Vec<_>>();
    let several_policies = fleets.iter().any(|fleet| at(*fleet).len() > 1);
    let mut reasons = Vec::new();
    let mut choices: Vec<Option<&RunReport>> = Vec::new();
    if several_policies {
        for fleet in fleets {
            // Only the headline of each size is kept, so only its figures.
            let mut scratch = Quoting { currency: quoting.currency, figures: Vec::new() };
            let verdict = compare_policies(&mut scratch, &at(*fleet), seeds);
            for figure in scratch.figures {
                if verdict.headline.contains(&figure.shown) && !quoting.figures.contains(&figure) {
                    quoting.figures.push(figure);
                }
            }
            reasons.push(format!("At {} vehicles: {}", format::count(*fleet), verdict.headline));
            choices.push(verdict.recommended);
        }
    }
    let same_everywhere = choices
        .first()
        .copied()
        .flatten()
        .filter(|first| choices.iter().all(|choice| choice.is_some_and(|choice| choice.policy == first.policy)));
    // How each size does under the policy that is chosen, or the only one.
    let policy = same_everywhere.map_or_else(|| runs[0].policy.clone(), |chosen| chosen.policy.clone());
    let trend: Vec<&RunReport> = runs.iter().copied().filter(|run| run.policy == policy).collect();
    let trend_sentence = fleet_trend(quoting, &trend);
    let headline = match (several_policies, same_everywhere) {
        (true, Some(chosen)) => format!(
            "Use {}: it did best at every fleet size compared ({} vehicles).",
            chosen.policy,
            format::and_list(&fleets.iter().map(|fleet| format::count(*fleet)).collect::<Vec<_>>())
        ),
        (true, None) => "The best policy depends on the fleet size; see each size below.".to_string(),
        (false, _) => trend_sentence.clone(),
    };
    if several_policies {
        reasons.push(trend_sentence);
    }
    reasons.push(seeds_sentence(quoting, runs, None, seeds));
    Verdict { recommended: same_everywhere, headline, reasons }
}

/// Riders served and waits from the smallest fleet to the largest under one
/// policy, and the smallest fleet that serves about as many as the largest.
fn fleet_trend(quoting: &mut Quoting<'_>, runs: &[&RunReport]) -> String {
    let mut sorted = runs.to_vec();
    sorted.sort_by_key(|run| run.fleet);
    let (Some(smallest), Some(largest)) = (sorted.first().copied(), sorted.last().copied()) else {
        return String::new();
    };
    let mut sentence = format!(
        "Under {}, from {} to {} vehicles the share of riders served goes from {} to {} and the mean wait from {} \
         to {}.",
        smallest.policy,
        format::count(smallest.fleet),
        format::count(largest.fleet),
        quoting.quote(smallest, SERVED),
        quoting.quote(largest, SERVED),
        quoting.quote(smallest, WAIT),
        quoting.quote(largest, WAIT)
    );
    if let Some(enough) = sorted.iter().find(|run| !differ(run, largest, SERVED))
        && enough.fleet < largest.fleet
    {
        sentence.push_str(&format!(
            " {} vehicles already serve as many riders as {} ({}).",
            format::count(enough.fleet),
            format::count(largest.fleet),
            quoting.quote(enough, SERVED)
        ));
    }
    sentence
}

fn capitalised(text: &str) -> String {
    let mut characters = text.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
