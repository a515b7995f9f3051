//! Map matching (Newson & Krumm, 2009): which roads a noisy GPS track was
//! driven on. Each fix has a few candidate road positions; a hidden Markov
//! model scores a candidate by its distance to the fix (Gaussian, σ = 10 m)
//! and a move between candidates by how much the road distance differs from
//! the straight distance between the fixes (exponential, β = 10 m); Viterbi
//! keeps the likeliest sequence, and the routes between its candidates are
//! the matched path. Where no candidate of a fix can be reached from the
//! previous ones (a fix far off every road), the track is matched in pieces
//! joined by straight lines.
//!
//! Moves between fixes are short, so they are searched on the road arcs
//! themselves, bounded (as FMM and Barefoot do), rather than by the
//! hierarchy, whose query costs as much for 30 m as for 3 km: one search
//! from each candidate reaches every candidate of the next fix. A move that
//! would need more than [`DETOUR_M`] of road beyond the straight line is
//! left out: it would score e^−20 or less against one that follows it.
//! Where that leaves a fix with no move at all (a gap in the track), the
//! hierarchy times the fix's moves as before.

use super::ch::{Found, NONE, Total};
use super::network::metres;
use super::router::{Ends, Path, Router, Snap};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use wayfare_engine::LatLng;

const SIGMA_M: f64 = 10.0;
const BETA_M: f64 = 10.0;
/// Candidates are looked for this far from a fix, at most this many.
const SEARCH_RADIUS_M: f64 = 60.0;
const CANDIDATES: usize = 10;
/// Fixes closer than this to the last one kept add noise, not information.
const MIN_STEP_M: f64 = 2.0 * SIGMA_M;
/// Along one road, a step back this short is taken as noise.
const JITTER_ALONG_M: f64 = 3.0 * SIGMA_M;
/// How much longer than the straight line a move is searched for: 20 β.
const DETOUR_M: f64 = 20.0 * BETA_M;

/// The roads a track followed.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedTrack {
    /// The matched line, (lat, lng).
    pub points: Vec<[f64; 2]>,
    pub length_m: f64,
}

/// What a local search knows of a directed segment.
#[derive(Debug, Clone, Copy, Default)]
struct Label {
    stamp: u32,
    parent: u32,
    total: Total,
}

/// Dijkstra on the road arcs from one candidate to several, bounded by the
/// length driven; its arrays are stamped per search and kept for the whole
/// track, so a fix allocates nothing.
struct LocalSearch {
    stamp: u32,
    labels: Vec<Label>,
    heap: BinaryHeap<Reverse<(i64, u32)>>,
    /// `marks[node] == target_stamp`: the node ends a way to a target.
    target_stamp: u32,
    marks: Vec<u32>,
    /// (node, target, ending total), sorted by node.
    targets: Vec<(u32, u32, Total)>,
    scratch: Vec<(u32, Total)>,
    /// Per target: the cheapest arrival and the node it came through.
    found: Vec<Option<(Total, u32)>>,
}

impl LocalSearch {
    fn new(nodes: usize) -> Self {
        LocalSearch {
            stamp: 0,
            labels: vec![Label::default(); nodes],
            heap: BinaryHeap::new(),
            target_stamp: 0,
            marks: vec![0; nodes],
            targets: Vec::new(),
            scratch: Vec::new(),
            found: Vec::new(),
        }
    }

    fn set_targets(&mut self, router: &Router, ends: impl Iterator<Item = Ends>) {
        self.target_stamp += 1;
        self.targets.clear();
        let mut count = 0;
        for (index, ends) in ends.enumerate() {
            count = index + 1;
            self.scratch.clear();
            router.targets_into(&ends, &mut self.scratch);
            for &(node, total) in &self.scratch {
                self.marks[node as usize] = self.target_stamp;
                self.targets.push((node, index as u32, total));
            }
        }
        self.targets.sort_unstable_by_key(|target| target.0);
        self.found.clear();
        self.found.resize(count, None);
    }

