//! Our routes against a second, independent shortest-path computation on
//! the same extract (issue #14, docs/benchmarks.md): a plain node graph
//! built here from the raw ways — car highways, OSRM's published default
//! speeds and `maxspeed` × 0.8, oneways (explicit, reversed, implied on
//! motorways and roundabouts), `access`/`motor_vehicle`/`motorcar` = no left
//! out — searched with a binary-heap Dijkstra. It shares nothing with the
//! provider's network, contraction hierarchy or snapping. It knows no turn
//! restrictions, no U-turn rule and no private-road penalty, so it can only
//! be as fast or faster; the differences it reports are those rules at work.
//!
//! `cargo bench -p wayfare-benches --bench route_compare`

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::{Path, PathBuf};
use wayfare_engine::LatLng;
use wayfare_maps::osm::cache;
use wayfare_maps::osm::source::{Element, read_elements, tag};

fn extract(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("data").join(name)
}

fn speed(highway: &str) -> Option<f64> {
    Some(match highway {
        "motorway" => 90.0,
        "motorway_link" => 45.0,
        "trunk" => 85.0,
        "trunk_link" => 40.0,
        "primary" => 65.0,
        "primary_link" => 30.0,
        "secondary" => 55.0,
        "secondary_link" => 25.0,
        "tertiary" => 40.0,
        "tertiary_link" => 20.0,
        "unclassified" | "residential" | "road" => 25.0,
        "living_street" => 10.0,
        "service" => 15.0,
        _ => return None,
    })
}

fn haversine(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (lat1, lat2) = (a[0].to_radians(), b[0].to_radians());
    let (dlat, dlng) = ((b[0] - a[0]).to_radians(), (b[1] - a[1]).to_radians());
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * 6_371_008.8 * h.sqrt().asin()
}

struct Graph {
    coords: Vec<[f64; 2]>,
    /// (to, seconds, metres)
    arcs: Vec<Vec<(u32, f64, f64)>>,
    /// Nodes on residential-class roads: where trips are picked from.
    ends: Vec<u32>,
}

fn build(path: &Path) -> Graph {
    let mut ways: Vec<(Vec<i64>, f64, i8, bool)> = Vec::new();
    read_elements(path, |element| {
        let Element::Way(way) = element else { return };
        let Some(highway) = tag(&way.tags, "highway") else { return };
        let Some(default) = speed(highway) else { return };
        if ["access", "motor_vehicle", "motorcar"].iter().any(|key| tag(&way.tags, key) == Some("no")) {
            return;
        }
        let kmh = tag(&way.tags, "maxspeed")
            .and_then(|value| {
                let (number, factor) = match value.strip_suffix("mph") {
                    Some(number) => (number.trim(), 1.609),
                    None => (value.trim(), 1.0),
                };
                number.parse::<f64>().ok().map(|number| number * factor * 0.8)
            })
            .unwrap_or(default);
        let oneway = match tag(&way.tags, "oneway") {
            Some("yes" | "true" | "1") => 1,
            Some("-1") => -1,
            Some("no") => 0,
            _ if highway == "motorway" || tag(&way.tags, "junction") == Some("roundabout") => 1,
            _ => 0,
        };
        let residential = matches!(highway, "residential" | "unclassified" | "tertiary" | "secondary");
        ways.push((way.nodes, kmh, oneway, residential));
    })
    .expect("reads");
    let mut index: HashMap<i64, u32> = HashMap::new();
    for (nodes, ..) in &ways {
        for node in nodes {
            let next = index.len() as u32;
            index.entry(*node).or_insert(next);
        }
    }
    let mut coords = vec![[0.0; 2]; index.len()];
    read_elements(path, |element| {
        if let Element::Node(node) = element
            && let Some(&at) = index.get(&node.id)
        {
            coords[at as usize] = [node.lat, node.lng];
        }
    })
    .expect("reads");
    let mut arcs = vec![Vec::new(); coords.len()];
    let mut ends = Vec::new();
    for (nodes, kmh, oneway, residential) in &ways {
        for pair in nodes.windows(2) {
            let (a, b) = (index[&pair[0]], index[&pair[1]]);
            let metres = haversine(coords[a as usize], coords[b as usize]);
            let seconds = metres / (kmh / 3.6);
            if *oneway >= 0 {
                arcs[a as usize].push((b, seconds, metres));
            }
            if *oneway <= 0 {
                arcs[b as usize].push((a, seconds, metres));
            }
        }
        if *residential {
            ends.extend(nodes.iter().map(|node| index[node]));
        }
    }
    ends.sort();
    ends.dedup();
    Graph { coords, arcs, ends }
}

