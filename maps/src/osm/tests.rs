//! Routing scenarios in the manner of OSRM's car feature tests: small
//! synthetic extracts written here as `.osm` XML, then the same checks on
//! the real Monaco and Baltimore extracts against plain Dijkstra.

use super::cache;
use super::ch::Total;
use super::network::metres;
use super::router::{Destination, Path, Router, Snap};
use std::fmt::Write as _;
use std::io::Write as _;
use wayfare_engine::LatLng;

/// One grid step: 0.001° of latitude, about 111 m.
const STEP: f64 = 0.001;

type TagList = Vec<(String, String)>;
/// (kind, id, role)
type Members = Vec<(&'static str, i64, &'static str)>;

#[derive(Default)]
struct Extract {
    nodes: Vec<(i64, f64, f64)>,
    node_tags: std::collections::HashMap<i64, TagList>,
    ways: Vec<(i64, Vec<i64>, TagList)>,
    relations: Vec<(i64, Members, TagList)>,
}

fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(key, value)| ((*key).to_owned(), (*value).to_owned())).collect()
}

impl Extract {
    /// A node at grid position (row, column).
    fn node(&mut self, id: i64, row: f64, column: f64) -> &mut Self {
        self.nodes.push((id, row * STEP, column * STEP));
        self
    }

    fn tagged_node(&mut self, id: i64, row: f64, column: f64, pairs: &[(&str, &str)]) -> &mut Self {
        self.node_tags.insert(id, tags(pairs));
        self.node(id, row, column)
    }

    fn way(&mut self, id: i64, nodes: &[i64], pairs: &[(&str, &str)]) -> &mut Self {
        self.ways.push((id, nodes.to_vec(), tags(pairs)));
        self
    }

    fn restriction(&mut self, id: i64, from: i64, via: i64, to: i64, kind: &str) -> &mut Self {
        let members = vec![("way", from, "from"), ("node", via, "via"), ("way", to, "to")];
        self.relations.push((id, members, tags(&[("type", "restriction"), ("restriction", kind)])));
        self
    }

    fn router(&self) -> Router {
        let file = self.file();
        cache::prepare(file.path(), |_, _, _| {}).unwrap()
    }

    fn relation(&mut self, id: i64, members: Members, pairs: &[(&str, &str)]) -> &mut Self {
        self.relations.push((id, members, tags(pairs)));
        self
    }

    /// The extract as an `.osm` file.
    fn file(&self) -> tempfile::NamedTempFile {
        let mut xml = String::from("<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6'>\n");
        let write_tags = |xml: &mut String, pairs: &[(String, String)]| {
            for (key, value) in pairs {
                writeln!(xml, "    <tag k='{key}' v='{value}'/>").unwrap();
            }
        };
        for (id, lat, lng) in &self.nodes {
            match self.node_tags.get(id) {
                Some(pairs) => {
                    writeln!(xml, "  <node id='{id}' lat='{lat}' lon='{lng}'>").unwrap();
                    write_tags(&mut xml, pairs);
                    xml.push_str("  </node>\n");
                }
                None => writeln!(xml, "  <node id='{id}' lat='{lat}' lon='{lng}'/>").unwrap(),
            }
        }
        for (id, nodes, pairs) in &self.ways {
            writeln!(xml, "  <way id='{id}'>").unwrap();
            for node in nodes {
                writeln!(xml, "    <nd ref='{node}'/>").unwrap();
            }
            write_tags(&mut xml, pairs);
            xml.push_str("  </way>\n");
        }
        for (id, members, pairs) in &self.relations {
            writeln!(xml, "  <relation id='{id}'>").unwrap();
            for (kind, reference, role) in members {
                writeln!(xml, "    <member type='{kind}' ref='{reference}' role='{role}'/>").unwrap();
            }
            write_tags(&mut xml, pairs);
            xml.push_str("  </relation>\n");
        }
        xml.push_str("</osm>\n");
        let mut file = tempfile::Builder::new().suffix(".osm").tempfile().unwrap();
        file.write_all(xml.as_bytes()).unwrap();
        file
    }
}

fn at(row: f64, column: f64) -> LatLng {
    LatLng::new(row * STEP, column * STEP)
}

