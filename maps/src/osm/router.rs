//! Routing on the road network: a point is snapped to the nearest road a car
//! may use, the trip starts or ends part-way along it, and the hierarchy
//! answers routes and matrices between such points.

use super::ch::{self, Found, Hierarchy, SourceSpace, TargetSpace, Total, Workspace};
use super::network::{Network, is_backward, segment_of};
use rstar::RTree;
use rstar::primitives::{GeomWithData, Line};
use std::sync::Mutex;
use wayfare_engine::LatLng;

/// Metres per degree of latitude, and of longitude at the equator.
const METRES_PER_DEGREE: f64 = 111_320.0;
/// A point on a small island of road (a parking aisle cut off by the
/// extract's edge) is moved to the main network when it is this close.
const MAIN_NETWORK_REACH_M: f64 = 250.0;
/// How much further a stopping place may be than a motorway or tunnel.
const STOPPING_DETOUR_M: f64 = 100.0;

/// A straight piece of a segment: (segment, index of its first point).
type Piece = GeomWithData<Line<[f64; 2]>, (u32, u32)>;

/// Where a point meets the road network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snap {
    pub segment: usize,
    /// Metres along the segment, in the way's order.
    pub at_m: f64,
    /// The point on the road, (lat, lng).
    pub point: [f64; 2],
    pub distance_m: f64,
}

/// A route's totals and its line from snapped start to snapped end.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub time_ms: i64,
    pub length_m: f64,
    pub points: Vec<[f64; 2]>,
}

pub struct Router {
    network: Network,
    hierarchy: Hierarchy,
    tree: RTree<Piece>,
    /// The projection's origin latitude cosine: x = lng·cos, y = lat.
    cos_lat: f64,
    workspaces: Mutex<Vec<Workspace>>,
}

/// A place many trips go to (a pickup the simulator's batch windows time
/// drivers to, window after window): its search from the target side done
/// once, so each trip costs one forward search ([`Router::totals_to`]).
pub struct Destination {
    ends: Ends,
    space: Option<TargetSpace>,
}

/// A place many trips start from (a driver the batch windows weigh, window
/// after window, while it stays put): its upward search done once, so each
/// trip to a [`Destination`] is a walk along two kept lists
/// ([`Router::totals_between`]).
pub struct Origin {
    ends: Ends,
    space: Option<SourceSpace>,
}

