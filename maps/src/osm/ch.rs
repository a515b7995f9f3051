//! Contraction hierarchies (Geisberger et al., 2008): the road graph is
//! prepared once by contracting nodes in order of importance and adding
//! shortcuts that keep every shortest path; a query then only climbs to
//! more important nodes from both ends, touching a few hundred nodes where
//! Dijkstra touches the whole city. Our own code rather than a crate:
//! routing needs a many-to-many matrix (bucket search), several sources and
//! targets with offsets (a point between two junctions), and three metrics on
//! every arc (the weight searched, and the time and length reported), which
//! `fast_paths` does not expose.
//!
//! Arcs compare by `weight` only; `time_ms` and `length_dm` ride along and
//! are summed on shortcuts, so a query answers all three without unpacking.

use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

mod spaces;
pub use spaces::SourceSpace;

pub const NONE: u32 = u32::MAX;

/// What an arc costs: the searched weight and the reported time and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cost {
    pub weight: u32,
    pub time_ms: u32,
    pub length_dm: u32,
}

impl Cost {
    fn plus(self, other: Cost) -> Cost {
        Cost {
            weight: self.weight.saturating_add(other.weight),
            time_ms: self.time_ms.saturating_add(other.time_ms),
            length_dm: self.length_dm.saturating_add(other.length_dm),
        }
    }
}

/// A cost on a search frontier: signed, so a start part-way along a road can
/// begin below zero (see the router).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Total {
    pub weight: i64,
    pub time_ms: i64,
    pub length_dm: i64,
}

impl Total {
    pub fn plus(self, cost: Cost) -> Total {
        Total {
            weight: self.weight + i64::from(cost.weight),
            time_ms: self.time_ms + i64::from(cost.time_ms),
            length_dm: self.length_dm + i64::from(cost.length_dm),
        }
    }