/// Whether the route's line passes within 5 m of grid position (row, column).
fn passes(path: &Path, row: f64, column: f64) -> bool {
    path.points.iter().any(|point| metres(*point, [row * STEP, column * STEP]) < 5.0)
}

const ROAD: (&str, &str) = ("highway", "residential");

#[test]
fn a_oneway_is_not_driven_backwards() {
    let mut extract = Extract::default();
    extract.node(1, 0.0, 0.0).node(2, 0.0, 1.0).node(3, 1.0, 1.0).node(4, 1.0, 0.0);
    extract.way(10, &[1, 2], &[ROAD, ("oneway", "yes")]).way(11, &[2, 3, 4, 1], &[ROAD]);
    let router = extract.router();
    // With the oneway: about 89 m.
    let along = router.route(at(0.0, 0.1), at(0.0, 0.9)).unwrap();
    assert!((along.length_m - 89.0).abs() < 2.0, "{}", along.length_m);
    assert!(!passes(&along, 1.0, 1.0));
    // Against it: round the block, about 11 + 3 × 111 + 11 m.
    let against = router.route(at(0.0, 0.9), at(0.0, 0.1)).unwrap();
    assert!(against.length_m > 340.0 && against.length_m < 370.0, "{}", against.length_m);
    assert!(passes(&against, 1.0, 1.0) && passes(&against, 1.0, 0.0));
}

#[test]
fn a_reversed_oneway_is_driven_against_its_nodes() {
    let mut extract = Extract::default();
    extract.node(1, 0.0, 0.0).node(2, 0.0, 1.0).node(3, 1.0, 1.0).node(4, 1.0, 0.0);
    extract.way(10, &[1, 2], &[ROAD, ("oneway", "-1")]).way(11, &[2, 3, 4, 1], &[ROAD]);
    let router = extract.router();
    assert!(router.route(at(0.0, 0.9), at(0.0, 0.1)).unwrap().length_m < 100.0);
    assert!(router.route(at(0.0, 0.1), at(0.0, 0.9)).unwrap().length_m > 340.0);
}

#[test]
fn a_roundabout_is_an_implied_oneway() {
    let mut extract = Extract::default();
    // A ring N → E → S → W → N (clockwise) with arms to the north and west.
    extract.node(1, 1.0, 0.0).node(2, 0.0, 1.0).node(3, -1.0, 0.0).node(4, 0.0, -1.0);
    extract.node(5, 3.0, 0.0).node(6, 0.0, -3.0);
    extract.way(10, &[1, 2, 3, 4, 1], &[("highway", "primary"), ("junction", "roundabout")]);
    extract.way(11, &[5, 1], &[ROAD]).way(12, &[6, 4], &[ROAD]);
    let router = extract.router();
    // From the north arm to the west arm: three quarters of the way round.
    let route = router.route(at(2.5, 0.0), at(0.0, -2.5)).unwrap();
    assert!(passes(&route, 0.0, 1.0) && passes(&route, -1.0, 0.0), "{:?}", route.points);
    // From the west arm to the north arm: a quarter.
    let back = router.route(at(0.0, -2.5), at(2.5, 0.0)).unwrap();
    assert!(!passes(&back, -1.0, 0.0) && !passes(&back, 0.0, 1.0));
}

/// A crossroads at (0, 0) with arms of two steps, and a road joining the
/// ends of the north and west arms and of the north and east arms.
fn crossroads() -> Extract {
    let mut extract = Extract::default();
    extract.node(1, 0.0, 0.0).node(2, -2.0, 0.0).node(3, 2.0, 0.0).node(4, 0.0, -2.0).node(5, 0.0, 2.0);
    extract.way(20, &[2, 1], &[ROAD]).way(21, &[1, 3], &[ROAD]).way(22, &[1, 4], &[ROAD]).way(23, &[1, 5], &[ROAD]);
    extract.way(24, &[3, 4], &[ROAD]).way(25, &[3, 5], &[ROAD]);
    extract
}

