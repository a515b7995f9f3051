//! The road network a car drives, built from an extract: ways split into
//! segments at junctions, each segment driven in up to two directions, and
//! the turns between directed segments (an edge-expanded graph, so turn
//! restrictions and U-turns are arcs that exist or not). A plain directed
//! graph (NREL HIVE's and OSMnx's road networks) gives one segment per link,
//! driven forwards only, with its own length and time.
//!
//! A directed segment is node `2 × segment` (the way's node order) or
//! `2 × segment + 1` (against it). An arc `a → b` costs leaving `a`: its
//! whole time and length, plus the turn's penalty in the weight only.

use super::ch::{Cost, Total};
use super::profile::{RestrictionKind, restriction_kind, way_rules};
use super::source::{Element, MemberKind, SourceError, read_elements, tag};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use wayfare_engine::LatLng;

/// A U-turn is allowed only at a dead end, and costs this much (ms).
pub(crate) const U_TURN_PENALTY_MS: u32 = 20_000;
/// Entering a private or destination-only road from a public one: an hour
/// in the weight, so such roads are only used where a trip starts or ends.
const RESTRICTED_ENTRY_PENALTY_MS: u32 = 3_600_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Segment {
    pub way: i64,
    /// Index of the way's name in [`Network::names`] (0: no name).
    pub name: u32,
    /// Its points are `points[first..=last]`, in the way's order.
    pub first: u32,
    pub last: u32,
    pub length_m: f64,
    pub speed_kmh: f64,
    pub forward: bool,
    pub backward: bool,
    pub restricted: bool,
    /// See [`super::profile::WayRules::no_stopping`].
    pub no_stopping: bool,
    /// Junctions at its two ends.
    pub from: u32,
    pub to: u32,
}

impl Segment {
    pub fn time_ms(&self) -> u32 {
        (self.length_m / (self.speed_kmh / 3.6) * 1000.0).round() as u32
    }

    fn cost(&self) -> Cost {
        Cost { weight: self.time_ms(), time_ms: self.time_ms(), length_dm: (self.length_m * 10.0).round() as u32 }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Network {
    pub segments: Vec<Segment>,
    pub names: Vec<String>,
    /// Every segment's points as (lat, lng), and their distance in metres
    /// from the start of their segment.
    pub points: Vec<[f64; 2]>,
    pub along: Vec<f32>,
    /// Arcs between directed segments, in compressed rows both ways.
    out_first: Vec<u32>,
    out: Vec<(u32, Cost)>,
    in_first: Vec<u32>,
    inn: Vec<(u32, Cost)>,
    /// Whether each directed segment is in the largest strongly connected
    /// part: from there a car can reach every other such segment. A oneway
    /// that leaves the extract's edge is not.
    main: Vec<bool>,
}

pub fn segment_of(directed: u32) -> usize {
    (directed / 2) as usize
}

pub fn is_backward(directed: u32) -> bool {
    directed % 2 == 1
}

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{0} has no road a car may drive")]
    NoRoads(String),
    #[error("graph node {node} is at ({lat}, {lng}), not on Earth")]
    BadNode { node: usize, lat: f64, lng: f64 },
    #[error("graph link {link} joins node {node}, but the graph has {nodes} nodes")]
    UnknownNode { link: usize, node: usize, nodes: usize },
    #[error("graph link {link} is {length_m} m long")]
    BadLength { link: usize, length_m: f64 },
}

/// A directed road between two graph nodes (indexes into the node list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphLink {
    pub from: usize,
    pub to: usize,
    pub length_m: f64,
    pub time_ms: u32,
}

/// The least a graph link is taken to be, as an extract's zero-length piece
/// is: a point on it still has a share of its length to be at.
const MIN_LINK_LENGTH_M: f64 = 0.1;
/// The least a graph link is taken to take, so the speed that gives its
/// time is finite even where the source rounded a short link's time to 0.
const MIN_LINK_TIME_MS: u32 = 1;

