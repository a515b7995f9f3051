//! Routing on road networks given as plain directed graphs (NREL HIVE,
//! OSMnx): a hand-made grid with hand-computed times, random graphs and
//! downtown Denver against a Dijkstra written here straight from the links,
//! so the network's turns are checked and not only the hierarchy.

use super::network::{GraphLink, Network, NetworkError, U_TURN_PENALTY_MS, metres};
use super::router::{Path, Router, Snap};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use wayfare_engine::LatLng;

/// One grid step: 0.001°, about 111 m.
const STEP: f64 = 0.001;

fn at(row: f64, column: f64) -> LatLng {
    LatLng::new(row * STEP, column * STEP)
}

fn link(from: usize, to: usize, length_m: f64, time_ms: u32) -> GraphLink {
    GraphLink { from, to, length_m, time_ms }
}

fn two_way(a: usize, b: usize, length_m: f64, time_ms: u32) -> [GraphLink; 2] {
    [link(a, b, length_m, time_ms), link(b, a, length_m, time_ms)]
}

/// Whether the route's line passes within 5 m of grid position (row, column).
fn passes(path: &Path, row: f64, column: f64) -> bool {
    path.points.iter().any(|point| metres(*point, [row * STEP, column * STEP]) < 5.0)
}

/// Nodes 0..9 on a 3 × 3 grid (node `3 × row + column`) and node 9 at
/// (1, -1), the end of a dead-end spur from node 3. Rows take 10 s and
/// 100 m, columns 12 s and 120 m, the spur 8 s and 80 m, all both ways but
/// the one-way 0 → 1 along row 0, which bends: 150 m drawn straight.
fn grid() -> (Vec<LatLng>, Vec<GraphLink>) {
    let mut nodes: Vec<LatLng> = (0..9).map(|node| at((node / 3) as f64, (node % 3) as f64)).collect();
    nodes.push(at(1.0, -1.0));
    let mut links = vec![link(0, 1, 150.0, 10_000)];
    links.extend(two_way(1, 2, 100.0, 10_000));
    for row in 1..3 {
        links.extend(two_way(3 * row, 3 * row + 1, 100.0, 10_000));
        links.extend(two_way(3 * row + 1, 3 * row + 2, 100.0, 10_000));
    }
    for row in 0..2 {
        for column in 0..3 {
            links.extend(two_way(3 * row + column, 3 * (row + 1) + column, 120.0, 12_000));
        }
    }
    links.extend(two_way(3, 9, 80.0, 8_000));
    (nodes, links)
}

fn grid_router() -> (Router, Vec<GraphLink>) {
    let (nodes, links) = grid();
    (Router::prepare(Network::from_graph(&nodes, &links).unwrap(), |_, _| {}), links)
}

/// A point `fraction` of the way along a link, as the router would snap it.
fn on_link(router: &Router, links: &[GraphLink], wanted: GraphLink, fraction: f64) -> Snap {
    let link_index = links.iter().position(|known| *known == wanted).expect("the link is in the graph");
    let segment = router.network().segments.iter().position(|segment| segment.way == link_index as i64).unwrap();
    let at_m = fraction * router.network().segments[segment].length_m;
    Snap { segment, at_m, point: router.network().point_at(segment, at_m), distance_m: 0.0 }
}

#[test]
fn a_point_on_a_link_is_its_share_of_the_links_own_length_and_time() {
    let (router, _) = grid_router();
    let snap = router.snap(at(0.0, 0.25)).unwrap();
    assert_eq!(router.network().segments[snap.segment].way, 0, "snapped onto the one-way");
    assert!((snap.at_m - 37.5).abs() < 0.01, "a quarter of 150 m, not of the 111 m drawn: {}", snap.at_m);
    let route = router.route(at(0.0, 0.25), at(0.0, 0.75)).unwrap();
    assert_eq!(route.time_ms, 5_000);
    assert!((route.length_m - 75.0).abs() < 0.11, "{}", route.length_m);
}