    fn relax(&mut self, node: u32, total: Total, parent: u32) {
        let label = &mut self.labels[node as usize];
        if label.stamp == self.stamp && label.total.weight <= total.weight {
            return;
        }
        *label = Label { stamp: self.stamp, parent, total };
        self.heap.push(Reverse((total.weight, node)));
    }

    /// The cheapest arrival at each target from `from`, as the hierarchy
    /// would answer it, except that no way longer than `max_length_dm` is
    /// followed. Ends once every target is settled.
    fn search(&mut self, router: &Router, from: &Ends, max_length_dm: i64) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.labels.iter_mut().for_each(|label| label.stamp = 0);
            self.stamp = 1;
        }
        self.heap.clear();
        self.found.iter_mut().for_each(|found| *found = None);
        self.scratch.clear();
        router.sources_into(from, &mut self.scratch);
        for index in 0..self.scratch.len() {
            let (node, total) = self.scratch[index];
            self.relax(node, total, NONE);
        }
        if self.found.is_empty() {
            return;
        }
        // Ending totals are never negative: a target is settled once the
        // key reaches its best arrival. `done_at` is the largest such.
        let mut done_at = i64::MAX;
        let network = router.network();
        while let Some(Reverse((weight, node))) = self.heap.pop() {
            let label = self.labels[node as usize];
            if label.total.weight != weight || label.stamp != self.stamp {
                continue;
            }
            if weight >= done_at {
                break;
            }
            if self.marks[node as usize] == self.target_stamp {
                let first = self.targets.partition_point(|target| target.0 < node);
                for &(_, target, ending) in self.targets[first..].iter().take_while(|target| target.0 == node) {
                    let arrival = label.total.join(ending);
                    let best = &mut self.found[target as usize];
                    if best.is_none_or(|(known, _)| arrival.weight < known.weight) {
                        *best = Some((arrival, node));
                        done_at = self
                            .found
                            .iter()
                            .map(|found| found.map_or(i64::MAX, |(total, _)| total.weight))
                            .max()
                            .unwrap_or(i64::MAX);
                    }
                }
            }
            if label.total.length_dm > max_length_dm {
                continue;
            }
            for &(next, cost) in network.out_arcs(node) {
                self.relax(next, label.total.plus(cost), node);
            }
        }
    }

    /// The way to a target the last search found: its total and nodes.
    fn found(&self, target: usize) -> Option<Found> {
        let (total, mut node) = self.found[target]?;
        let mut nodes = vec![node];
        while self.labels[node as usize].parent != NONE {
            node = self.labels[node as usize].parent;
            nodes.push(node);
        }
        nodes.reverse();
        Some(Found { total, nodes })
    }

    /// [`LocalSearch::route`]'s length, without drawing it.
    fn length(&mut self, router: &Router, from: &Snap, to: &Snap) -> Option<f64> {
        let (from_ends, to_ends) = (router.ends(from), router.ends(to));
        self.set_targets(router, std::iter::once(to_ends));
        self.search(router, &from_ends, bound_dm(metres(from.point, to.point)));
        let total = match (self.found[0], router.direct_totals(&from_ends, &to_ends)) {
            (Some((searched, _)), Some(direct)) if direct.weight <= searched.weight => Some(direct),
            (Some((searched, _)), _) => Some(searched),
            // Not within reach: the hierarchy's, as for a route.
            (None, _) => router.totals_snaps(from, to),
        };
        total.map(|total| total.length_dm as f64 / 10.0)
    }

    /// The fastest route between two snaps no longer than the straight line
    /// plus [`DETOUR_M`] (else the hierarchy's): [`Router::route_snaps`].
    fn route(&mut self, router: &Router, from: &Snap, to: &Snap) -> Option<Path> {
        let (from_ends, to_ends) = (router.ends(from), router.ends(to));
        self.set_targets(router, std::iter::once(to_ends));
        self.search(router, &from_ends, bound_dm(metres(from.point, to.point)));
        let direct = router.direct(&from_ends, &to_ends);
        let Some(found) = self.found(0) else {
            return router.route_snaps(from, to);
        };
        match direct {
            Some((directed, start, end)) => {
                let total = router.direct_totals(&from_ends, &to_ends).expect("a direct piece has totals");
                if total.weight <= found.total.weight {
                    return Some(router.direct_path((directed, total, start, end)));
                }
                Some(router.path(found, &from_ends, &to_ends))
            }
            None => Some(router.path(found, &from_ends, &to_ends)),
        }
    }
}