    pub fn join(self, other: Total) -> Total {
        Total {
            weight: self.weight + other.weight,
            time_ms: self.time_ms + other.time_ms,
            length_dm: self.length_dm + other.length_dm,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct ChArc {
    node: u32,
    cost: Cost,
    /// The contracted node a shortcut skips, or [`NONE`] for a road arc.
    middle: u32,
}

/// A prepared graph: for each node, the arcs to more important nodes
/// (`up`, searched forwards) and the arcs from more important nodes
/// (`down`, searched backwards), in compressed rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hierarchy {
    rank: Vec<u32>,
    up_first: Vec<u32>,
    up: Vec<ChArc>,
    down_first: Vec<u32>,
    down: Vec<ChArc>,
}

/// Witness searches stop after this many settled nodes: a missed witness
/// only adds a needless shortcut, never a wrong answer.
const WITNESS_SETTLE_LIMIT: usize = 400;

struct Preparation {
    out: Vec<Vec<ChArc>>,
    inn: Vec<Vec<ChArc>>,
    contracted: Vec<bool>,
    deleted_neighbours: Vec<u32>,
    // Witness search workspace.
    dist: Vec<u32>,
    touched: Vec<u32>,
}

impl Preparation {
    fn add_arc(&mut self, from: u32, to: u32, cost: Cost, middle: u32) {
        if from == to {
            return;
        }
        let out = &mut self.out[from as usize];
        if let Some(arc) = out.iter_mut().find(|arc| arc.node == to) {
            if arc.cost.weight <= cost.weight {
                return;
            }
            *arc = ChArc { node: to, cost, middle };
            let back = self.inn[to as usize].iter_mut().find(|arc| arc.node == from).expect("arcs are kept both ways");
            *back = ChArc { node: from, cost, middle };
            return;
        }
        out.push(ChArc { node: to, cost, middle });
        self.inn[to as usize].push(ChArc { node: from, cost, middle });
    }

    /// Dijkstra from `start` over nodes not yet contracted, skipping `skip`,
    /// up to `max` weight; distances are left in `self.dist`.
    fn witness_search(&mut self, start: u32, skip: u32, max: u32) {
        for node in self.touched.drain(..) {
            self.dist[node as usize] = u32::MAX;
        }
        let mut heap = BinaryHeap::new();
        self.dist[start as usize] = 0;
        self.touched.push(start);
        heap.push(Reverse((0u32, start)));
        let mut settled = 0;
        while let Some(Reverse((dist, node))) = heap.pop() {
            if dist > self.dist[node as usize] {
                continue;
            }
            if dist > max || settled >= WITNESS_SETTLE_LIMIT {
                break;
            }
            settled += 1;
            for arc in &self.out[node as usize] {
                if arc.node == skip || self.contracted[arc.node as usize] {
                    continue;
                }
                let next = dist.saturating_add(arc.cost.weight);
                if next < self.dist[arc.node as usize] {
                    if self.dist[arc.node as usize] == u32::MAX {
                        self.touched.push(arc.node);
                    }
                    self.dist[arc.node as usize] = next;
                    heap.push(Reverse((next, arc.node)));
                }
            }
        }
    }

    /// The shortcuts contracting `node` needs now: (from, to, cost).
    fn shortcuts(&mut self, node: u32) -> Vec<(u32, u32, Cost)> {
        let mut shortcuts = Vec::new();
        let incoming: Vec<ChArc> =
            self.inn[node as usize].iter().copied().filter(|arc| !self.contracted[arc.node as usize]).collect();
        let outgoing: Vec<ChArc> =
            self.out[node as usize].iter().copied().filter(|arc| !self.contracted[arc.node as usize]).collect();
        for from in &incoming {
            let Some(max_out) = outgoing.iter().filter(|to| to.node != from.node).map(|to| to.cost.weight).max() else {
                continue;
            };
            self.witness_search(from.node, node, from.cost.weight.saturating_add(max_out));
            for to in &outgoing {
                if to.node == from.node {
                    continue;
                }
                let via = from.cost.plus(to.cost);
                if self.dist[to.node as usize] > via.weight {
                    shortcuts.push((from.node, to.node, via));
                }
            }
        }
        shortcuts
    }

    fn priority(&mut self, node: u32) -> i64 {
        let shortcuts = self.shortcuts(node).len() as i64;
        let degree = self.inn[node as usize].iter().filter(|arc| !self.contracted[arc.node as usize]).count()
            + self.out[node as usize].iter().filter(|arc| !self.contracted[arc.node as usize]).count();
        2 * shortcuts - degree as i64 + i64::from(self.deleted_neighbours[node as usize])
    }
}

/// Prepares a graph of `nodes` nodes from its arcs (from, to, cost); parallel
/// arcs keep the lightest, loops are dropped. `progress` is told how many
/// nodes are contracted so far.
pub fn prepare(nodes: usize, arcs: &[(u32, u32, Cost)], mut progress: impl FnMut(usize, usize)) -> Hierarchy {
    let mut prep = Preparation {
        out: vec![Vec::new(); nodes],
        inn: vec![Vec::new(); nodes],
        contracted: vec![false; nodes],
        deleted_neighbours: vec![0; nodes],
        dist: vec![u32::MAX; nodes],
        touched: Vec::new(),
    };
    for &(from, to, cost) in arcs {
        prep.add_arc(from, to, cost, NONE);
    }
    let mut queue: BinaryHeap<Reverse<(i64, u32)>> =
        (0..nodes as u32).map(|node| Reverse((prep.priority(node), node))).collect();
    let mut rank = vec![NONE; nodes];
    let mut next_rank = 0u32;
    while let Some(Reverse((priority, node))) = queue.pop() {
        if prep.contracted[node as usize] {
            continue;
        }
        // Lazy update: the priority may be stale since neighbours went.
        let current = prep.priority(node);
        if current > priority
            && let Some(Reverse((next, _))) = queue.peek()
            && current > *next
        {
            queue.push(Reverse((current, node)));
            continue;
        }
        for (from, to, cost) in prep.shortcuts(node) {
            prep.add_arc(from, to, cost, node);
        }
        prep.contracted[node as usize] = true;
        rank[node as usize] = next_rank;
        next_rank += 1;
        let neighbours: Vec<u32> =
            prep.inn[node as usize].iter().chain(&prep.out[node as usize]).map(|arc| arc.node).collect();
        for neighbour in neighbours {
            if !prep.contracted[neighbour as usize] {
                prep.deleted_neighbours[neighbour as usize] += 1;
            }
        }
        if next_rank.is_multiple_of(4096) {
            progress(next_rank as usize, nodes);
        }
    }
    progress(nodes, nodes);

    let mut up: Vec<Vec<ChArc>> = vec![Vec::new(); nodes];
    let mut down: Vec<Vec<ChArc>> = vec![Vec::new(); nodes];
    for (from, arcs) in prep.out.iter().enumerate() {
        for arc in arcs {
            if rank[from] < rank[arc.node as usize] {
                up[from].push(*arc);
            } else {
                down[arc.node as usize].push(ChArc { node: from as u32, cost: arc.cost, middle: arc.middle });
            }
        }
    }
    let (up_first, up) = compress(up);
    let (down_first, down) = compress(down);
    Hierarchy { rank, up_first, up, down_first, down }
}

fn compress(rows: Vec<Vec<ChArc>>) -> (Vec<u32>, Vec<ChArc>) {
    let mut first = Vec::with_capacity(rows.len() + 1);
    let mut all = Vec::with_capacity(rows.iter().map(Vec::len).sum());
    for row in rows {
        first.push(all.len() as u32);
        all.extend(row);
    }
    first.push(all.len() as u32);
    (first, all)
}

/// A search's reusable state: distances stamped per query, so a query costs
/// what it touches, not the size of the graph; and the many-to-many's
/// buckets, kept between calls so a matrix allocates only its answer.
pub struct Workspace {
    forward: Side,
    backward: Side,
    buckets: Buckets,
}

/// What a search knows of a node, in one place: a settle reads the stamp,
/// the total and writes the parent on one cache line.
#[derive(Debug, Clone, Copy, Default)]
struct Label {
    stamp: u32,
    parent: u32,
    total: Total,
}

struct Side {
    stamp: u32,
    labels: Vec<Label>,
    heap: BinaryHeap<Reverse<(i64, u32)>>,
}

impl Side {
    fn new(nodes: usize) -> Self {
        Side { stamp: 0, labels: vec![Label::default(); nodes], heap: BinaryHeap::new() }
    }

    fn reset(&mut self) {
        self.heap.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.labels.iter_mut().for_each(|label| label.stamp = 0);
            self.stamp = 1;
        }
    }

    #[inline]
    fn get(&self, node: u32) -> Option<Total> {
        let label = &self.labels[node as usize];
        (label.stamp == self.stamp).then_some(label.total)
    }

    #[inline]
    fn parent(&self, node: u32) -> u32 {
        self.labels[node as usize].parent
    }

    #[inline]
    fn relax(&mut self, node: u32, total: Total, parent: u32) {
        let label = &mut self.labels[node as usize];
        if label.stamp == self.stamp && label.total.weight <= total.weight {
            return;
        }
        *label = Label { stamp: self.stamp, parent, total };
        self.heap.push(Reverse((total.weight, node)));
    }

    /// The next node to settle, skipping stale entries.
    fn pop(&mut self) -> Option<(u32, Total)> {
        while let Some(Reverse((weight, node))) = self.heap.pop() {
            let label = &self.labels[node as usize];
            if label.total.weight == weight && label.stamp == self.stamp {
                return Some((node, label.total));
            }
        }
        None
    }

    fn min_key(&self) -> Option<i64> {
        self.heap.peek().map(|Reverse((weight, _))| *weight)
    }
}

/// A bucket entry as the forward searches scan it: the target's column and
/// its weight (the rest of its total is read only when it improves a cell).
#[derive(Debug, Clone, Copy)]
struct Entry {
    weight: i64,
    column: u32,
}

/// The many-to-many's buckets in flat arrays: what the targets' upward
/// searches settled, (node, column, total), then grouped by node with a
/// counting sort into rows indexed by `first`, as the arcs are.
#[derive(Default)]
struct Buckets {
    settled: Vec<(u32, u32, Total)>,
    first: Vec<u32>,
    entries: Vec<Entry>,
    totals: Vec<Total>,
    best: Vec<i64>,
}

impl Buckets {
    /// Groups `settled` by node (stable: each bucket in column order).
    fn group(&mut self, nodes: usize) {
        self.first.clear();
        self.first.resize(nodes + 1, 0);
        for &(node, _, _) in &self.settled {
            self.first[node as usize + 1] += 1;
        }
        for node in 0..nodes {
            self.first[node + 1] += self.first[node];
        }
        self.entries.clear();
        self.entries.resize(self.settled.len(), Entry { weight: 0, column: 0 });
        self.totals.clear();
        self.totals.resize(self.settled.len(), Total::default());
        // `first[node]` walks up as the node's bucket fills, then is put back.
        for &(node, column, total) in &self.settled {
            let at = self.first[node as usize] as usize;
            self.entries[at] = Entry { weight: total.weight, column };
            self.totals[at] = total;
            self.first[node as usize] += 1;
        }
        for node in (0..nodes).rev() {
            self.first[node + 1] = self.first[node];
        }
        self.first[0] = 0;
    }
}

/// The arcs a search direction climbs from a node.
type ArcsOf = fn(&Hierarchy, u32) -> &[ChArc];

/// A node id's hash: one wide multiply, folded (the mixing of wyhash and
/// foldhash). A kept space is read for each forward node of every pair a
/// batch window weighs, where std's SipHash showed in the simulator's
/// profile; node ids come from our own graph, no flooding to guard against.
#[derive(Default)]
struct NodeHasher(u64);

impl Hasher for NodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    #[inline]
    fn write_u32(&mut self, node: u32) {
        self.write_u64(u64::from(node));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        let product = u128::from(self.0 ^ value) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

/// Every node the upward search from a target reaches, with its total to
/// the target: searched once, it answers many trips to that target, each
/// with a forward search only ([`Hierarchy::route_to`]).
#[derive(Debug, Clone)]
pub struct TargetSpace {
    totals: HashMap<u32, Total, BuildHasherDefault<NodeHasher>>,
    /// The least starting total: no meeting costs less than a forward key plus this.
    floor: i64,
}

impl TargetSpace {
    pub fn len(&self) -> usize {
        self.totals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.totals.is_empty()
    }
}

/// The cheapest path a query found: its total and the original graph's
/// nodes along it, from the source it left to the target it reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub total: Total,
    pub nodes: Vec<u32>,
}

impl Hierarchy {
    pub fn nodes(&self) -> usize {
        self.rank.len()
    }