#[test]
fn a_no_left_turn_is_obeyed() {
    let from_south = at(-1.0, 0.0);
    let to_west = at(0.0, -1.0);
    let free = crossroads().router().route(from_south, to_west).unwrap();
    assert!(!passes(&free, 2.0, 0.0), "without the restriction the turn is taken");
    let mut restricted = crossroads();
    restricted.restriction(90, 20, 1, 22, "no_left_turn");
    let route = restricted.router().route(from_south, to_west).unwrap();
    // North, along the diagonal to the west arm's end, and back along it.
    assert!(passes(&route, 2.0, 0.0) && passes(&route, 0.0, -2.0), "{:?}", route.points);
    // The restriction binds only that turn: east is still a right turn away.
    assert!(!passes(&restricted.router().route(from_south, at(0.0, 1.0)).unwrap(), 2.0, 0.0));
}

#[test]
fn an_only_straight_on_forbids_every_other_turn() {
    let mut extract = crossroads();
    extract.restriction(91, 20, 1, 21, "only_straight_on");
    let router = extract.router();
    let to_east = router.route(at(-1.0, 0.0), at(0.0, 1.0)).unwrap();
    assert!(passes(&to_east, 2.0, 0.0) && passes(&to_east, 0.0, 2.0), "{:?}", to_east.points);
    // Coming from the west, the same junction turns freely.
    assert!(!passes(&router.route(at(0.0, -1.0), at(0.0, 1.0)).unwrap(), 2.0, 0.0));
}

#[test]
fn a_private_road_is_used_only_to_reach_a_place_on_it() {
    let mut extract = Extract::default();
    // A private road A–B straight across, and a public one round by row 3.
    extract
        .node(1, 0.0, 0.0)
        .node(2, 0.0, 4.0)
        .node(3, 3.0, 0.0)
        .node(4, 3.0, 4.0)
        .node(5, -1.0, 0.0)
        .node(6, -1.0, 4.0);
    extract.way(30, &[1, 2], &[ROAD, ("access", "private")]);
    extract.way(31, &[5, 1, 3, 4, 2, 6], &[ROAD]);
    let router = extract.router();
    let across = router.route(at(-0.5, 0.0), at(-0.5, 4.0)).unwrap();
    assert!(
        passes(&across, 3.0, 2.0) || across.points.iter().any(|point| point[0] > 2.9 * STEP),
        "{:?}",
        across.points
    );
    // The reported time has no penalty in it: 1,000 m or so at 25 km/h.
    assert!(across.time_ms < 200_000, "{}", across.time_ms);
    let onto = router.route(at(-0.5, 0.0), at(0.0, 2.0)).unwrap();
    assert!(onto.length_m < 300.0, "{}", onto.length_m);
}

#[test]
fn maxspeed_changes_the_chosen_route() {
    let build = |north_limit: &str, south_limit: &str| {
        let mut extract = Extract::default();
        extract
            .node(1, 0.0, 0.0)
            .node(2, 0.0, 4.0)
            .node(3, 1.0, 0.0)
            .node(4, 1.0, 4.0)
            .node(5, -1.0, 0.0)
            .node(6, -1.0, 4.0);
        extract.node(7, 0.0, -1.0).node(8, 0.0, 5.0);
        extract.way(40, &[7, 1], &[ROAD]).way(41, &[2, 8], &[ROAD]);
        extract.way(42, &[1, 3, 4, 2], &[ROAD, ("maxspeed", north_limit)]);
        extract.way(43, &[1, 5, 6, 2], &[ROAD, ("maxspeed", south_limit)]);
        extract.router()
    };
    let (from, to) = (at(0.0, -0.5), at(0.0, 4.5));
    let north_slow = build("10", "50").route(from, to).unwrap();
    assert!(passes(&north_slow, -1.0, 2.0) || north_slow.points.iter().any(|point| point[0] < -0.9 * STEP));
    let south_slow = build("50", "10").route(from, to).unwrap();
    assert!(south_slow.points.iter().any(|point| point[0] > 0.9 * STEP));
    assert!(south_slow.time_ms < build("10", "10").route(from, to).unwrap().time_ms);
}

#[test]
fn a_disconnected_island_has_no_route() {
    let mut extract = Extract::default();
    extract.node(1, 0.0, 0.0).node(2, 0.0, 2.0).node(3, 20.0, 20.0).node(4, 20.0, 22.0);
    extract.way(50, &[1, 2], &[ROAD]).way(51, &[3, 4], &[ROAD]);
    let router = extract.router();
    assert_eq!(router.route(at(0.0, 0.5), at(20.0, 21.0)), None);
    assert!(router.route(at(0.0, 0.5), at(0.0, 1.5)).is_some());
    let matrix = router.matrix(&[at(0.0, 0.5)], &[at(20.0, 21.0), at(0.0, 1.5)]);
    assert!(matrix[0][0].is_none() && matrix[0][1].is_some());
}