/// The longest way searched between points this far apart, in decimetres.
fn bound_dm(straight_m: f64) -> i64 {
    ((straight_m + DETOUR_M) * 10.0).ceil() as i64
}

impl Router {
    /// The likeliest roads driven through `track`, or `None` with fewer than
    /// two fixes near a road.
    pub fn match_track(&self, track: &[LatLng]) -> Option<MatchedTrack> {
        // The layers in flat arrays: fix `layer` has the candidates
        // `snaps[first[layer]..first[layer + 1]]`.
        let mut fixes: Vec<LatLng> = Vec::new();
        let mut first: Vec<usize> = vec![0];
        let mut snaps: Vec<Snap> = Vec::new();
        for (index, fix) in track.iter().enumerate() {
            let is_last = index + 1 == track.len();
            if let Some(previous) = fixes.last()
                && !is_last
                && metres([previous.lat, previous.lng], [fix.lat, fix.lng]) < MIN_STEP_M
            {
                continue;
            }
            self.candidates_into(*fix, SEARCH_RADIUS_M, CANDIDATES, &mut snaps);
            if snaps.len() > *first.last().expect("first has a start") {
                fixes.push(*fix);
                first.push(snaps.len());
            }
        }
        if fixes.len() < 2 {
            return None;
        }
        let layer = |index: usize| first[index]..first[index + 1];
        let mut search = LocalSearch::new(self.network().directed_count());
        // Viterbi over the layers, in pieces where the chain breaks: each
        // candidate's best score and the candidate before it on that way.
        let mut scores: Vec<f64> = snaps.iter().map(emission).collect();
        let mut back: Vec<usize> = vec![usize::MAX; snaps.len()];
        let mut chosen: Vec<usize> = vec![usize::MAX; fixes.len()];
        let mut piece_start = 0;
        let mut roads: Vec<Option<f64>> = Vec::new();
        for step in 1..=fixes.len() {
            let linked = step < fixes.len() && {
                let (before, here) = (layer(step - 1), layer(step));
                let (from_fix, to_fix) = (fixes[step - 1], fixes[step]);
                let straight = metres([from_fix.lat, from_fix.lng], [to_fix.lat, to_fix.lng]);
                self.moves(&mut search, &snaps[before.clone()], &snaps[here.clone()], straight, &mut roads);
                let mut any = false;
                for to in here.clone() {
                    let mut best = f64::NEG_INFINITY;
                    for (from_index, from) in before.clone().enumerate() {
                        let Some(road) = roads[from_index * here.len() + (to - here.start)] else { continue };
                        let score = scores[from] + emission(&snaps[to]) - (road - straight).abs() / BETA_M;
                        if score > best {
                            best = score;
                            back[to] = from;
                        }
                    }
                    // A candidate no move reaches keeps −∞; its emission
                    // alone would start a piece, which only a break does.
                    scores[to] = best;
                    any |= best.is_finite();
                }
                any
            };
            if !linked {
                // The piece ends at step − 1: trace it back.
                let mut best = argmax(&scores, layer(step - 1));
                for index in (piece_start..step).rev() {
                    chosen[index] = best;
                    if index > piece_start {
                        best = back[best];
                    }
                }
                piece_start = step;
                if step < fixes.len() {
                    for candidate in layer(step) {
                        scores[candidate] = emission(&snaps[candidate]);
                    }
                }
            }
        }
        // The routes between the choices (as indexes into `snaps`). Along
        // one road only its first choice counts (and the track's last): the
        // fixes' noise along the road would otherwise add a few metres back
        // and forth at each.
        let mut kept: Vec<usize> = Vec::new();
        for (step, &candidate) in chosen.iter().enumerate() {
            let last_of_track = step + 1 == fixes.len();
            match kept.last() {
                Some(&previous) if snaps[previous].segment == snaps[candidate].segment && !last_of_track => {}
                _ => kept.push(candidate),
            }
        }
        // A fix near a junction may sit on the cross street: driving a few
        // metres into it and back is noise, not the trip. Drop a choice when
        // going straight from the one before to the one after is shorter.
        // Each way's length is searched once.
        let mut lengths: HashMap<(usize, usize), Option<f64>> = HashMap::new();
        let mut road = |from: usize, to: usize| {
            *lengths.entry((from, to)).or_insert_with(|| search.length(self, &snaps[from], &snaps[to]))
        };
        let mut index = 1;
        while index + 1 < kept.len() {
            let (before, here, after) = (kept[index - 1], kept[index], kept[index + 1]);
            let through = road(before, here).zip(road(here, after)).map(|(a, b)| a + b);
            match (through, road(before, after)) {
                (Some(through), Some(straight_on)) if straight_on + 1.0 < through => {
                    kept.remove(index);
                    index = index.saturating_sub(1).max(1);
                }
                _ => index += 1,
            }
        }
        let mut points: Vec<[f64; 2]> = Vec::new();
        let mut length_m = 0.0;
        for pair in kept.windows(2) {
            let (from, to) = (&snaps[pair[0]], &snaps[pair[1]]);
            match search.route(self, from, to) {
                Some(path) => {
                    length_m += path.length_m.max(0.0);
                    for point in path.points {
                        if points.last() != Some(&point) {
                            points.push(point);
                        }
                    }
                }
                None => {
                    length_m += metres(from.point, to.point);
                    points.push(from.point);
                    points.push(to.point);
                }
            }
        }
        Some(MatchedTrack { points, length_m })
    }