impl Origin {
    /// Nodes kept: the memory it holds is about 32 bytes each.
    pub fn len(&self) -> usize {
        self.space.as_ref().map_or(0, SourceSpace::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The directed segments a trip may start on from a snap, each with how
/// far along it the trip starts (as a negative total: the part not driven).
/// At most two: kept inline, as a route makes two and a matched track two
/// per fix.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ends {
    /// (directed segment, fraction of it already behind the point)
    sides: [(u32, f64); 2],
    count: u8,
}

impl Ends {
    pub(super) fn sides(&self) -> &[(u32, f64)] {
        &self.sides[..self.count as usize]
    }
}

fn scaled(total: Total, fraction: f64) -> Total {
    Total {
        weight: (total.weight as f64 * fraction).round() as i64,
        time_ms: (total.time_ms as f64 * fraction).round() as i64,
        length_dm: (total.length_dm as f64 * fraction).round() as i64,
    }
}

fn negated(total: Total) -> Total {
    Total { weight: -total.weight, time_ms: -total.time_ms, length_dm: -total.length_dm }
}

impl Router {
    pub fn new(network: Network, hierarchy: Hierarchy) -> Router {
        let mid_lat = if network.points.is_empty() {
            0.0
        } else {
            network.points.iter().map(|point| point[0]).sum::<f64>() / network.points.len() as f64
        };
        let cos_lat = mid_lat.to_radians().cos().max(0.01);
        let project = |point: [f64; 2]| [point[1] * cos_lat * METRES_PER_DEGREE, point[0] * METRES_PER_DEGREE];
        let mut pieces = Vec::with_capacity(network.points.len());
        for (index, segment) in network.segments.iter().enumerate() {
            for point in segment.first..segment.last {
                let line =
                    Line::new(project(network.points[point as usize]), project(network.points[point as usize + 1]));
                pieces.push(Piece::new(line, (index as u32, point)));
            }
        }
        Router { network, hierarchy, tree: RTree::bulk_load(pieces), cos_lat, workspaces: Mutex::new(Vec::new()) }
    }

    /// Builds the hierarchy for a network; `progress` hears (done, of).
    pub fn prepare(network: Network, progress: impl FnMut(usize, usize)) -> Router {
        let hierarchy = ch::prepare(network.directed_count(), &network.arcs(), progress);
        Router::new(network, hierarchy)
    }

    pub fn network(&self) -> &Network {
        &self.network
    }

    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    pub fn into_parts(self) -> (Network, Hierarchy) {
        (self.network, self.hierarchy)
    }

    fn project(&self, point: [f64; 2]) -> [f64; 2] {
        [point[1] * self.cos_lat * METRES_PER_DEGREE, point[0] * METRES_PER_DEGREE]
    }

    fn unproject(&self, xy: [f64; 2]) -> [f64; 2] {
        [xy[1] / METRES_PER_DEGREE, xy[0] / (self.cos_lat * METRES_PER_DEGREE)]
    }

    /// Where a trip starting or ending at a point meets the roads: the
    /// nearest road of the main network a car may stop on. A motorway or a
    /// tunnel is taken only when no other road is within
    /// [`STOPPING_DETOUR_M`] more; a small island of road (a parking aisle cut
    /// off by the extract's edge) only when the main network is further than
    /// [`MAIN_NETWORK_REACH_M`].
    pub fn snap(&self, point: LatLng) -> Option<Snap> {
        let query = self.project([point.lat, point.lng]);
        let mut nearest_any: Option<Snap> = None;
        let mut nearest_main: Option<Snap> = None;
        for piece in self.tree.nearest_neighbor_iter(query) {
            let snap = self.snap_to(piece, query);
            let nearest = *nearest_any.get_or_insert(snap);
            if snap.distance_m > nearest.distance_m + MAIN_NETWORK_REACH_M.max(STOPPING_DETOUR_M) {
                break;
            }
            if !self.network.on_main_network(snap.segment) {
                continue;
            }
            if !self.network.segments[snap.segment].no_stopping {
                let best_main = nearest_main.filter(|main| main.distance_m + STOPPING_DETOUR_M < snap.distance_m);
                return Some(best_main.unwrap_or(snap));
            }
            nearest_main.get_or_insert(snap);
        }
        nearest_main
            .filter(|main| main.distance_m <= nearest_any.map_or(0.0, |any| any.distance_m) + MAIN_NETWORK_REACH_M)
            .or(nearest_any)
    }

    /// The roads within `radius_m` of a point, nearest first, one snap per
    /// segment, at most `limit`: a GPS fix's candidates for map matching.
    pub fn candidates(&self, point: LatLng, radius_m: f64, limit: usize) -> Vec<Snap> {
        let mut found: Vec<Snap> = Vec::with_capacity(limit);
        self.candidates_into(point, radius_m, limit, &mut found);
        found
    }

    /// [`Router::candidates`] appended to `into` (which may hold others').
    pub fn candidates_into(&self, point: LatLng, radius_m: f64, limit: usize, into: &mut Vec<Snap>) {
        let query = self.project([point.lat, point.lng]);
        let start = into.len();
        for piece in self.tree.nearest_neighbor_iter(query) {
            let snap = self.snap_to(piece, query);
            if snap.distance_m > radius_m || into.len() - start >= limit {
                break;
            }
            if !into[start..].iter().any(|known| known.segment == snap.segment) {
                into.push(snap);
            }
        }
    }

    /// Metres from a point to the nearest road of any part of the network.
    pub fn distance_to_road(&self, point: LatLng) -> Option<f64> {
        let query = self.project([point.lat, point.lng]);
        self.tree.nearest_neighbor(query).map(|piece| self.snap_to(piece, query).distance_m)
    }

    fn snap_to(&self, piece: &Piece, query: [f64; 2]) -> Snap {
        let line = piece.geom();
        let on = line.nearest_point(&query);
        let (segment, first_point) = (piece.data.0 as usize, piece.data.1 as usize);
        let seg = &self.network.segments[segment];
        let offset = ((on[0] - line.from[0]).powi(2) + (on[1] - line.from[1]).powi(2)).sqrt();
        let drawn = ((line.to[0] - line.from[0]).powi(2) + (line.to[1] - line.from[1]).powi(2)).sqrt();
        // A point's share of the drawn line is its share of the road: a
        // graph link draws a bent road straight, and the projection is not
        // quite the haversine the lengths were measured with.
        let (start, end) = (f64::from(self.network.along[first_point]), f64::from(self.network.along[first_point + 1]));
        let at_m = if drawn > 0.0 { start + (end - start) * (offset / drawn) } else { start };
        let at_m = at_m.min(seg.length_m);
        let distance_m = ((on[0] - query[0]).powi(2) + (on[1] - query[1]).powi(2)).sqrt();
        Snap { segment, at_m, point: self.unproject(on), distance_m }
    }

    pub(super) fn ends(&self, snap: &Snap) -> Ends {
        let segment = &self.network.segments[snap.segment];
        let fraction = (snap.at_m / segment.length_m).clamp(0.0, 1.0);
        let forward = 2 * snap.segment as u32;
        let mut ends = Ends { sides: [(0, 0.0); 2], count: 0 };
        let mut add = |side: (u32, f64)| {
            ends.sides[ends.count as usize] = side;
            ends.count += 1;
        };
        if segment.forward {
            add((forward, fraction));
        }
        if segment.backward {
            add((forward + 1, 1.0 - fraction));
        }
        ends
    }

    /// Starting totals: the part of each side already behind the point.
    pub(super) fn sources(&self, ends: &Ends) -> Vec<(u32, Total)> {
        let mut sources = Vec::with_capacity(2);
        self.sources_into(ends, &mut sources);
        sources
    }

    /// [`Router::sources`] appended to `into`.
    pub(super) fn sources_into(&self, ends: &Ends, into: &mut Vec<(u32, Total)>) {
        into.extend(
            ends.sides()
                .iter()
                .map(|&(directed, behind)| (directed, negated(scaled(self.network.cost(directed), behind)))),
        );
    }

    /// Ending totals, started one arc early (on each side's predecessors) so
    /// a trip that must leave its road and come back is not taken as none.
    pub(super) fn targets(&self, ends: &Ends) -> Vec<(u32, Total)> {
        let mut targets = Vec::new();
        self.targets_into(ends, &mut targets);
        targets
    }

    /// [`Router::targets`] appended to `into`.
    pub(super) fn targets_into(&self, ends: &Ends, into: &mut Vec<(u32, Total)>) {
        for &(directed, behind) in ends.sides() {
            let part = scaled(self.network.cost(directed), behind);
            for &(before, cost) in self.network.in_arcs(directed) {
                into.push((before, part.plus(cost)));
            }
        }
    }

    /// The part of a side driven when start and end are on it, in order.
    pub(super) fn direct(&self, from: &Ends, to: &Ends) -> Option<(u32, f64, f64)> {
        from.sides()
            .iter()
            .filter_map(|&(directed, start)| {
                let (_, end) = to.sides().iter().find(|(other, _)| *other == directed)?;
                (*end >= start).then_some((directed, start, *end))
            })
            .min_by(|a, b| (a.2 - a.1).total_cmp(&(b.2 - b.1)))
    }

    /// The totals of the piece along one road from `from` to `to`, when
    /// both are on it in driving order.
    pub(super) fn direct_totals(&self, from: &Ends, to: &Ends) -> Option<Total> {
        self.direct(from, to).map(|(directed, start, end)| scaled(self.network.cost(directed), end - start))
    }

    fn with_workspace<T>(&self, work: impl FnOnce(&mut Workspace) -> T) -> T {
        let taken = self.workspaces.lock().expect("workspace pool").pop();
        let mut workspace = taken.unwrap_or_else(|| self.hierarchy.workspace());
        let answer = work(&mut workspace);
        self.workspaces.lock().expect("workspace pool").push(workspace);
        answer
    }

    /// The fastest route between two points, or `None` when no road joins them.
    pub fn route(&self, from: LatLng, to: LatLng) -> Option<Path> {
        self.route_snaps(&self.snap(from)?, &self.snap(to)?)
    }

    /// The fastest route between two points already on the road.
    pub fn route_snaps(&self, start: &Snap, end: &Snap) -> Option<Path> {
        let (from_ends, to_ends) = (self.ends(start), self.ends(end));
        let (found, direct) = self.search(&from_ends, &to_ends);
        let direct = direct
            .map(|(directed, start, end)| (directed, scaled(self.network.cost(directed), end - start), start, end));
        match (found, direct) {
            (Some(found), Some(direct)) if direct.1.weight <= found.total.weight => Some(self.direct_path(direct)),
            (None, Some(direct)) => Some(self.direct_path(direct)),
            (Some(found), _) => Some(self.path(found, &from_ends, &to_ends)),
            (None, None) => None,
        }
    }

    /// [`Router::route_snaps`]'s time and length, without drawing the path:
    /// for callers that only need the totals of many single trips (the
    /// simulator), where a one-to-one search beats a matrix's full sweeps.
    pub fn totals_snaps(&self, start: &Snap, end: &Snap) -> Option<Total> {
        let (from_ends, to_ends) = (self.ends(start), self.ends(end));
        let sources = self.sources(&from_ends);
        let targets = self.targets(&to_ends);
        let searched = if sources.is_empty() || targets.is_empty() {
            None
        } else {
            self.with_workspace(|workspace| self.hierarchy.route_total(workspace, &sources, &targets))
        };
        Router::nearer(searched, self.direct_totals(&from_ends, &to_ends))
    }

    /// The hierarchy's answer or the piece along one road, whichever is less.
    fn nearer(found: Option<Total>, direct: Option<Total>) -> Option<Total> {
        match (found, direct) {
            (Some(found), Some(direct)) if direct.weight <= found.weight => Some(direct),
            (None, Some(direct)) => Some(direct),
            (found, _) => found,
        }
    }

    /// `end` prepared for many trips to it.
    pub fn destination(&self, end: &Snap) -> Destination {
        let ends = self.ends(end);
        let targets = self.targets(&ends);
        let space = (!targets.is_empty())
            .then(|| self.with_workspace(|workspace| self.hierarchy.target_space(workspace, &targets)));
        Destination { ends, space }
    }

    /// [`Router::totals_snaps`] to a prepared destination: the same answer.
    pub fn totals_to(&self, start: &Snap, to: &Destination) -> Option<Total> {
        self.totals_to_many(start, &[to]).pop().flatten()
    }

    /// [`Router::totals_to`] to each of several destinations, with one
    /// search from `start` for all of them.
    pub fn totals_to_many(&self, start: &Snap, to: &[&Destination]) -> Vec<Option<Total>> {
        let from_ends = self.ends(start);
        let sources = self.sources(&from_ends);
        let spaces: Vec<&TargetSpace> = to.iter().filter_map(|destination| destination.space.as_ref()).collect();
        let mut found = if sources.is_empty() || spaces.is_empty() {
            Vec::new()
        } else {
            self.with_workspace(|workspace| self.hierarchy.route_to_many(workspace, &sources, &spaces))
        }
        .into_iter();
        to.iter()
            .map(|destination| {
                // The searched answers come in the order of the destinations that have a space.
                let searched = if destination.space.is_some() { found.next().flatten() } else { None };
                let direct = self
                    .direct(&from_ends, &destination.ends)
                    .map(|(directed, start, end)| scaled(self.network.cost(directed), end - start));
                Router::nearer(searched, direct)
            })
            .collect()
    }

    /// `start` prepared for many trips from it.
    pub fn origin(&self, start: &Snap) -> Origin {
        let ends = self.ends(start);
        let sources = self.sources(&ends);
        let space = (!sources.is_empty())
            .then(|| self.with_workspace(|workspace| self.hierarchy.source_space(workspace, &sources)));
        Origin { ends, space }
    }

    /// [`Router::totals_to`] from a prepared origin: the same answer, with
    /// no search.
    pub fn totals_between(&self, from: &Origin, to: &Destination) -> Option<Total> {
        let searched = match (&from.space, &to.space) {
            (Some(source), Some(target)) => self.hierarchy.meet(source, target),
            _ => None,
        };
        let direct = self
            .direct(&from.ends, &to.ends)
            .map(|(directed, start, end)| scaled(self.network.cost(directed), end - start));
        Router::nearer(searched, direct)
    }

    /// The two ways a trip can go: through the hierarchy, and along the one
    /// road both ends are on (when they are, in driving order).
    fn search(&self, from_ends: &Ends, to_ends: &Ends) -> (Option<Found>, Option<(u32, f64, f64)>) {
        let sources = self.sources(from_ends);
        let targets = self.targets(to_ends);
        let found = if sources.is_empty() || targets.is_empty() {
            None
        } else {
            self.with_workspace(|workspace| self.hierarchy.route(workspace, &sources, &targets))
        };
        (found, self.direct(from_ends, to_ends))
    }

    pub(super) fn direct_path(&self, (directed, total, start, end): (u32, Total, f64, f64)) -> Path {
        let length = self.network.segments[segment_of(directed)].length_m;
        let mut points = Vec::new();
        self.network.points_between(directed, start * length, end * length, &mut points);
        Path { time_ms: total.time_ms, length_m: total.length_dm as f64 / 10.0, points }
    }

    pub(super) fn path(&self, found: Found, from: &Ends, to: &Ends) -> Path {
        let mut nodes = found.nodes;
        // The search ended on a side's predecessor: add the side itself, the
        // one whose ending total the search started from there (the least).
        let last = *nodes.last().expect("a path has nodes");
        let side = to
            .sides()
            .iter()
            .filter_map(|&(directed, behind)| {
                let arc = self.network.out_arcs(last).iter().find(|(next, _)| *next == directed)?;
                let part = scaled(self.network.cost(directed), behind);
                Some((directed, behind, part.plus(arc.1).weight))
            })
            .min_by_key(|side| side.2)
            .expect("the target was reached through one of its sides");
        nodes.push(side.0);
        let start_behind = from.sides().iter().find(|(directed, _)| *directed == nodes[0]).map_or(0.0, |side| side.1);
        let mut points = Vec::new();
        for (index, &directed) in nodes.iter().enumerate() {
            let length = self.network.segments[segment_of(directed)].length_m;
            let from_m = if index == 0 { start_behind * length } else { 0.0 };
            let to_m = if index == nodes.len() - 1 { side.1 * length } else { length };
            self.network.points_between(directed, from_m, to_m, &mut points);
        }
        Path { time_ms: found.total.time_ms, length_m: found.total.length_dm as f64 / 10.0, points }
    }

    /// Times and lengths from every origin to every destination.
    pub fn matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Vec<Vec<Option<Total>>> {
        let origins: Vec<Option<Snap>> = origins.iter().map(|point| self.snap(*point)).collect();
        let destinations: Vec<Option<Snap>> = destinations.iter().map(|point| self.snap(*point)).collect();
        self.matrix_snaps(&origins, &destinations)
    }

    /// [`Router::matrix`] between points already on the road (`None`: off it).
    pub fn matrix_snaps(&self, origins: &[Option<Snap>], destinations: &[Option<Snap>]) -> Vec<Vec<Option<Total>>> {
        let origin_ends: Vec<Option<Ends>> =
            origins.iter().map(|snap| snap.as_ref().map(|snap| self.ends(snap))).collect();
        let destination_ends: Vec<Option<Ends>> =
            destinations.iter().map(|snap| snap.as_ref().map(|snap| self.ends(snap))).collect();
        let sources: Vec<Vec<(u32, Total)>> =
            origin_ends.iter().map(|ends| ends.as_ref().map(|ends| self.sources(ends)).unwrap_or_default()).collect();
        let targets: Vec<Vec<(u32, Total)>> = destination_ends
            .iter()
            .map(|ends| ends.as_ref().map(|ends| self.targets(ends)).unwrap_or_default())
            .collect();
        let mut matrix = self.with_workspace(|workspace| self.hierarchy.matrix(workspace, &sources, &targets));
        for (row, from) in origin_ends.iter().enumerate() {
            for (column, to) in destination_ends.iter().enumerate() {
                let (Some(from), Some(to)) = (from, to) else { continue };
                if let Some((directed, start, end)) = self.direct(from, to) {
                    let direct = scaled(self.network.cost(directed), end - start);
                    let cell = &mut matrix[row][column];
                    if cell.is_none_or(|known| direct.weight <= known.weight) {
                        *cell = Some(direct);
                    }
                }
            }
        }
        matrix
    }

    /// The same answer as [`Router::route`]'s totals by plain Dijkstra on
    /// the road arcs, without the hierarchy: the reference for checks.
    pub fn route_by_dijkstra(&self, from: LatLng, to: LatLng) -> Option<Total> {
        let (start, end) = (self.snap(from)?, self.snap(to)?);
        let (from_ends, to_ends) = (self.ends(&start), self.ends(&end));
        let out = |node: u32| self.network.out_arcs(node).to_vec();
        let found = ch::dijkstra(&out, &self.sources(&from_ends), &self.targets(&to_ends));
        let direct = self
            .direct(&from_ends, &to_ends)
            .map(|(directed, start, end)| scaled(self.network.cost(directed), end - start));
        match (found, direct) {
            (Some(found), Some(direct)) => Some(if direct.weight <= found.weight { direct } else { found }),
            (found, direct) => found.or(direct),
        }
    }

    /// Whether a directed segment goes against its way's order.
    pub fn is_backward(directed: u32) -> bool {
        is_backward(directed)
    }
}