#[test]
fn start_and_end_on_one_road_in_and_against_its_direction() {
    let mut extract = Extract::default();
    extract.node(1, 0.0, 0.0).node(2, 0.0, 4.0);
    extract.way(60, &[1, 2], &[ROAD]);
    let router = extract.router();
    let forward = router.route(at(0.0, 1.0), at(0.0, 3.0)).unwrap();
    let backward = router.route(at(0.0, 3.0), at(0.0, 1.0)).unwrap();
    assert!((forward.length_m - 2.0 * 111.2).abs() < 2.0, "{}", forward.length_m);
    assert!((forward.length_m - backward.length_m).abs() < 0.5);
    assert_eq!(forward.points.first().map(|point| (point[1] / STEP).round()), Some(1.0));
    assert_eq!(forward.points.last().map(|point| (point[1] / STEP).round()), Some(3.0));
}

fn repo_file(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// `count` reproducible random points within about 20 m of a road of the
/// main network, as a rider's tap or a driver's position is.
fn random_points(router: &Router, count: usize, seed: u64) -> Vec<LatLng> {
    let network = router.network();
    let main: Vec<usize> = (0..network.segments.len()).filter(|segment| network.on_main_network(*segment)).collect();
    let mut state = seed;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    };
    (0..count)
        .map(|_| {
            let segment = main[((next() * main.len() as f64) as usize).min(main.len() - 1)];
            let point = network.point_at(segment, next() * network.segments[segment].length_m);
            // Up to 0.0002° (about 20 m) off the road.
            LatLng::new(point[0] + (next() - 0.5) * 0.0004, point[1] + (next() - 0.5) * 0.0004)
        })
        .collect()
}

fn agrees_with_dijkstra(extract: &str, pairs: usize) {
    let router = cache::prepare(&repo_file(extract), |_, _, _| {}).unwrap();
    let points = random_points(&router, pairs * 2, 7);
    let mut routed = 0;
    for pair in points.chunks(2) {
        let reference = router.route_by_dijkstra(pair[0], pair[1]);
        let found = router.route(pair[0], pair[1]);
        assert_eq!(found.is_some(), reference.is_some(), "{extract}: {pair:?}");
        // The totals alone (no path drawn) are the route's.
        let (start, end) = (router.snap(pair[0]), router.snap(pair[1]));
        let totals = start.zip(end).and_then(|(start, end)| router.totals_snaps(&start, &end));
        assert_eq!(totals.map(|total| total.time_ms), found.as_ref().map(|path| path.time_ms), "{extract}: {pair:?}");
        // And so are they to the end prepared as a destination, alone or
        // with the other ends of the run.
        let prepared = start.zip(end).and_then(|(start, end)| router.totals_to(&start, &router.destination(&end)));
        assert_eq!(prepared, totals, "{extract}: {pair:?}");
        if let Some(start) = start {
            let ends: Vec<Snap> =
                points.iter().step_by(2).skip(1).take(6).filter_map(|point| router.snap(*point)).collect();
            let destinations: Vec<Destination> = end.iter().chain(&ends).map(|end| router.destination(end)).collect();
            let destinations: Vec<&Destination> = destinations.iter().collect();
            let alone: Vec<Option<Total>> =
                destinations.iter().map(|destination| router.totals_to(&start, destination)).collect();
            assert_eq!(router.totals_to_many(&start, &destinations), alone, "{extract}: {pair:?}");
            // From the start prepared as an origin, each is the same, total for total.
            let origin = router.origin(&start);
            let between: Vec<Option<Total>> =
                destinations.iter().map(|destination| router.totals_between(&origin, destination)).collect();
            assert_eq!(between, alone, "{extract}: {pair:?}");
        }
        let (Some(found), Some(reference)) = (found, reference) else { continue };
        routed += 1;
        assert_eq!(found.time_ms, reference.time_ms, "{extract}: {pair:?}");
        assert!((found.length_m - reference.length_dm as f64 / 10.0).abs() < 0.5, "{extract}: {pair:?}");
        // The line follows the roads: each step's middle is on a road, and
        // the steps add up to the length answered.
        let mut drawn = 0.0;
        for step in found.points.windows(2) {
            drawn += metres(step[0], step[1]);
            let middle = LatLng::new((step[0][0] + step[1][0]) / 2.0, (step[0][1] + step[1][1]) / 2.0);
            let off = router.distance_to_road(middle).unwrap();
            assert!(off < 1.0, "{extract}: a step leaves the road by {off} m");
        }
        assert!(
            (drawn - found.length_m).abs() <= found.length_m * 0.01 + 1.0,
            "{extract}: drawn {drawn} vs {}",
            found.length_m
        );
    }
    // Points near the main network are all joined by road.
    assert!(routed * 100 >= pairs * 99, "{extract}: only {routed} of {pairs} routed");
    // The matrix answers what single routes answer.
    let origins = &points[..10];
    let destinations = &points[10..20];
    let matrix = router.matrix(origins, destinations);
    for (row, origin) in origins.iter().enumerate() {
        for (column, destination) in destinations.iter().enumerate() {
            let single = router.route(*origin, *destination).map(|path| path.time_ms);
            assert_eq!(matrix[row][column].map(|total| total.time_ms), single, "{extract}: {row}, {column}");
        }
    }
}