/// Which turns back are U-turns, and where a car may make them.
#[derive(Debug, Clone, Copy)]
enum UTurns {
    /// An extract's two-way segment driven back the way it came, only where
    /// its end touches no other segment.
    OnOneSegmentAtDeadEnds,
    /// A graph link onto a link back to the node it left, only where no
    /// link leads anywhere else: a graph cannot tell a street's two
    /// directions from two streets between the same two nodes.
    OntoReverseLinksWithNoOtherWayOut,
}

/// The turns restrictions forbid between directed segments.
#[derive(Debug, Default)]
struct TurnRestrictions {
    forbidden: HashSet<(u32, u32)>,
    /// For a directed segment under an "only" restriction, the turns it may make.
    only: HashMap<u32, HashSet<u32>>,
}

/// A directed segment's junction at its end.
fn head(segments: &[Segment], directed: u32) -> u32 {
    let segment = &segments[segment_of(directed)];
    if is_backward(directed) { segment.from } else { segment.to }
}

/// A directed segment's junction at its start.
fn tail(segments: &[Segment], directed: u32) -> u32 {
    let segment = &segments[segment_of(directed)];
    if is_backward(directed) { segment.to } else { segment.from }
}

/// Metres between two points (haversine, the engine's Earth radius).
pub fn metres(a: [f64; 2], b: [f64; 2]) -> f64 {
    wayfare_engine::geo::distance_km(LatLng::new(a[0], a[1]), LatLng::new(b[0], b[1])) * 1000.0
}

struct RawWay {
    id: i64,
    nodes: Vec<i64>,
    name: String,
    rules: super::profile::WayRules,
}

struct RawRestriction {
    kind: RestrictionKind,
    from: i64,
    via: i64,
    to: i64,
}

impl Network {
    /// Reads the extract twice: ways and restrictions first, then the
    /// coordinates of only the nodes those ways use.
    pub fn from_file(path: &Path) -> Result<Network, NetworkError> {
        let mut ways = Vec::new();
        let mut restrictions = Vec::new();
        read_elements(path, |element| match element {
            Element::Way(way) => {
                if let Some(rules) = way_rules(&way.tags)
                    && way.nodes.len() >= 2
                {
                    let name = tag(&way.tags, "name").or_else(|| tag(&way.tags, "ref")).unwrap_or_default().to_owned();
                    ways.push(RawWay { id: way.id, nodes: way.nodes, name, rules });
                }
            }
            Element::Relation(relation) => {
                let Some(kind) = restriction_kind(&relation.tags) else { return };
                let member = |role: &str, kind: MemberKind| {
                    relation
                        .members
                        .iter()
                        .find(|member| member.role == role && member.kind == kind)
                        .map(|member| member.id)
                };
                // Via ways are rare and left out; a via node is the common form.
                if let (Some(from), Some(via), Some(to)) =
                    (member("from", MemberKind::Way), member("via", MemberKind::Node), member("to", MemberKind::Way))
                {
                    restrictions.push(RawRestriction { kind, from, via, to });
                }
            }
            Element::Node(_) => {}
        })?;
        let wanted: HashSet<i64> = ways.iter().flat_map(|way| way.nodes.iter().copied()).collect();
        let mut coords: HashMap<i64, [f64; 2]> = HashMap::with_capacity(wanted.len());
        read_elements(path, |element| {
            if let Element::Node(node) = element
                && wanted.contains(&node.id)
            {
                coords.insert(node.id, [node.lat, node.lng]);
            }
        })?;
        let network = Network::build(ways, &restrictions, &coords);
        if network.segments.is_empty() {
            return Err(NetworkError::NoRoads(path.display().to_string()));
        }
        Ok(network)
    }