    pub fn shortcut_count(&self) -> usize {
        self.up.iter().chain(&self.down).filter(|arc| arc.middle != NONE).count()
    }

    pub fn workspace(&self) -> Workspace {
        Workspace { forward: Side::new(self.nodes()), backward: Side::new(self.nodes()), buckets: Buckets::default() }
    }

    fn up_arcs(&self, node: u32) -> &[ChArc] {
        &self.up[self.up_first[node as usize] as usize..self.up_first[node as usize + 1] as usize]
    }

    fn down_arcs(&self, node: u32) -> &[ChArc] {
        &self.down[self.down_first[node as usize] as usize..self.down_first[node as usize + 1] as usize]
    }

    /// The cheapest path from any source to any target, each with a starting
    /// total (where along its road the trip starts or ends).
    pub fn route(&self, ws: &mut Workspace, sources: &[(u32, Total)], targets: &[(u32, Total)]) -> Option<Found> {
        let (total, meeting) = self.meeting(ws, sources, targets)?;
        let Workspace { forward, backward, .. } = ws;
        let mut nodes = Vec::new();
        // Forward half: meeting back to the source, then reversed.
        let mut chain = vec![meeting];
        let mut node = meeting;
        while forward.parent(node) != NONE {
            node = forward.parent(node);
            chain.push(node);
        }
        chain.reverse();
        nodes.push(chain[0]);
        for pair in chain.windows(2) {
            self.unpack(pair[0], pair[1], &mut nodes);
        }
        let mut node = meeting;
        while backward.parent(node) != NONE {
            let next = backward.parent(node);
            self.unpack(node, next, &mut nodes);
            node = next;
        }
        Some(Found { total, nodes })
    }