#[test]
fn on_monaco_the_hierarchy_agrees_with_dijkstra() {
    agrees_with_dijkstra("data/monaco.osm.pbf", 1000);
}

#[test]
fn on_baltimore_the_hierarchy_agrees_with_dijkstra() {
    agrees_with_dijkstra("data/baltimore.osm.pbf", 1000);
}

/// Issue #39: the bucket search (flat buckets, stalling in both directions)
/// answers every cell as a one-to-one search does, and as plain Dijkstra.
#[test]
fn on_baltimore_a_large_matrix_answers_what_single_routes_answer() {
    let router = cache::prepare(&repo_file("data/baltimore.osm.pbf"), |_, _, _| {}).unwrap();
    let points = random_points(&router, 120, 39);
    let (origins, destinations) = points.split_at(60);
    let matrix = router.matrix(origins, destinations);
    assert_eq!(matrix.len(), origins.len());
    let mut routed = 0;
    for (row, origin) in origins.iter().enumerate() {
        assert_eq!(matrix[row].len(), destinations.len());
        let start = router.snap(*origin).unwrap();
        for (column, destination) in destinations.iter().enumerate() {
            let end = router.snap(*destination).unwrap();
            let single = router.totals_snaps(&start, &end);
            let cell = matrix[row][column];
            assert_eq!(cell.map(|total| total.weight), single.map(|total| total.weight), "{row}, {column}");
            assert_eq!(cell.map(|total| total.time_ms), single.map(|total| total.time_ms), "{row}, {column}");
            routed += usize::from(cell.is_some());
            if row == column || (row * 7 + column) % 97 == 0 {
                let reference = router.route_by_dijkstra(*origin, *destination);
                assert_eq!(cell.map(|total| total.weight), reference.map(|total| total.weight), "{row}, {column}");
            }
        }
    }
    assert!(routed * 100 >= 60 * 60 * 98, "only {routed} cells routed");
}

#[test]
fn the_prepared_map_is_cached_by_content_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let extract = repo_file("data/monaco.osm.pbf");
    let (first, origin) = cache::load_or_prepare(&extract, dir.path(), |_, _, _| {}).unwrap();
    assert_eq!(origin, cache::Origin::Prepared);
    let (second, origin) = cache::load_or_prepare(&extract, dir.path(), |_, _, _| {}).unwrap();
    assert_eq!(origin, cache::Origin::Cached);
    let points = random_points(&first.router, 20, 3);
    for pair in points.chunks(2) {
        assert_eq!(first.router.route(pair[0], pair[1]), second.router.route(pair[0], pair[1]));
    }
    assert_eq!(first.places.entries, second.places.entries);
}

fn baltimore_places() -> &'static super::geocode::PlaceIndex {
    static INDEX: std::sync::OnceLock<super::geocode::PlaceIndex> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| super::geocode::PlaceIndex::from_file(&repo_file("data/baltimore.osm.pbf")).unwrap())
}