#[test]
fn a_oneway_link_is_never_driven_backwards() {
    let (router, _) = grid_router();
    // The rest of the one-way, down column 1, back along row 1, up column 0
    // and a quarter of the one-way again.
    let against = router.route(at(0.0, 0.75), at(0.0, 0.25)).unwrap();
    assert_eq!(against.time_ms, 2_500 + 12_000 + 10_000 + 12_000 + 2_500);
    assert!((against.length_m - (37.5 + 120.0 + 100.0 + 120.0 + 37.5)).abs() < 0.21, "{}", against.length_m);
    assert!(passes(&against, 1.0, 1.0) && passes(&against, 1.0, 0.0), "{:?}", against.points);
    let network = router.network();
    assert!((0..network.segments.len()).all(|segment| !network.may_drive(2 * segment as u32 + 1)));
    assert!(network.arcs().iter().all(|(from, to, _)| from % 2 == 0 && to % 2 == 0));
}

#[test]
fn a_dead_end_allows_a_u_turn_and_a_junction_does_not() {
    let (router, links) = grid_router();
    // Halfway to the spur's end, the U-turn there, and halfway back.
    let out = on_link(&router, &links, link(3, 9, 80.0, 8_000), 0.5);
    let back = on_link(&router, &links, link(9, 3, 80.0, 8_000), 0.5);
    assert_eq!(router.route_snaps(&out, &back).unwrap().time_ms, i64::from(4_000 + U_TURN_PENALTY_MS + 4_000));
    // Westwards along row 1 and back east: node 3 has other ways out, so
    // no U-turn there; the nearest is at the spur's end.
    let west = on_link(&router, &links, link(4, 3, 100.0, 10_000), 0.5);
    let east = on_link(&router, &links, link(3, 4, 100.0, 10_000), 0.5);
    let route = router.route_snaps(&west, &east).unwrap();
    assert_eq!(route.time_ms, i64::from(5_000 + 8_000 + U_TURN_PENALTY_MS + 8_000 + 5_000));
    assert!(passes(&route, 1.0, -1.0), "{:?}", route.points);
}

#[test]
fn a_link_of_zero_length_and_time_still_routes() {
    // A ring 0 → 1 → 2 → 3 → 4 → 0 where 1 → 2 joins two nodes at one spot
    // and the source rounded its time to nothing.
    let nodes = vec![at(0.0, 0.0), at(0.0, 1.0), at(0.0, 1.0), at(0.0, 2.0), at(1.0, 1.0)];
    let links = vec![
        link(0, 1, 100.0, 10_000),
        link(1, 2, 0.0, 0),
        link(2, 3, 100.0, 10_000),
        link(3, 4, 150.0, 15_000),
        link(4, 0, 150.0, 15_000),
    ];
    let network = Network::from_graph(&nodes, &links).unwrap();
    assert_eq!((network.segments[1].length_m, network.segments[1].time_ms()), (0.1, 1));
    let router = Router::prepare(network, |_, _| {});
    assert_eq!(router.route(at(0.0, 0.5), at(0.0, 1.5)).unwrap().time_ms, 5_000 + 1 + 5_000);
}

#[test]
fn loops_are_left_out_and_a_graph_of_only_loops_has_no_roads() {
    let nodes = vec![at(0.0, 0.0), at(0.0, 1.0)];
    let network = Network::from_graph(&nodes, &[link(0, 0, 50.0, 5_000), link(0, 1, 100.0, 10_000)]).unwrap();
    assert_eq!(network.segments.len(), 1);
    assert_eq!(network.segments[0].way, 1);
    assert!(matches!(Network::from_graph(&nodes, &[link(1, 1, 50.0, 5_000)]), Err(NetworkError::NoRoads(_))));
    assert!(matches!(
        Network::from_graph(&nodes, &[link(0, 2, 50.0, 5_000)]),
        Err(NetworkError::UnknownNode { link: 0, node: 2, nodes: 2 })
    ));
    assert!(matches!(
        Network::from_graph(&nodes, &[link(0, 1, f64::NAN, 5_000)]),
        Err(NetworkError::BadLength { link: 0, .. })
    ));
}