    /// [`Hierarchy::route`]'s total alone, for callers that need no path
    /// (the simulator's drives): the same search, without the unpacking.
    pub fn route_total(&self, ws: &mut Workspace, sources: &[(u32, Total)], targets: &[(u32, Total)]) -> Option<Total> {
        self.meeting(ws, sources, targets).map(|(total, _)| total)
    }

    /// The bidirectional search: the cheapest total and the node where the
    /// two sides meet for it (each side's parents lead back from there).
    fn meeting(&self, ws: &mut Workspace, sources: &[(u32, Total)], targets: &[(u32, Total)]) -> Option<(Total, u32)> {
        let Workspace { forward, backward, .. } = ws;
        forward.reset();
        backward.reset();
        for &(node, total) in sources {
            forward.relax(node, total, NONE);
        }
        for &(node, total) in targets {
            backward.relax(node, total, NONE);
        }
        // A direction may stop once its smallest key plus the other side's
        // smallest start cannot beat the best meeting found.
        let forward_floor = sources.iter().map(|(_, total)| total.weight).min()?;
        let backward_floor = targets.iter().map(|(_, total)| total.weight).min()?;
        let mut best: Option<(Total, u32)> = None;
        let beats = |best: &Option<(Total, u32)>, weight: i64| best.is_none_or(|(total, _)| weight < total.weight);
        loop {
            let forward_key = forward.min_key().filter(|key| beats(&best, key + backward_floor));
            let backward_key = backward.min_key().filter(|key| beats(&best, key + forward_floor));
            let go_forward = match (forward_key, backward_key) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(f), Some(b)) => f <= b,
            };
            let (side, other, arcs_of, stall_arcs): (&mut Side, &Side, ArcsOf, ArcsOf) = if go_forward {
                (&mut *forward, &*backward, Hierarchy::up_arcs, Hierarchy::down_arcs)
            } else {
                (&mut *backward, &*forward, Hierarchy::down_arcs, Hierarchy::up_arcs)
            };
            let Some((node, total)) = side.pop() else { continue };
            if let Some(there) = other.get(node) {
                let meeting = total.join(there);
                if beats(&best, meeting.weight) {
                    best = Some((meeting, node));
                }
            }
            // Stall on demand.
            if self.stalled(side, stall_arcs, node, total) {
                continue;
            }
            for arc in arcs_of(self, node) {
                side.relax(arc.node, total.plus(arc.cost), node);
            }
        }
        best
    }

    /// Whether `node`, settled at `total`, is reached more cheaply through a
    /// higher node this side has already reached (`stall_arcs` lead there):
    /// then no shortest up-then-down path climbs on from it.
    fn stalled(&self, side: &Side, stall_arcs: ArcsOf, node: u32, total: Total) -> bool {
        stall_arcs(self, node)
            .iter()
            .any(|arc| side.get(arc.node).is_some_and(|higher| higher.plus(arc.cost).weight < total.weight))
    }

    /// The upward search from a target's sides, kept ([`TargetSpace`]).
    /// Stalled nodes are left out: the best meeting is never one.
    pub fn target_space(&self, ws: &mut Workspace, targets: &[(u32, Total)]) -> TargetSpace {
        let side = &mut ws.backward;
        side.reset();
        for &(node, total) in targets {
            side.relax(node, total, NONE);
        }
        let mut totals = HashMap::default();
        while let Some((node, total)) = side.pop() {
            if self.stalled(side, Hierarchy::up_arcs, node, total) {
                continue;
            }
            totals.insert(node, total);
            for arc in self.down_arcs(node) {
                side.relax(arc.node, total.plus(arc.cost), node);
            }
        }
        let floor = targets.iter().map(|(_, total)| total.weight).min().unwrap_or(0);
        TargetSpace { totals, floor }
    }

    /// The cheapest total from any source to the target of `space`: one
    /// upward search, stopped once no meeting can beat the best found.
    pub fn route_to(&self, ws: &mut Workspace, sources: &[(u32, Total)], space: &TargetSpace) -> Option<Total> {
        self.route_to_many(ws, sources, &[space]).pop().flatten()
    }

    /// [`Hierarchy::route_to`] to several targets with one upward search
    /// (a driver weighed for several pickups): it stops once no meeting can
    /// beat the best found for any of them. Each answer is the one
    /// `route_to` gives: the same search, settled in the same order.
    pub fn route_to_many(
        &self,
        ws: &mut Workspace,
        sources: &[(u32, Total)],
        spaces: &[&TargetSpace],
    ) -> Vec<Option<Total>> {
        let side = &mut ws.forward;
        side.reset();
        for &(node, total) in sources {
            side.relax(node, total, NONE);
        }
        let mut best: Vec<Option<Total>> = vec![None; spaces.len()];
        while let Some(key) = side.min_key() {
            let open =
                spaces.iter().zip(&best).any(|(space, best)| best.is_none_or(|best| key + space.floor < best.weight));
            if !open {
                break;
            }
            let Some((node, total)) = side.pop() else { break };
            for (space, best) in spaces.iter().zip(best.iter_mut()) {
                if let Some(there) = space.totals.get(&node) {
                    let meeting = total.join(*there);
                    if best.is_none_or(|best| meeting.weight < best.weight) {
                        *best = Some(meeting);
                    }
                }
            }
            if self.stalled(side, Hierarchy::down_arcs, node, total) {
                continue;
            }
            for arc in self.up_arcs(node) {
                side.relax(arc.node, total.plus(arc.cost), node);
            }
        }
        best
    }

    /// Appends the original nodes after `from` on the arc `from → to`.
    fn unpack(&self, from: u32, to: u32, nodes: &mut Vec<u32>) {
        let arc = if self.rank[from as usize] < self.rank[to as usize] {
            self.up_arcs(from).iter().filter(|arc| arc.node == to).min_by_key(|arc| arc.cost.weight)
        } else {
            self.down_arcs(to).iter().filter(|arc| arc.node == from).min_by_key(|arc| arc.cost.weight)
        };
        let arc = arc.expect("a path's arcs are in the hierarchy");
        if arc.middle == NONE {
            nodes.push(to);
        } else {
            self.unpack(from, arc.middle, nodes);
            self.unpack(arc.middle, to, nodes);
        }
    }

    /// The cheapest totals from every source group to every target group
    /// (each group: nodes with starting totals): one upward search per
    /// target fills buckets, one per source reads them, so the work grows
    /// with sources + targets, not their product (Knopp et al., 2007).
    /// Both searches stall on demand: a stalled node is no meeting place,
    /// so it neither fills nor reads a bucket. Each cell is the cheapest
    /// meeting, as [`Hierarchy::route`] finds it.
    pub fn matrix(
        &self,
        ws: &mut Workspace,
        sources: &[Vec<(u32, Total)>],
        targets: &[Vec<(u32, Total)>],
    ) -> Vec<Vec<Option<Total>>> {
        let Workspace { forward, backward, buckets } = ws;
        buckets.settled.clear();
        for (column, group) in targets.iter().enumerate() {
            backward.reset();
            for &(node, total) in group {
                backward.relax(node, total, NONE);
            }
            while let Some((node, total)) = backward.pop() {
                if self.stalled(backward, Hierarchy::up_arcs, node, total) {
                    continue;
                }
                buckets.settled.push((node, column as u32, total));
                for arc in self.down_arcs(node) {
                    backward.relax(arc.node, total.plus(arc.cost), node);
                }
            }
        }
        buckets.group(self.nodes());
        let Buckets { first, entries, totals, best, .. } = buckets;
        let mut answer = Vec::with_capacity(sources.len());
        for group in sources {
            let mut row: Vec<Option<Total>> = vec![None; targets.len()];
            best.clear();
            best.resize(targets.len(), i64::MAX);
            forward.reset();
            for &(node, total) in group {
                forward.relax(node, total, NONE);
            }
            while let Some((node, total)) = forward.pop() {
                if self.stalled(forward, Hierarchy::down_arcs, node, total) {
                    continue;
                }
                let range = first[node as usize] as usize..first[node as usize + 1] as usize;
                for (entry, there) in entries[range.clone()].iter().zip(&totals[range]) {
                    let meeting = total.weight + entry.weight;
                    let column = entry.column as usize;
                    if meeting < best[column] {
                        best[column] = meeting;
                        row[column] = Some(total.join(*there));
                    }
                }
                for arc in self.up_arcs(node) {
                    forward.relax(arc.node, total.plus(arc.cost), node);
                }
            }
            answer.push(row);
        }
        answer
    }
}