    /// One forward-only segment per link, straight from its start node to
    /// its end node; loops (a link from a node to itself) are left out, as
    /// they only lead back where they began. A link of length 0 is taken to
    /// be [`MIN_LINK_LENGTH_M`] long, one of time 0 to take
    /// [`MIN_LINK_TIME_MS`].
    pub fn from_graph(nodes: &[LatLng], links: &[GraphLink]) -> Result<Network, NetworkError> {
        if let Some((node, place)) = nodes.iter().enumerate().find(|(_, place)| !place.is_valid()) {
            return Err(NetworkError::BadNode { node, lat: place.lat, lng: place.lng });
        }
        let mut segments = Vec::with_capacity(links.len());
        let mut points = Vec::with_capacity(2 * links.len());
        let mut along = Vec::with_capacity(2 * links.len());
        for (index, link) in links.iter().enumerate() {
            if let Some(&node) = [link.from, link.to].iter().find(|node| **node >= nodes.len()) {
                return Err(NetworkError::UnknownNode { link: index, node, nodes: nodes.len() });
            }
            if !link.length_m.is_finite() || link.length_m < 0.0 {
                return Err(NetworkError::BadLength { link: index, length_m: link.length_m });
            }
            if link.from == link.to {
                continue;
            }
            let length_m = link.length_m.max(MIN_LINK_LENGTH_M);
            let time_ms = link.time_ms.max(MIN_LINK_TIME_MS);
            let first = points.len() as u32;
            points.extend([nodes[link.from], nodes[link.to]].map(|place| [place.lat, place.lng]));
            // The road's metres, not the straight line's: the router takes a
            // point's share of the line as its share of the road.
            along.extend([0.0, length_m as f32]);
            segments.push(Segment {
                way: index as i64,
                name: 0,
                first,
                last: first + 1,
                length_m,
                speed_kmh: length_m / f64::from(time_ms) * 3600.0,
                forward: true,
                backward: false,
                restricted: false,
                no_stopping: false,
                from: link.from as u32,
                to: link.to as u32,
            });
            debug_assert_eq!(segments.last().map(Segment::time_ms), Some(time_ms));
        }
        if segments.is_empty() {
            return Err(NetworkError::NoRoads(format!(
                "a graph of {} nodes and {} links (loops left out)",
                nodes.len(),
                links.len()
            )));
        }
        let network = Network::connect(
            segments,
            vec![String::new()],
            points,
            along,
            nodes.len(),
            &TurnRestrictions::default(),
            UTurns::OntoReverseLinksWithNoOtherWayOut,
        );
        Ok(network)
    }