/// The time [`Router::route_snaps`] should answer, worked out from the links
/// alone: a car is always on a link, turns onto any link leaving the node
/// it reaches, but back to the node it came from only where nothing else
/// leaves (and then pays [`U_TURN_PENALTY_MS`]); loops are not roads.
fn time_by_links(links: &[GraphLink], start: (usize, f64), end: (usize, f64)) -> Option<i64> {
    let time = |link: usize| i64::from(links[link].time_ms.max(1));
    let part = |link: usize, fraction: f64| (time(link) as f64 * fraction).round() as i64;
    let mut leaving: HashMap<usize, Vec<usize>> = HashMap::new();
    for (index, road) in links.iter().enumerate().filter(|(_, road)| road.from != road.to) {
        leaving.entry(road.from).or_default().push(index);
    }
    let turns = |from: usize| {
        let here = leaving.get(&links[from].to).map(Vec::as_slice).unwrap_or_default();
        let back = |next: usize| links[next].to == links[from].from;
        let dead_end = here.iter().all(|&next| back(next));
        here.iter()
            .filter(move |&&next| !back(next) || dead_end)
            .map(move |&next| (next, if back(next) { i64::from(U_TURN_PENALTY_MS) } else { 0 }))
            .collect::<Vec<_>>()
    };
    let direct = (start.0 == end.0 && end.1 >= start.1).then(|| part(start.0, end.1 - start.1));
    // Times on reaching the start of each link, having left the first.
    let mut best: HashMap<usize, i64> = HashMap::new();
    let mut heap = BinaryHeap::new();
    let leave_first = time(start.0) - part(start.0, start.1);
    for (next, penalty) in turns(start.0) {
        let reached = leave_first + penalty;
        if best.get(&next).is_none_or(|known| reached < *known) {
            best.insert(next, reached);
            heap.push(Reverse((reached, next)));
        }
    }
    while let Some(Reverse((reached, road))) = heap.pop() {
        if best[&road] < reached {
            continue;
        }
        for (next, penalty) in turns(road) {
            let candidate = reached + time(road) + penalty;
            if best.get(&next).is_none_or(|known| candidate < *known) {
                best.insert(next, candidate);
                heap.push(Reverse((candidate, next)));
            }
        }
    }
    let around = best.get(&end.0).map(|reached| reached + part(end.0, end.1));
    match (direct, around) {
        (Some(direct), Some(around)) => Some(direct.min(around)),
        (direct, around) => direct.or(around),
    }
}

/// A snap as (link index, share of the link behind it).
fn on_links(router: &Router, snap: &Snap) -> (usize, f64) {
    let segment = &router.network().segments[snap.segment];
    (segment.way as usize, (snap.at_m / segment.length_m).clamp(0.0, 1.0))
}

/// Routes between the points agree with plain Dijkstra on the prepared
/// arcs and with [`time_by_links`]; returns how many were joined by road.
fn routes_agree(router: &Router, links: &[GraphLink], pairs: &[(LatLng, LatLng)]) -> usize {
    let mut routed = 0;
    for &(from, to) in pairs {
        let (start, end) = (router.snap(from).unwrap(), router.snap(to).unwrap());
        let expected = time_by_links(links, on_links(router, &start), on_links(router, &end));
        let found = router.route(from, to);
        let by_dijkstra = router.route_by_dijkstra(from, to);
        assert_eq!(found.as_ref().map(|path| path.time_ms), expected, "{from:?} → {to:?}");
        assert_eq!(by_dijkstra.map(|total| total.time_ms), expected, "{from:?} → {to:?}");
        if let (Some(found), Some(by_dijkstra)) = (found, by_dijkstra) {
            assert!((found.length_m - by_dijkstra.length_dm as f64 / 10.0).abs() < 0.5, "{from:?} → {to:?}");
            routed += 1;
        }
    }
    routed
}

/// splitmix64, as a number in 0..1.
fn generator(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    }
}