fn first_name(query: &str) -> Option<String> {
    let near = Some(LatLng::new(39.285, -76.58));
    baltimore_places().search(query, near, None).first().map(|(_, entry)| entry.name.clone())
}

#[test]
fn an_address_a_place_an_intersection_and_a_misspelt_street_are_found() {
    assert_eq!(first_name("2006 Fleet St").as_deref(), Some("2006 Fleet Street"));
    assert_eq!(first_name("Max's on Broadway").as_deref(), Some("Max's on Broadway"));
    assert_eq!(first_name("maxs broadw").as_deref(), Some("Max's on Broadway"));
    assert_eq!(first_name("Fleet St & S East Ave").as_deref(), Some("Fleet Street & South East Avenue"));
    assert_eq!(first_name("Danvile Avenue").as_deref(), Some("Danville Avenue"));
    // Typed so far, with the last word cut short.
    assert_eq!(first_name("Patapsco Av").as_deref(), Some("Patapsco Avenue"));
    assert_eq!(first_name("zzzz qqqq"), None);
}

#[test]
fn the_country_restriction_uses_the_extracts_country() {
    let places = baltimore_places();
    assert_eq!(places.country.as_deref(), Some("US"));
    assert!(!places.search("Fleet Street", None, Some("us")).is_empty());
    assert!(places.search("Fleet Street", None, Some("fr")).is_empty());
}

#[test]
fn among_equal_matches_the_nearest_to_the_focus_comes_first() {
    let places = baltimore_places();
    // Streets crossing Eastern Avenue: from the east end and the west end.
    let east = places.search("Eastern Avenue &", Some(LatLng::new(39.288, -76.53)), None);
    let west = places.search("Eastern Avenue &", Some(LatLng::new(39.284, -76.60)), None);
    assert!(east[0].1.lng > west[0].1.lng, "{:?} vs {:?}", east[0].1, west[0].1);
}

#[test]
fn reverse_lookups_land_within_fifty_metres() {
    let places = baltimore_places();
    let addresses: Vec<_> =
        places.entries.iter().filter(|entry| entry.kind == super::geocode::EntryKind::Address).collect();
    for entry in addresses.iter().step_by(37) {
        // 10 m north-east of the address point.
        let point = LatLng::new(entry.lat + 0.00006, entry.lng + 0.00008);
        let (found, distance) = places.nearest_address(point, 50.0).unwrap();
        assert!(distance <= 50.0);
        assert!(metres([found.lat, found.lng], [point.lat, point.lng]) <= 50.0, "{found:?}");
    }
}

#[test]
fn the_provider_suggests_resolves_and_names_places_on_the_map() {
    use crate::maps_provider::MapsProvider;
    use crate::test_support::at_once;
    let cache = tempfile::tempdir().unwrap();
    let (prepared, _) =
        cache::load_or_prepare(&repo_file("data/baltimore.osm.pbf"), cache.path(), |_, _, _| {}).unwrap();
    let provider = super::osm_provider::OsmProvider::new(prepared, &crate::Gazetteer::baltimore());
    // A curated landmark first, then the extract's own entries.
    let harbour = at_once(provider.autocomplete("Inner Harbor", None, None)).unwrap();
    assert_eq!(harbour[0].main_text, "Inner Harbor");
    let fleet = at_once(provider.autocomplete("2006 Fleet St", None, Some("us"))).unwrap();
    let first =
        fleet.iter().find(|suggestion| suggestion.main_text == "2006 Fleet Street").expect("the address is suggested");
    assert!(first.place_id.starts_with("osm:"));
    let details = at_once(provider.place(&first.place_id)).unwrap();
    assert!((details.lat - 39.2849).abs() < 0.001 && (details.lng + 76.5884).abs() < 0.001, "{details:?}");
    assert_eq!(details.address, "2006 Fleet Street, Baltimore, MD 21231");
    // Reverse: an address point answers that address.
    assert_eq!(at_once(provider.reverse(details.point())).unwrap(), details.address);
    assert!(matches!(at_once(provider.place("osm:99999999")), Err(crate::MapsError::UnknownPlace)));
}