    fn build(ways: Vec<RawWay>, restrictions: &[RawRestriction], coords: &HashMap<i64, [f64; 2]>) -> Network {
        // A node is a junction where ways meet or end, or where a way
        // passes it twice.
        let mut uses: HashMap<i64, u32> = HashMap::new();
        for way in &ways {
            for (index, node) in way.nodes.iter().enumerate() {
                let weight = if index == 0 || index == way.nodes.len() - 1 { 2 } else { 1 };
                *uses.entry(*node).or_default() += weight;
            }
        }
        let mut junctions: HashMap<i64, u32> = HashMap::new();
        let junction = |node: i64, junctions: &mut HashMap<i64, u32>| {
            let next = junctions.len() as u32;
            *junctions.entry(node).or_insert(next)
        };
        let mut names = vec![String::new()];
        let mut name_ids: HashMap<String, u32> = HashMap::new();
        let mut segments = Vec::new();
        let mut points = Vec::new();
        let mut along = Vec::new();
        for way in &ways {
            // Nodes missing from a clipped extract cut the way there.
            let nodes: Vec<(i64, [f64; 2])> =
                way.nodes.iter().filter_map(|node| coords.get(node).map(|point| (*node, *point))).collect();
            if nodes.len() < 2 {
                continue;
            }
            let name = if way.name.is_empty() {
                0
            } else {
                *name_ids.entry(way.name.clone()).or_insert_with(|| {
                    names.push(way.name.clone());
                    (names.len() - 1) as u32
                })
            };
            let mut start = 0;
            for index in 1..nodes.len() {
                let is_end = index == nodes.len() - 1;
                if !is_end && uses.get(&nodes[index].0).copied().unwrap_or(0) < 2 {
                    continue;
                }
                let first = points.len() as u32;
                let mut length = 0.0;
                for (offset, (_, point)) in nodes[start..=index].iter().enumerate() {
                    if offset > 0 {
                        length += metres(nodes[start + offset - 1].1, *point);
                    }
                    points.push(*point);
                    along.push(length as f32);
                }
                let from = junction(nodes[start].0, &mut junctions);
                let to = junction(nodes[index].0, &mut junctions);
                segments.push(Segment {
                    way: way.id,
                    name,
                    first,
                    last: points.len() as u32 - 1,
                    // A zero-length piece (two nodes at one spot) still costs a little.
                    length_m: length.max(0.1),
                    speed_kmh: way.rules.speed_kmh,
                    forward: way.rules.forward,
                    backward: way.rules.backward,
                    restricted: way.rules.restricted,
                    no_stopping: way.rules.no_stopping,
                    from,
                    to,
                });
                start = index;
            }
        }

        // Turn restrictions, as forbidden (from, to) pairs of directed segments.
        let mut by_way: HashMap<i64, Vec<u32>> = HashMap::new();
        for (index, segment) in segments.iter().enumerate() {
            by_way.entry(segment.way).or_default().push(index as u32);
        }
        let directed_of_way = |way: i64| {
            by_way.get(&way).into_iter().flatten().flat_map(|segment| {
                let segment_rules = &segments[*segment as usize];
                [(segment_rules.forward, 2 * segment), (segment_rules.backward, 2 * segment + 1)]
                    .into_iter()
                    .filter(|(allowed, _)| *allowed)
                    .map(|(_, directed)| directed)
            })
        };
        let mut turn_restrictions = TurnRestrictions::default();
        for restriction in restrictions {
            let Some(&via) = junctions.get(&restriction.via) else { continue };
            let froms: Vec<u32> =
                directed_of_way(restriction.from).filter(|directed| head(&segments, *directed) == via).collect();
            let tos: Vec<u32> =
                directed_of_way(restriction.to).filter(|directed| tail(&segments, *directed) == via).collect();
            for from in froms {
                match restriction.kind {
                    RestrictionKind::No => turn_restrictions.forbidden.extend(tos.iter().map(|to| (from, *to))),
                    RestrictionKind::Only => {
                        turn_restrictions.only.entry(from).or_default().extend(tos.iter().copied())
                    }
                }
            }
        }
        Network::connect(
            segments,
            names,
            points,
            along,
            junctions.len(),
            &turn_restrictions,
            UTurns::OnOneSegmentAtDeadEnds,
        )
    }