/// Fastest time and its length from `from` to `to`.
fn dijkstra(graph: &Graph, from: u32, to: u32) -> Option<(f64, f64)> {
    let mut best = vec![(f64::INFINITY, 0.0); graph.coords.len()];
    let mut heap = BinaryHeap::new();
    best[from as usize] = (0.0, 0.0);
    // Milliseconds as integers keep the heap ordered without float traits.
    heap.push(Reverse((0u64, from)));
    while let Some(Reverse((_, node))) = heap.pop() {
        if node == to {
            return Some(best[to as usize]);
        }
        let (time, length) = best[node as usize];
        for &(next, seconds, metres) in &graph.arcs[node as usize] {
            let candidate = time + seconds;
            if candidate < best[next as usize].0 {
                best[next as usize] = (candidate, length + metres);
                heap.push(Reverse(((candidate * 1000.0) as u64, next)));
            }
        }
    }
    None
}

fn main() {
    for name in ["baltimore.osm.pbf", "monaco.osm.pbf"] {
        let graph = build(&extract(name));
        let router = cache::prepare(&extract(name), |_, _, _| {}).expect("prepares");
        let mut state = 0x0DDB_1A5E_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut time_ratio = Vec::new();
        let mut length_ratio = Vec::new();
        let (mut both, mut only_ours, mut only_theirs, mut neither) = (0, 0, 0, 0);
        while both + only_ours + only_theirs + neither < 1000 {
            let a = graph.ends[(next() % graph.ends.len() as u64) as usize];
            let b = graph.ends[(next() % graph.ends.len() as u64) as usize];
            if a == b {
                continue;
            }
            let (pa, pb) = (graph.coords[a as usize], graph.coords[b as usize]);
            let ours = router.route(LatLng::new(pa[0], pa[1]), LatLng::new(pb[0], pb[1]));
            let theirs = dijkstra(&graph, a, b);
            match (ours, theirs) {
                (Some(ours), Some((seconds, metres))) if metres > 200.0 => {
                    both += 1;
                    time_ratio.push(ours.time_ms as f64 / 1000.0 / seconds - 1.0);
                    length_ratio.push(ours.length_m / metres - 1.0);
                }
                (Some(_), Some(_)) => neither += 1,
                (Some(_), None) => only_ours += 1,
                (None, Some(_)) => only_theirs += 1,
                (None, None) => neither += 1,
            }
        }
        let summary = |values: &mut Vec<f64>| {
            values.sort_by(f64::total_cmp);
            let at = |share: f64| values[((values.len() as f64 * share) as usize).min(values.len() - 1)] * 100.0;
            let within = |limit: f64| {
                values.iter().filter(|value| value.abs() <= limit).count() as f64 / values.len() as f64 * 100.0
            };
            format!(
                "median {:+.2} %, p5 {:+.2} %, p95 {:+.2} %, max {:+.1} %; within 1 %: {:.1} % of pairs, within 5 %: {:.1} %",
                at(0.5),
                at(0.05),
                at(0.95),
                at(1.0),
                within(0.01),
                within(0.05)
            )
        };
        println!(
            "{name}: {both} pairs routed by both (over 200 m), {only_ours} only by ours, {only_theirs} only by the reference, {neither} other"
        );
        println!("  time   ours vs reference: {}", summary(&mut time_ratio));
        println!("  length ours vs reference: {}", summary(&mut length_ratio));
    }
}