/// Points every `step_m` metres along a line.
fn along_line(line: &[[f64; 2]], step_m: f64) -> Vec<[f64; 2]> {
    let mut out = vec![line[0]];
    let mut carried = 0.0;
    for pair in line.windows(2) {
        let length = metres(pair[0], pair[1]);
        let mut at = step_m - carried;
        while at < length {
            let fraction = at / length;
            out.push([
                pair[0][0] + (pair[1][0] - pair[0][0]) * fraction,
                pair[0][1] + (pair[1][1] - pair[0][1]) * fraction,
            ]);
            at += step_m;
        }
        carried = (carried + length) % step_m;
    }
    out.push(*line.last().unwrap());
    out
}

#[test]
fn noisy_tracks_match_to_within_three_percent_of_the_road_distance() {
    let router = cache::prepare(&repo_file("data/baltimore.osm.pbf"), |_, _, _| {}).unwrap();
    let points = random_points(&router, 200, 11);
    let mut state = 42u64;
    let mut uniform = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut checked = 0;
    for pair in points.chunks(2) {
        let Some(truth) = router.route(pair[0], pair[1]) else { continue };
        if truth.length_m < 1000.0 {
            continue;
        }
        // A fix every 25 m (a car at 45 km/h, every 2 s), off by 10–20 m.
        let track: Vec<LatLng> = along_line(&truth.points, 25.0)
            .into_iter()
            .map(|point| {
                let noise_m = 10.0 + 10.0 * uniform();
                let angle = uniform() * std::f64::consts::TAU;
                let (north, east) = (noise_m * angle.sin(), noise_m * angle.cos());
                LatLng::new(point[0] + north / 111_320.0, point[1] + east / (111_320.0 * point[0].to_radians().cos()))
            })
            .collect();
        let matched = router.match_track(&track).unwrap();
        let error = (matched.length_m - truth.length_m).abs() / truth.length_m;
        assert!(error <= 0.03, "matched {:.0} m for a {:.0} m route", matched.length_m, truth.length_m);
        // Straight lines between the fixes would be far off.
        let naive: f64 = track.windows(2).map(|w| metres([w[0].lat, w[0].lng], [w[1].lat, w[1].lng])).sum();
        assert!(naive > truth.length_m * 1.1, "the noise is real: {naive:.0} vs {:.0}", truth.length_m);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} routes over 1 km");
}

// ---- the basemap

#[test]
fn the_basemap_reads_lakes_with_islands_coasts_bridges_and_names() {
    use super::basemap::{BRIDGE, Basemap, Geometry, Layer, signed_area};
    let mut extract = Extract::default();
    // A lake (a multipolygon of two outer ways) with an island in it.
    extract.node(1, 0.0, 0.0).node(2, 0.0, 4.0).node(3, 4.0, 4.0).node(4, 4.0, 0.0);
    extract.node(5, 1.0, 1.0).node(6, 1.0, 2.0).node(7, 2.0, 2.0).node(8, 2.0, 1.0);
    extract.way(20, &[1, 2, 3], &[]).way(21, &[3, 4, 1], &[]).way(22, &[5, 6, 7, 8, 5], &[]);
    extract.relation(
        30,
        vec![("way", 20, "outer"), ("way", 21, "outer"), ("way", 22, "inner")],
        &[("type", "multipolygon"), ("natural", "water"), ("name", "Lake Test")],
    );
    // A named bridge, a building, a neighbourhood and a café.
    extract.node(9, 5.0, 0.0).node(10, 5.0, 4.0);
    extract.way(23, &[9, 10], &[("highway", "primary"), ("name", "Harbor Bridge"), ("bridge", "yes")]);
    extract.node(11, 6.0, 0.0).node(12, 6.0, 1.0).node(13, 7.0, 1.0);
    extract.way(24, &[11, 12, 13, 11], &[("building", "yes")]);
    extract.tagged_node(14, 5.5, 2.0, &[("place", "neighbourhood"), ("name", "Fells Point")]);
    extract.tagged_node(15, 5.6, 3.0, &[("amenity", "cafe"), ("name", "Daily Grind")]);
    let file = extract.file();
    let basemap = Basemap::from_file(file.path()).unwrap();
    let named = |name: &str| basemap.features.iter().find(|feature| basemap.string(feature.name) == name).unwrap();
    let lake = named("Lake Test");
    assert_eq!(lake.layer, Layer::Water);
    let Geometry::Polygon(rings) = &lake.geometry else { panic!("the lake is an area") };
    assert_eq!(rings.len(), 2, "the outer ring joined from two ways, then the island");
    assert!(signed_area(&rings[0]) > 0.0 && signed_area(&rings[1]) < 0.0, "outer clockwise, hole counter-clockwise");
    let bridge = named("Harbor Bridge");
    assert_eq!((bridge.layer, basemap.string(bridge.class), bridge.flags & BRIDGE), (Layer::Road, "primary", BRIDGE));
    assert!(matches!(&bridge.geometry, Geometry::Line(points) if points.len() == 2));
    let building = basemap.features.iter().find(|feature| feature.layer == Layer::Building).unwrap();
    assert_eq!(building.min_zoom, 14);
    let place = named("Fells Point");
    assert_eq!((place.layer, basemap.string(place.class)), (Layer::Place, "neighbourhood"));
    let cafe = named("Daily Grind");
    assert_eq!((cafe.layer, basemap.string(cafe.class)), (Layer::Poi, "food"));
}