    /// What every source shares once its segments are cut: the turns
    /// between directed segments, in compressed rows both ways, and the main
    /// strongly connected part.
    fn connect(
        segments: Vec<Segment>,
        names: Vec<String>,
        points: Vec<[f64; 2]>,
        along: Vec<f32>,
        junction_count: usize,
        restrictions: &TurnRestrictions,
        u_turns: UTurns,
    ) -> Network {
        // Directed segments leaving each junction.
        let directed_count = segments.len() * 2;
        let mut leaving: Vec<Vec<u32>> = vec![Vec::new(); junction_count];
        let mut touching: Vec<u32> = vec![0; junction_count];
        for (index, segment) in segments.iter().enumerate() {
            let index = index as u32;
            if segment.forward {
                leaving[segment.from as usize].push(2 * index);
            }
            if segment.backward {
                leaving[segment.to as usize].push(2 * index + 1);
            }
            touching[segment.from as usize] += 1;
            touching[segment.to as usize] += 1;
        }

        let mut out: Vec<Vec<(u32, Cost)>> = vec![Vec::new(); directed_count];
        for directed in 0..directed_count as u32 {
            let segment = &segments[segment_of(directed)];
            let allowed = if is_backward(directed) { segment.backward } else { segment.forward };
            if !allowed {
                continue;
            }
            let at = head(&segments, directed);
            let is_u_turn = |next: u32| match u_turns {
                UTurns::OnOneSegmentAtDeadEnds => segment_of(next) == segment_of(directed) && next != directed,
                UTurns::OntoReverseLinksWithNoOtherWayOut => head(&segments, next) == tail(&segments, directed),
            };
            let dead_end = match u_turns {
                UTurns::OnOneSegmentAtDeadEnds => touching[at as usize] == 1,
                UTurns::OntoReverseLinksWithNoOtherWayOut => leaving[at as usize].iter().all(|&next| is_u_turn(next)),
            };
            let base = segment.cost();
            for &next in &leaving[at as usize] {
                let u_turn = is_u_turn(next);
                if u_turn && !dead_end {
                    continue;
                }
                if restrictions.forbidden.contains(&(directed, next))
                    || restrictions.only.get(&directed).is_some_and(|allowed| !allowed.contains(&next))
                {
                    continue;
                }
                let mut cost = base;
                if u_turn {
                    cost.weight = cost.weight.saturating_add(U_TURN_PENALTY_MS);
                    cost.time_ms = cost.time_ms.saturating_add(U_TURN_PENALTY_MS);
                }
                if segments[segment_of(next)].restricted && !segment.restricted {
                    cost.weight = cost.weight.saturating_add(RESTRICTED_ENTRY_PENALTY_MS);
                }
                out[directed as usize].push((next, cost));
            }
        }
        let mut inn: Vec<Vec<(u32, Cost)>> = vec![Vec::new(); directed_count];
        for (from, arcs) in out.iter().enumerate() {
            for &(to, cost) in arcs {
                inn[to as usize].push((from as u32, cost));
            }
        }
        let (out_first, out) = rows(out);
        let (in_first, inn) = rows(inn);

        let main = main_strong_component(directed_count, &out_first, &out, &in_first, &inn);
        Network { segments, names, points, along, out_first, out, in_first, inn, main }
    }

    /// Whether a segment can be driven on in one direction at least within
    /// the main network.
    pub fn on_main_network(&self, segment: usize) -> bool {
        self.main[2 * segment] || self.main[2 * segment + 1]
    }

    pub fn directed_count(&self) -> usize {
        self.segments.len() * 2
    }

    pub fn arcs(&self) -> Vec<(u32, u32, Cost)> {
        (0..self.directed_count() as u32)
            .flat_map(|from| self.out_arcs(from).iter().map(move |&(to, cost)| (from, to, cost)))
            .collect()
    }

    pub fn out_arcs(&self, directed: u32) -> &[(u32, Cost)] {
        &self.out[self.out_first[directed as usize] as usize..self.out_first[directed as usize + 1] as usize]
    }

    pub fn in_arcs(&self, directed: u32) -> &[(u32, Cost)] {
        &self.inn[self.in_first[directed as usize] as usize..self.in_first[directed as usize + 1] as usize]
    }

    pub fn may_drive(&self, directed: u32) -> bool {
        let segment = &self.segments[segment_of(directed)];
        if is_backward(directed) { segment.backward } else { segment.forward }
    }

    /// A directed segment's full cost as a search total.
    pub fn cost(&self, directed: u32) -> Total {
        Total::default().plus(self.segments[segment_of(directed)].cost())
    }

    /// The points of a directed segment from `from_m` to `to_m` metres
    /// along it (in its direction of travel), cut where those fall.
    pub fn points_between(&self, directed: u32, from_m: f64, to_m: f64, into: &mut Vec<[f64; 2]>) {
        let segment = &self.segments[segment_of(directed)];
        let length = segment.length_m;
        // Work in the way's order, then reverse for a backward segment.
        let (low, high) = if is_backward(directed) { (length - to_m, length - from_m) } else { (from_m, to_m) };
        let mut piece = Vec::new();
        let range = segment.first as usize..=segment.last as usize;
        let pts = &self.points[range.clone()];
        let alg = &self.along[range];
        piece.push(self.point_at(segment_of(directed), low));
        for (point, at) in pts.iter().zip(alg) {
            if f64::from(*at) > low && f64::from(*at) < high {
                piece.push(*point);
            }
        }
        piece.push(self.point_at(segment_of(directed), high));
        if is_backward(directed) {
            piece.reverse();
        }
        for point in piece {
            if into.last() != Some(&point) {
                into.push(point);
            }
        }
    }

