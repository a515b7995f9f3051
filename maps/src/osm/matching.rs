//! Map matching (Newson & Krumm, 2009): which roads a noisy GPS track was
//! driven on. Each fix has a few candidate road positions; a hidden Markov
//! model scores a candidate by its distance to the fix (Gaussian, σ = 10 m)
//! and a move between candidates by how much the road distance differs from
//! the straight distance between the fixes (exponential, β = 10 m); Viterbi
//! keeps the likeliest sequence, and the routes between its candidates are
//! the matched path. Where no candidate of a fix can be reached from the
//! previous ones (a fix far off every road), the track is matched in pieces
//! joined by straight lines.

use super::network::metres;
use super::router::{Router, Snap};
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

/// The roads a track followed.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedTrack {
    /// The matched line, (lat, lng).
    pub points: Vec<[f64; 2]>,
    pub length_m: f64,
}

struct Layer {
    fix: LatLng,
    snaps: Vec<Snap>,
}

impl Router {
    /// The likeliest roads driven through `track`, or `None` with fewer than
    /// two fixes near a road.
    pub fn match_track(&self, track: &[LatLng]) -> Option<MatchedTrack> {
        let mut layers: Vec<Layer> = Vec::new();
        for (index, fix) in track.iter().enumerate() {
            let is_last = index + 1 == track.len();
            if let Some(previous) = layers.last()
                && !is_last
                && metres([previous.fix.lat, previous.fix.lng], [fix.lat, fix.lng]) < MIN_STEP_M
            {
                continue;
            }
            let snaps = self.candidates(*fix, SEARCH_RADIUS_M, CANDIDATES);
            if !snaps.is_empty() {
                layers.push(Layer { fix: *fix, snaps });
            }
        }
        if layers.len() < 2 {
            return None;
        }
        // Viterbi over the layers, in pieces where the chain breaks.
        let mut chosen: Vec<Option<usize>> = vec![None; layers.len()];
        let mut piece_start = 0;
        let mut scores: Vec<f64> = layers[0].snaps.iter().map(emission).collect();
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); layers.len()];
        for step in 1..=layers.len() {
            let next = if step < layers.len() {
                let (before, here) = (&layers[step - 1], &layers[step]);
                let straight = metres([before.fix.lat, before.fix.lng], [here.fix.lat, here.fix.lng]);
                let origins: Vec<Option<Snap>> = before.snaps.iter().copied().map(Some).collect();
                let destinations: Vec<Option<Snap>> = here.snaps.iter().copied().map(Some).collect();
                let roads = self.matrix_snaps(&origins, &destinations);
                let mut next_scores = vec![f64::NEG_INFINITY; here.snaps.len()];
                let mut next_back = vec![0; here.snaps.len()];
                for (to, snap) in here.snaps.iter().enumerate() {
                    for from in 0..before.snaps.len() {
                        let here_from = &before.snaps[from];
                        // On one road, a fix slightly behind the last is noise
                        // along it, not a loop round the block.
                        let along = (snap.at_m - here_from.at_m).abs();
                        let road = if here_from.segment == snap.segment && along <= JITTER_ALONG_M {
                            along
                        } else {
                            let Some(total) = roads[from][to] else { continue };
                            total.length_dm as f64 / 10.0
                        };
                        let score = scores[from] + emission(snap) - (road - straight).abs() / BETA_M;
                        if score > next_scores[to] {
                            next_scores[to] = score;
                            next_back[to] = from;
                        }
                    }
                }
                next_scores.iter().any(|score| score.is_finite()).then_some((next_scores, next_back))
            } else {
                None
            };
            match next {
                Some((next_scores, next_back)) => {
                    scores = next_scores;
                    back[step] = next_back;
                }
                None => {
                    // The piece ends at step − 1: trace it back.
                    let mut best = argmax(&scores);
                    for layer in (piece_start..step).rev() {
                        chosen[layer] = Some(best);
                        if layer > piece_start {
                            best = back[layer][best];
                        }
                    }
                    piece_start = step;
                    if step < layers.len() {
                        scores = layers[step].snaps.iter().map(emission).collect();
                    }
                }
            }
        }
        // The routes between the choices. Along one road only its first
        // choice counts (and the track's last): the fixes' noise along the
        // road would otherwise add a few metres back and forth at each.
        let mut kept: Vec<Snap> = Vec::new();
        for (step, layer) in layers.iter().enumerate() {
            let snap = layer.snaps[chosen[step]?];
            let last_of_track = step + 1 == layers.len();
            match kept.last() {
                Some(previous) if previous.segment == snap.segment && !last_of_track => {}
                _ => kept.push(snap),
            }
        }
        // A fix near a junction may sit on the cross street: driving a few
        // metres into it and back is noise, not the trip. Drop a choice when
        // going straight from the one before to the one after is shorter.
        let road = |from: &Snap, to: &Snap| self.route_snaps(from, to).map(|path| path.length_m);
        let mut index = 1;
        while index + 1 < kept.len() {
            let (before, here, after) = (kept[index - 1], kept[index], kept[index + 1]);
            let through = road(&before, &here).zip(road(&here, &after)).map(|(a, b)| a + b);
            match (through, road(&before, &after)) {
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
            let (from, to) = (pair[0], pair[1]);
            match self.route_snaps(&from, &to) {
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
}

/// The log-likelihood of a fix given a candidate at this distance.
fn emission(snap: &Snap) -> f64 {
    -0.5 * (snap.distance_m / SIGMA_M).powi(2)
}

fn argmax(scores: &[f64]) -> usize {
    scores.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(index, _)| index)
}