#[test]
fn baltimore_basemap_has_the_harbour_as_sea_and_its_streets_parks_and_neighbourhoods() {
    use super::basemap::{Basemap, Geometry, Layer, project};
    let basemap = Basemap::from_file(&repo_file("data/baltimore.osm.pbf")).unwrap();
    let count = |layer: Layer| basemap.features.iter().filter(|feature| feature.layer == layer).count();
    assert!(count(Layer::Road) > 3000, "roads: {}", count(Layer::Road));
    assert!(count(Layer::Building) > 1000, "buildings: {}", count(Layer::Building));
    assert!(count(Layer::Place) > 20, "places: {}", count(Layer::Place));
    // The Inner Harbor (the water off the Science Center) is sea, assembled
    // from the coastline; Federal Hill and Patterson Park are dry.
    let inside = |point: [u32; 2]| {
        basemap.features.iter().any(|feature| {
            feature.layer == Layer::Water
                && matches!(&feature.geometry, Geometry::Polygon(rings) if super::basemap::contains(&rings[0], point))
        })
    };
    assert!(inside(project(39.2836, -76.6080)), "the Inner Harbor is water");
    assert!(!inside(project(39.2795, -76.6110)), "Federal Hill is land");
    assert!(!inside(project(39.2905, -76.5800)), "Patterson Park is land");
    let park = basemap.features.iter().find(|feature| basemap.string(feature.name) == "Patterson Park");
    assert!(park.is_some(), "Patterson Park is named");
    assert!(
        basemap
            .features
            .iter()
            .any(|feature| feature.layer == Layer::Road && basemap.string(feature.name) == "East Pratt Street")
    );
}

#[test]
fn houses_between_the_numbered_ends_of_an_interpolation_line_are_found_where_they_stand() {
    use super::geocode::PlaceIndex;
    let mut extract = Extract::default();
    // Numbers 2 and 12 at the ends of a 222 m line that bends at node 2.
    extract.tagged_node(1, 0.0, 0.0, &[("addr:housenumber", "2"), ("addr:city", "Baltimore")]);
    extract.node(2, 0.0, 1.0);
    extract.tagged_node(3, 1.0, 1.0, &[("addr:housenumber", "12")]);
    extract.way(10, &[1, 2, 3], &[("addr:interpolation", "even"), ("addr:street", "Fleet Street")]);
    let file = extract.file();
    let places = PlaceIndex::from_file(file.path()).unwrap();
    let found =
        |query: &str| places.search(query, None, None).into_iter().map(|(_, entry)| entry.clone()).collect::<Vec<_>>();
    // 8 is 60 % of the way from 2 to 12: 133 m along, 22 m up the second leg.
    let eight = found("8 Fleet Street");
    assert_eq!(eight[0].name, "8 Fleet Street");
    assert_eq!(eight[0].secondary, "Baltimore");
    let distance = metres([eight[0].lat, eight[0].lng], [0.2 * STEP, STEP]);
    assert!(distance < 3.0, "8 stands {distance} m from where it should");
    for number in [4, 6, 10] {
        assert!(
            found(&format!("{number} Fleet Street")).iter().any(|entry| entry.name == format!("{number} Fleet Street"))
        );
    }
    // Even numbers only.
    assert!(!found("7 Fleet Street").iter().any(|entry| entry.name == "7 Fleet Street"));
}