    /// The point `at` metres along a segment in the way's order.
    pub fn point_at(&self, segment: usize, at: f64) -> [f64; 2] {
        let segment = &self.segments[segment];
        let range = segment.first as usize..=segment.last as usize;
        let pts = &self.points[range.clone()];
        let alg = &self.along[range];
        let at = at.clamp(0.0, f64::from(*alg.last().unwrap_or(&0.0)));
        for index in 1..pts.len() {
            let (start, end) = (f64::from(alg[index - 1]), f64::from(alg[index]));
            if at <= end {
                let fraction = if end > start { (at - start) / (end - start) } else { 0.0 };
                return [
                    pts[index - 1][0] + (pts[index][0] - pts[index - 1][0]) * fraction,
                    pts[index - 1][1] + (pts[index][1] - pts[index - 1][1]) * fraction,
                ];
            }
        }
        *pts.last().expect("a segment has points")
    }
}

/// Kosaraju's algorithm, iterative: the members of the largest strongly
/// connected component.
fn main_strong_component(
    nodes: usize,
    out_first: &[u32],
    out: &[(u32, Cost)],
    in_first: &[u32],
    inn: &[(u32, Cost)],
) -> Vec<bool> {
    let arcs = |first: &[u32], all: &'_ [(u32, Cost)], node: usize| -> Vec<u32> {
        all[first[node] as usize..first[node + 1] as usize].iter().map(|(next, _)| *next).collect()
    };
    // First pass: nodes in order of finishing, on the forward arcs.
    let mut visited = vec![false; nodes];
    let mut order = Vec::with_capacity(nodes);
    for root in 0..nodes {
        if visited[root] {
            continue;
        }
        visited[root] = true;
        let mut stack = vec![(root, arcs(out_first, out, root), 0usize)];
        while let Some((node, next, index)) = stack.last_mut() {
            if let Some(&child) = next.get(*index) {
                *index += 1;
                if !visited[child as usize] {
                    visited[child as usize] = true;
                    let children = arcs(out_first, out, child as usize);
                    stack.push((child as usize, children, 0));
                }
            } else {
                order.push(*node);
                stack.pop();
            }
        }
    }
    // Second pass: on the reversed arcs, in reverse finishing order.
    let mut component = vec![u32::MAX; nodes];
    let mut sizes: Vec<usize> = Vec::new();
    for &root in order.iter().rev() {
        if component[root] != u32::MAX {
            continue;
        }
        let id = sizes.len() as u32;
        let mut size = 0;
        component[root] = id;
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            size += 1;
            for previous in arcs(in_first, inn, node) {
                if component[previous as usize] == u32::MAX {
                    component[previous as usize] = id;
                    stack.push(previous as usize);
                }
            }
        }
        sizes.push(size);
    }
    let largest =
        sizes.iter().enumerate().max_by_key(|(id, size)| (**size, std::cmp::Reverse(*id))).map_or(0, |(id, _)| id)
            as u32;
    component.into_iter().map(|id| id == largest).collect()
}

fn rows(lists: Vec<Vec<(u32, Cost)>>) -> (Vec<u32>, Vec<(u32, Cost)>) {
    let mut first = Vec::with_capacity(lists.len() + 1);
    let mut all = Vec::new();
    for list in lists {
        first.push(all.len() as u32);
        all.extend(list);
    }
    first.push(all.len() as u32);
    (first, all)
}