/// Plain Dijkstra on the original arcs: the reference the hierarchy is
/// checked against (tests, and `wayfare map check`).
pub fn dijkstra(
    out: &dyn Fn(u32) -> Vec<(u32, Cost)>,
    sources: &[(u32, Total)],
    targets: &[(u32, Total)],
) -> Option<Total> {
    let mut dist: HashMap<u32, Total> = HashMap::new();
    let mut heap = BinaryHeap::new();
    for &(node, total) in sources {
        if dist.get(&node).is_none_or(|known| total.weight < known.weight) {
            dist.insert(node, total);
            heap.push(Reverse((total.weight, node)));
        }
    }
    let mut ends: HashMap<u32, Total> = HashMap::new();
    for &(node, total) in targets {
        if ends.get(&node).is_none_or(|known| total.weight < known.weight) {
            ends.insert(node, total);
        }
    }
    let mut best: Option<Total> = None;
    while let Some(Reverse((weight, node))) = heap.pop() {
        if dist.get(&node).is_some_and(|known| known.weight < weight) {
            continue;
        }
        if best.is_some_and(|best| weight + targets.iter().map(|(_, t)| t.weight).min().unwrap_or(0) >= best.weight) {
            break;
        }
        let total = dist[&node];
        if let Some(end) = ends.get(&node) {
            let arrived = total.join(*end);
            if best.is_none_or(|best| arrived.weight < best.weight) {
                best = Some(arrived);
            }
        }
        for (next, cost) in out(node) {
            let candidate = total.plus(cost);
            if dist.get(&next).is_none_or(|known| candidate.weight < known.weight) {
                dist.insert(next, candidate);
                heap.push(Reverse((candidate.weight, next)));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cost(weight: u32) -> Cost {
        Cost { weight, time_ms: weight * 10, length_dm: weight * 3 }
    }

    fn at(node: u32) -> Vec<(u32, Total)> {
        vec![(node, Total::default())]
    }

    #[test]
    fn a_line_and_a_shortcut_around_it() {
        // 0 → 1 → 2 → 3, and a dearer direct arc 0 → 3.
        let arcs = [(0, 1, cost(1)), (1, 2, cost(1)), (2, 3, cost(1)), (0, 3, cost(5))];
        let ch = prepare(4, &arcs, |_, _| {});
        let mut ws = ch.workspace();
        let found = ch.route(&mut ws, &at(0), &at(3)).unwrap();
        assert_eq!(found.total, Total { weight: 3, time_ms: 30, length_dm: 9 });
        assert_eq!(found.nodes, vec![0, 1, 2, 3]);
        assert_eq!(ch.route(&mut ws, &at(3), &at(0)), None);
        let matrix = ch.matrix(&mut ws, &[at(0), at(1)], &[at(3), at(0)]);
        assert_eq!(matrix[0][0].map(|total| total.weight), Some(3));
        assert_eq!(matrix[0][1].map(|total| total.weight), Some(0));
        assert_eq!(matrix[1][0].map(|total| total.weight), Some(2));
        assert_eq!(matrix[1][1], None);
    }

    #[test]
    fn starting_totals_choose_between_sources() {
        // Two ways in: from 0 (far along) or from 1.
        let arcs = [(0, 2, cost(10)), (1, 2, cost(2))];
        let ch = prepare(3, &arcs, |_, _| {});
        let mut ws = ch.workspace();
        let sources = [(0, Total { weight: -9, time_ms: -90, length_dm: -27 }), (1, Total::default())];
        let found = ch.route(&mut ws, &sources, &at(2)).unwrap();
        assert_eq!(found.total.weight, 1);
        assert_eq!(found.nodes, vec![0, 2]);
    }

    fn random_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, u32)>)> {
        (2usize..40).prop_flat_map(|nodes| {
            let arc = (0..nodes as u32, 0..nodes as u32, 1u32..50);
            (Just(nodes), proptest::collection::vec(arc, 0..nodes * 4))
        })
    }

    proptest! {
        #[test]
        fn the_hierarchy_agrees_with_dijkstra((nodes, arcs) in random_graph(), pairs in proptest::collection::vec((0u32..40, 0u32..40), 1..20)) {
            let arcs: Vec<(u32, u32, Cost)> = arcs.into_iter().map(|(a, b, w)| (a, b, cost(w))).collect();
            let ch = prepare(nodes, &arcs, |_, _| {});
            let mut ws = ch.workspace();
            let out = |node: u32| arcs.iter().filter(|arc| arc.0 == node).map(|arc| (arc.1, arc.2)).collect::<Vec<_>>();
            let pairs: Vec<(u32, u32)> = pairs.into_iter().map(|(a, b)| (a % nodes as u32, b % nodes as u32)).collect();
            for &(from, to) in &pairs {
                let reference = dijkstra(&out, &at(from), &at(to));
                let found = ch.route(&mut ws, &at(from), &at(to));
                prop_assert_eq!(found.as_ref().map(|found| found.total.weight), reference.map(|total| total.weight));
                // The kept target space answers the same from any source.
                let space = ch.target_space(&mut ws, &at(to));
                let to_space = ch.route_to(&mut ws, &at(from), &space);
                prop_assert_eq!(to_space.map(|total| total.weight), reference.map(|total| total.weight));
                if let Some(found) = found {
                    // The unpacked path is made of original arcs and costs what was answered.
                    prop_assert_eq!(found.nodes.first(), Some(&from));
                    prop_assert_eq!(found.nodes.last(), Some(&to));
                    let mut weight = 0i64;
                    for pair in found.nodes.windows(2) {
                        let arc = arcs.iter().filter(|arc| arc.0 == pair[0] && arc.1 == pair[1]).map(|arc| arc.2.weight).min();
                        prop_assert!(arc.is_some(), "{:?} is not an arc", pair);
                        weight += i64::from(arc.unwrap());
                    }
                    prop_assert_eq!(weight, found.total.weight);
                }
            }
            // One search to every target at once answers each as alone.
            let spaces: Vec<TargetSpace> = pairs.iter().map(|pair| ch.target_space(&mut ws, &at(pair.1))).collect();
            let spaces: Vec<&TargetSpace> = spaces.iter().collect();
            for &(from, _) in &pairs {
                let each: Vec<Option<Total>> = spaces.iter().map(|space| ch.route_to(&mut ws, &at(from), space)).collect();
                prop_assert_eq!(ch.route_to_many(&mut ws, &at(from), &spaces), each);
            }
            let sources: Vec<Vec<(u32, Total)>> = pairs.iter().map(|pair| at(pair.0)).collect();
            let targets: Vec<Vec<(u32, Total)>> = pairs.iter().map(|pair| at(pair.1)).collect();
            let matrix = ch.matrix(&mut ws, &sources, &targets);
            for (row, source) in pairs.iter().enumerate() {
                for (column, target) in pairs.iter().enumerate() {
                    let reference = dijkstra(&out, &at(source.0), &at(target.1));
                    prop_assert_eq!(matrix[row][column].map(|total| total.weight), reference.map(|total| total.weight));
                }
            }
        }
    }
}