    /// The road length of every move from a candidate in `before` to one in
    /// `here`, row by row into `roads` (`None`: no way, or too long a one).
    fn moves(
        &self,
        search: &mut LocalSearch,
        before: &[Snap],
        here: &[Snap],
        straight: f64,
        roads: &mut Vec<Option<f64>>,
    ) {
        roads.clear();
        search.set_targets(self, here.iter().map(|snap| self.ends(snap)));
        for from in before {
            let from_ends = self.ends(from);
            search.search(self, &from_ends, bound_dm(straight));
            for (to_index, to) in here.iter().enumerate() {
                // On one road, a fix slightly behind the last is noise
                // along it, not a loop round the block.
                let along = (to.at_m - from.at_m).abs();
                if from.segment == to.segment && along <= JITTER_ALONG_M {
                    roads.push(Some(along));
                    continue;
                }
                let to_ends = self.ends(to);
                let searched = search.found[to_index].map(|(total, _)| total);
                let direct = self.direct_totals(&from_ends, &to_ends);
                let nearer = match (searched, direct) {
                    (Some(searched), Some(direct)) if direct.weight <= searched.weight => Some(direct),
                    (None, Some(direct)) => Some(direct),
                    (searched, _) => searched,
                };
                roads.push(nearer.map(|total| total.length_dm as f64 / 10.0));
            }
        }
        if roads.iter().all(Option::is_none) {
            // No move within reach (a gap in the track): the hierarchy's.
            let origins: Vec<Option<Snap>> = before.iter().copied().map(Some).collect();
            let destinations: Vec<Option<Snap>> = here.iter().copied().map(Some).collect();
            let matrix = self.matrix_snaps(&origins, &destinations);
            roads.clear();
            for (row, from) in before.iter().enumerate() {
                for (column, to) in here.iter().enumerate() {
                    let along = (to.at_m - from.at_m).abs();
                    if from.segment == to.segment && along <= JITTER_ALONG_M {
                        roads.push(Some(along));
                    } else {
                        roads.push(matrix[row][column].map(|total| total.length_dm as f64 / 10.0));
                    }
                }
            }
        }
    }
}

/// The log-likelihood of a fix given a candidate at this distance.
fn emission(snap: &Snap) -> f64 {
    -0.5 * (snap.distance_m / SIGMA_M).powi(2)
}

fn argmax(scores: &[f64], range: std::ops::Range<usize>) -> usize {
    let start = range.start;
    scores[range].iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(start, |(index, _)| start + index)
}
