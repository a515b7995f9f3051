//! Kept forward search spaces (issue #39): a driver who stays where it is
//! window after window has its upward search done once, and each pickup it
//! is weighed for is then a walk along that list against the pickup's kept
//! [`TargetSpace`], with no heap and no relaxing.

use super::{Hierarchy, TargetSpace, Total, Workspace};

/// Every node the upward search from a start settles, in settle order (the
/// order of its totals' weights), with its total from the start. Stalled
/// nodes are left out: a meeting there always costs more than the best one.
#[derive(Debug, Clone, Default)]
pub struct SourceSpace {
    settled: Vec<(u32, Total)>,
}

impl SourceSpace {
    pub fn len(&self) -> usize {
        self.settled.len()
    }

    pub fn is_empty(&self) -> bool {
        self.settled.is_empty()
    }
}

impl Hierarchy {
    /// The whole upward search from `sources`, kept ([`SourceSpace`]).
    pub fn source_space(&self, ws: &mut Workspace, sources: &[(u32, Total)]) -> SourceSpace {
        let side = &mut ws.forward;
        side.reset();
        for &(node, total) in sources {
            side.relax(node, total, super::NONE);
        }
        let mut settled = Vec::new();
        while let Some((node, total)) = side.pop() {
            if self.stalled(side, Hierarchy::down_arcs, node, total) {
                continue;
            }
            settled.push((node, total));
            for arc in self.up_arcs(node) {
                side.relax(arc.node, total.plus(arc.cost), node);
            }
        }
        SourceSpace { settled }
    }

    /// The cheapest total from a kept source space to a kept target space:
    /// [`Hierarchy::route_to`]'s answer, total for total. Both walk the
    /// forward nodes in settle order, keep the first meeting of least
    /// weight and stop once no later node can beat it; the stalled nodes
    /// `route_to` also meets at are dearer than its answer, never chosen.
    pub fn meet(&self, from: &SourceSpace, to: &TargetSpace) -> Option<Total> {
        let mut best: Option<Total> = None;
        for (node, total) in &from.settled {
            if best.is_some_and(|best| total.weight + to.floor >= best.weight) {
                break;
            }
            if let Some(there) = to.totals.get(node) {
                let meeting = total.join(*there);
                if best.is_none_or(|best| meeting.weight < best.weight) {
                    best = Some(meeting);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cost, dijkstra, prepare};
    use super::*;
    use proptest::prelude::*;

    fn cost(weight: u32, time_ms: u32) -> Cost {
        Cost { weight, time_ms, length_dm: weight * 3 }
    }

    fn random_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, u32, u32)>)> {
        (2usize..40).prop_flat_map(|nodes| {
            // Time apart from weight (a turn penalty counts in the weight
            // only), and few weights, so equal-weight paths with different
            // times are common: the tie must go the way `route_to` takes it.
            let arc = (0..nodes as u32, 0..nodes as u32, 1u32..6, 0u32..3);
            (Just(nodes), proptest::collection::vec(arc, 0..nodes * 4))
        })
    }

    proptest! {
        #[test]
        fn a_kept_source_space_meets_as_the_forward_search_does(
            (nodes, arcs) in random_graph(),
            pairs in proptest::collection::vec((0u32..40, 0u32..40, -3i64..1), 1..20),
        ) {
            let arcs: Vec<(u32, u32, Cost)> =
                arcs.into_iter().map(|(a, b, w, extra)| (a, b, cost(w + extra, w * 10))).collect();
            let ch = prepare(nodes, &arcs, |_, _| {});
            let mut ws = ch.workspace();
            let out = |node: u32| arcs.iter().filter(|arc| arc.0 == node).map(|arc| (arc.1, arc.2)).collect::<Vec<_>>();
            for &(from, to, offset) in &pairs {
                let (from, to) = (from % nodes as u32, to % nodes as u32);
                // Two sources, one part-way along (a negative start), as the router gives.
                let second = (from + 1) % nodes as u32;
                let sources = vec![(from, Total::default()), (second, Total { weight: offset, time_ms: offset * 10, length_dm: 0 })];
                let targets = vec![(to, Total::default())];
                let space = ch.target_space(&mut ws, &targets);
                let searched = ch.route_to(&mut ws, &sources, &space);
                let kept = ch.source_space(&mut ws, &sources);
                prop_assert_eq!(ch.meet(&kept, &space), searched);
                let reference = dijkstra(&out, &sources, &targets);
                prop_assert_eq!(searched.map(|total| total.weight), reference.map(|total| total.weight));
            }
        }
    }
}