/// A jittered 18 × 18 grid: most streets two-way, some one-way, some
/// missing (leaving dead ends), lengths longer than the straight line, a
/// few links of zero length or time, a few loops, and some long links
/// across the grid as a bypass would be.
fn random_graph(seed: u64) -> (Vec<LatLng>, Vec<GraphLink>) {
    const SIDE: usize = 18;
    let mut random = generator(seed);
    let nodes: Vec<LatLng> = (0..SIDE * SIDE)
        .map(|node| at((node / SIDE) as f64 + random() * 0.4, (node % SIDE) as f64 + random() * 0.4))
        .collect();
    let road = |from: usize, to: usize, random: &mut dyn FnMut() -> f64| {
        let straight = metres([nodes[from].lat, nodes[from].lng], [nodes[to].lat, nodes[to].lng]);
        let length_m = if random() < 0.03 { 0.0 } else { straight * (1.0 + random() * 0.5) };
        let metres_per_second = 5.0 + random() * 15.0;
        let time_ms = if random() < 0.03 { 0 } else { (length_m / metres_per_second * 1000.0).round() as u32 };
        link(from, to, length_m, time_ms)
    };
    let mut links = Vec::new();
    for node in 0..SIDE * SIDE {
        let (row, column) = (node / SIDE, node % SIDE);
        let neighbours = [(column + 1 < SIDE).then_some(node + 1), (row + 1 < SIDE).then_some(node + SIDE)];
        for neighbour in neighbours.into_iter().flatten() {
            let kind = random();
            if kind < 0.1 {
                continue;
            } else if kind < 0.3 {
                let (from, to) = if random() < 0.5 { (node, neighbour) } else { (neighbour, node) };
                links.push(road(from, to, &mut random));
            } else {
                links.push(road(node, neighbour, &mut random));
                links.push(road(neighbour, node, &mut random));
            }
        }
    }
    for _ in 0..15 {
        let pick = |random: &mut dyn FnMut() -> f64| ((random() * nodes.len() as f64) as usize).min(nodes.len() - 1);
        let (from, to) = (pick(&mut random), pick(&mut random));
        links.push(road(from, to, &mut random));
    }
    for _ in 0..5 {
        let node = ((random() * nodes.len() as f64) as usize).min(nodes.len() - 1);
        links.push(link(node, node, 30.0, 3_000));
    }
    (nodes, links)
}

#[test]
fn on_random_graphs_routes_between_nodes_take_the_time_the_links_add_up_to() {
    for seed in 1..=4 {
        let (nodes, links) = random_graph(seed);
        let router = Router::prepare(Network::from_graph(&nodes, &links).unwrap(), |_, _| {});
        let network = router.network();
        // Every arc joins a link's end to the start of the next, forwards.
        for (from, to, _) in network.arcs() {
            let (from_link, to_link) =
                (network.segments[from as usize / 2].way as usize, network.segments[to as usize / 2].way as usize);
            assert!(from % 2 == 0 && to % 2 == 0 && links[from_link].to == links[to_link].from);
        }
        let mut random = generator(seed + 100);
        let mut pick = || nodes[((random() * nodes.len() as f64) as usize).min(nodes.len() - 1)];
        // Half the points on nodes, half a few tens of metres off them.
        let pairs: Vec<(LatLng, LatLng)> = (0..120)
            .map(|index| {
                let (from, to) = (pick(), pick());
                if index % 2 == 0 {
                    (from, to)
                } else {
                    let off = |point: LatLng| LatLng::new(point.lat + 0.0002, point.lng + 0.0001);
                    (off(from), off(to))
                }
            })
            .collect();
        let routed = routes_agree(&router, &links, &pairs);
        assert!(routed >= 100, "seed {seed}: only {routed} of 120 routed");
    }
}

#[derive(serde::Deserialize)]
struct HiveNetwork {
    nodes: Vec<HiveNode>,
    links: Vec<HiveLink>,
}

#[derive(serde::Deserialize)]
struct HiveNode {
    id: i64,
    x: f64,
    y: f64,
}

#[derive(serde::Deserialize)]
struct HiveLink {
    source: i64,
    target: i64,
    length: f64,
    travel_time: f64,
}

#[test]
fn downtown_denver_from_hive_routes_between_its_nodes_as_dijkstra_does() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/hive/denver_downtown/downtown_denver_network.json");
    let hive: HiveNetwork = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let index: HashMap<i64, usize> = hive.nodes.iter().enumerate().map(|(index, node)| (node.id, index)).collect();
    let nodes: Vec<LatLng> = hive.nodes.iter().map(|node| LatLng::new(node.y, node.x)).collect();
    let links: Vec<GraphLink> = hive
        .links
        .iter()
        .map(|road| {
            link(index[&road.source], index[&road.target], road.length, (road.travel_time * 1000.0).round() as u32)
        })
        .collect();
    let router = Router::prepare(Network::from_graph(&nodes, &links).unwrap(), |_, _| {});
    assert_eq!(router.network().segments.len(), links.len());
    let mut random = generator(16);
    let mut pick = || nodes[((random() * nodes.len() as f64) as usize).min(nodes.len() - 1)];
    let pairs: Vec<(LatLng, LatLng)> = (0..60).map(|_| (pick(), pick())).collect();
    assert_eq!(routes_agree(&router, &links, &pairs), pairs.len(), "every node reaches every other");
}
