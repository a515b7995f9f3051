//! The basemap's features, read from the extract: water (lakes, rivers and
//! the sea assembled from the coastline), land cover, buildings, piers,
//! roads, railways, place names and points of interest — each with the
//! lowest zoom it is drawn at. [`super::tiles`] cuts them into vector tiles.
//!
//! Coordinates are Web Mercator in the unit square (x east, y south), as
//! 32-bit fixed point: 9 mm at the equator, finer than any tile needs.

use super::source::{Element, MemberKind, SourceError, Tags, content_hash, read_elements, tag};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A point in the Web Mercator unit square, scaled to `u32`.
pub type Point = [u32; 2];

const SCALE: f64 = 4_294_967_296.0; // 2^32
/// Web Mercator stops here; OSM data beyond it does not exist in practice.
const MAX_LAT: f64 = 85.051_128_78;

pub fn project(lat: f64, lng: f64) -> Point {
    let x = (lng + 180.0) / 360.0;
    let lat = lat.clamp(-MAX_LAT, MAX_LAT).to_radians();
    let y = (1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0;
    [(x * SCALE).clamp(0.0, SCALE - 1.0) as u32, (y * SCALE).clamp(0.0, SCALE - 1.0) as u32]
}

/// The inverse of [`project`]: `(lat, lng)`.
pub fn unproject(point: Point) -> (f64, f64) {
    let x = point[0] as f64 / SCALE;
    let y = point[1] as f64 / SCALE;
    let lng = x * 360.0 - 180.0;
    let lat = (std::f64::consts::PI * (1.0 - 2.0 * y)).sinh().atan().to_degrees();
    (lat, lng)
}

/// The tile layers, in the order the style draws them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Layer {
    Landcover,
    Water,
    Waterway,
    /// Land drawn over water: islands of the coastline, piers.
    Land,
    Building,
    Rail,
    Road,
    Place,
    Poi,
}

impl Layer {
    pub const ALL: [Layer; 9] = [
        Layer::Landcover,
        Layer::Water,
        Layer::Waterway,
        Layer::Land,
        Layer::Building,
        Layer::Rail,
        Layer::Road,
        Layer::Place,
        Layer::Poi,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Layer::Landcover => "landcover",
            Layer::Water => "water",
            Layer::Waterway => "waterway",
            Layer::Land => "land",
            Layer::Building => "building",
            Layer::Rail => "rail",
            Layer::Road => "road",
            Layer::Place => "place",
            Layer::Poi => "poi",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Geometry {
    Point(Point),
    Line(Vec<Point>),
    /// Rings, each closed (first point repeated last): every outer ring
    /// clockwise on the map and followed by its holes, counter-clockwise
    /// (see [`nest`]), as vector tiles want them.
    Polygon(Vec<Vec<Point>>),
}

impl Geometry {
    /// West, north, east, south corners: `[min, max]`.
    pub fn bounds(&self) -> [Point; 2] {
        let mut min = [u32::MAX; 2];
        let mut max = [0u32; 2];
        let mut grow = |point: &Point| {
            for axis in 0..2 {
                min[axis] = min[axis].min(point[axis]);
                max[axis] = max[axis].max(point[axis]);
            }
        };
        match self {
            Geometry::Point(point) => grow(point),
            Geometry::Line(points) => points.iter().for_each(grow),
            Geometry::Polygon(rings) => rings.iter().flatten().for_each(grow),
        }
        [min, max]
    }
}

/// Road flags.
pub const BRIDGE: u8 = 1;
pub const TUNNEL: u8 = 2;
/// A motorway or trunk ramp, a `*_link`.
pub const RAMP: u8 = 4;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feature {
    pub layer: Layer,
    /// Index into [`Basemap::strings`]: the kind within the layer
    /// ("park", "primary", "suburb").
    pub class: u32,
    /// Index into [`Basemap::strings`]; 0 is the empty string (no name).
    pub name: u32,
    /// The lowest zoom whose tiles carry it.
    pub min_zoom: u8,
    /// [`BRIDGE`], [`TUNNEL`], [`RAMP`] on roads and railways.
    pub flags: u8,
    /// Drawing order within the layer: higher is drawn later (on top).
    pub rank: u8,
    pub geometry: Geometry,
}

/// Everything the basemap draws from one extract.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Basemap {
    pub features: Vec<Feature>,
    /// Class and name strings, each once; `strings[0]` is "".
    pub strings: Vec<String>,
    /// The extract's extent, `[min, max]` of every node.
    pub extent: [Point; 2],
    /// The start of the extract's content hash: tile URLs carry it, so a
    /// browser's cached tiles of another map are never used.
    pub version: String,
}

/// What a tagged element becomes on the map.
struct Kind {
    layer: Layer,
    class: &'static str,
    min_zoom: u8,
    rank: u8,
    area: bool,
}

const fn kind(layer: Layer, class: &'static str, min_zoom: u8, rank: u8, area: bool) -> Option<Kind> {
    Some(Kind { layer, class, min_zoom, rank, area })
}

/// The road class, its lowest zoom and its drawing rank.
fn road(highway: &str) -> Option<(&'static str, u8, u8, bool)> {
    let (class, min_zoom, rank) = match highway {
        "motorway" => ("motorway", 5, 90),
        "trunk" => ("trunk", 6, 80),
        "primary" => ("primary", 8, 70),
        "secondary" => ("secondary", 9, 60),
        "tertiary" => ("tertiary", 11, 50),
        "motorway_link" => ("motorway", 10, 85),
        "trunk_link" => ("trunk", 11, 75),
        "primary_link" => ("primary", 12, 65),
        "secondary_link" => ("secondary", 12, 55),
        "tertiary_link" => ("tertiary", 12, 45),
        "residential" | "unclassified" | "living_street" | "road" => ("minor", 12, 40),
        "service" => ("service", 13, 30),
        "track" => ("track", 13, 20),
        "pedestrian" | "footway" | "path" | "cycleway" | "steps" | "bridleway" | "corridor" => ("path", 14, 10),
        _ => return None,
    };
    Some((class, min_zoom, rank, highway.ends_with("_link")))
}

fn classify(tags: &Tags, closed: bool) -> Option<Kind> {
    use Layer::*;
    let get = |key: &str| tag(tags, key);
    let is_area = closed && get("area") != Some("no");
    if let Some((class, min_zoom, rank, _)) = get("highway").and_then(road) {
        // A closed pedestrian way tagged area=yes is a square, not a street.
        if closed && get("area") == Some("yes") {
            return kind(Landcover, "pedestrian", 14, 5, true);
        }
        return kind(Road, class, min_zoom, rank, false);
    }
    if let Some(railway) = get("railway") {
        let class = match railway {
            "rail" | "narrow_gauge" | "preserved" => "rail",
            "light_rail" | "tram" | "subway" | "monorail" => "transit",
            _ => "",
        };
        if !class.is_empty() {
            let min_zoom = if get("service").is_some() { 14 } else { 10 };
            return kind(Rail, class, min_zoom, 0, false);
        }
    }
    if let Some(waterway) = get("waterway") {
        match waterway {
            "riverbank" | "dock" if is_area => return kind(Water, "river", 0, 0, true),
            "river" | "canal" => return kind(Waterway, waterway_class(waterway), 8, 0, false),
            "stream" | "drain" | "ditch" => return kind(Waterway, "stream", 13, 0, false),
            _ => {}
        }
    }
    if is_area
        && (get("natural") == Some("water")
            || matches!(get("landuse"), Some("reservoir" | "basin"))
            || get("leisure") == Some("swimming_pool") && get("building").is_none())
    {
        let class = if get("leisure") == Some("swimming_pool") { "pool" } else { "lake" };
        return kind(Water, class, if class == "pool" { 14 } else { 0 }, 0, true);
    }
    if get("man_made") == Some("pier") {
        return kind(Land, "pier", 13, 0, is_area);
    }
    if let Some(building) = get("building")
        && building != "no"
        && is_area
    {
        return kind(Building, "building", 14, 0, true);
    }
    if !is_area {
        return None;
    }
    let landcover = match (get("leisure"), get("landuse"), get("natural"), get("amenity")) {
        (Some("park" | "garden" | "nature_reserve" | "common"), ..) => ("park", 10, 20),
        (Some("pitch" | "playground" | "track" | "golf_course" | "stadium"), ..) => ("pitch", 13, 30),
        (_, Some("forest"), ..) | (_, _, Some("wood"), _) => ("wood", 10, 15),
        (_, Some("grass" | "meadow" | "village_green" | "recreation_ground"), ..) => ("grass", 12, 18),
        (_, _, Some("scrub" | "grassland" | "heath" | "wetland"), _) => ("grass", 12, 18),
        (_, Some("cemetery"), ..) | (_, _, _, Some("grave_yard")) => ("cemetery", 12, 16),
        (_, Some("industrial" | "railway" | "port" | "brownfield"), ..) => ("industrial", 11, 5),
        (_, Some("commercial" | "retail"), ..) => ("commercial", 11, 6),
        (_, Some("residential"), ..) => ("residential", 11, 1),
        (_, _, Some("beach" | "sand"), _) => ("sand", 11, 10),
        (_, _, _, Some("parking")) => ("parking", 14, 25),
        (_, _, _, Some("school" | "university" | "college" | "hospital")) => ("institution", 12, 8),
        _ => return None,
    };
    kind(Landcover, landcover.0, landcover.1, landcover.2, true)
}

fn waterway_class(waterway: &str) -> &'static str {
    if waterway == "canal" { "canal" } else { "river" }
}

/// A named place node: its class, lowest zoom and rank (bigger first).
fn place(tags: &Tags) -> Option<(&'static str, u8, u8)> {
    tag(tags, "name")?;
    Some(match tag(tags, "place")? {
        "city" => ("city", 4, 90),
        "town" => ("town", 8, 80),
        "village" => ("village", 11, 60),
        "suburb" | "borough" => ("suburb", 11, 70),
        "quarter" => ("quarter", 12, 55),
        "neighbourhood" => ("neighbourhood", 13, 50),
        "hamlet" | "locality" => ("locality", 13, 40),
        "island" | "islet" => ("island", 12, 45),
        _ => return None,
    })
}

/// A named point of interest: its class.
fn poi(tags: &Tags) -> Option<&'static str> {
    tag(tags, "name")?;
    if let Some(amenity) = tag(tags, "amenity") {
        return Some(match amenity {
            "restaurant" | "cafe" | "fast_food" | "bar" | "pub" | "food_court" | "ice_cream" => "food",
            "hospital" | "clinic" | "pharmacy" | "doctors" | "dentist" => "health",
            "school" | "university" | "college" | "library" | "kindergarten" => "education",
            "place_of_worship" => "worship",
            "bank" | "atm" | "post_office" | "police" | "fire_station" | "townhall" | "courthouse" => "civic",
            "fuel" | "parking" | "ferry_terminal" | "bus_station" | "car_rental" => "transport",
            "theatre" | "cinema" | "arts_centre" | "nightclub" => "culture",
            _ => return None,
        });
    }
    if tag(tags, "shop").is_some() {
        return Some("shop");
    }
    if let Some(tourism) = tag(tags, "tourism") {
        return Some(match tourism {
            "museum" | "gallery" | "attraction" | "artwork" | "viewpoint" | "zoo" | "aquarium" => "culture",
            "hotel" | "hostel" | "motel" | "guest_house" => "lodging",
            _ => return None,
        });
    }
    if matches!(tag(tags, "leisure"), Some("park" | "stadium" | "marina" | "sports_centre")) {
        return Some("leisure");
    }
    if tag(tags, "railway") == Some("station") || tag(tags, "public_transport") == Some("station") {
        return Some("transport");
    }
    None
}

/// Strings interned once.
#[derive(Default)]
struct Strings {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Strings {
    fn new() -> Self {
        let mut strings = Strings::default();
        strings.intern("");
        strings
    }

    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&index) = self.index.get(text) {
            return index;
        }
        let index = self.list.len() as u32;
        self.list.push(text.to_owned());
        self.index.insert(text.to_owned(), index);
        index
    }
}

/// A multipolygon relation's kind, name and member ways (`true`: outer).
type Multipolygon = (Kind, String, Vec<(i64, bool)>);

/// A way or relation waiting for its nodes' coordinates.
struct Pending {
    kind: Kind,
    name: String,
    flags: u8,
    /// Outer rings then inner rings (areas), or one line, as node ids.
    parts: Vec<Vec<i64>>,
    /// How many of `parts` are outer rings.
    outers: usize,
}

impl Basemap {
    /// Reads the extract three times — relations, then ways, then nodes —
    /// so only the ways and nodes something uses are kept in memory.
    pub fn from_file(path: &Path) -> Result<Basemap, SourceError> {
        // Multipolygons: which member ways make which area.
        let mut multipolygons: Vec<Multipolygon> = Vec::new();
        read_elements(path, |element| {
            let Element::Relation(relation) = element else { return };
            if !matches!(tag(&relation.tags, "type"), Some("multipolygon")) {
                return;
            }
            let Some(kind) = classify(&relation.tags, true).filter(|kind| kind.area) else { return };
            let members = relation
                .members
                .iter()
                .filter(|member| member.kind == MemberKind::Way)
                .map(|member| (member.id, member.role != "inner"))
                .collect();
            let name = tag(&relation.tags, "name").unwrap_or_default().to_owned();
            multipolygons.push((kind, name, members));
        })?;
        let member_ways: HashSet<i64> =
            multipolygons.iter().flat_map(|(_, _, members)| members.iter().map(|(id, _)| *id)).collect();

        let mut pending: Vec<Pending> = Vec::new();
        let mut way_nodes: HashMap<i64, Vec<i64>> = HashMap::new();
        let mut coastline: Vec<Vec<i64>> = Vec::new();
        read_elements(path, |element| {
            let Element::Way(way) = element else { return };
            if way.nodes.len() < 2 {
                return;
            }
            if member_ways.contains(&way.id) {
                way_nodes.insert(way.id, way.nodes.clone());
            }
            if tag(&way.tags, "natural") == Some("coastline") {
                coastline.push(way.nodes.clone());
            }
            let closed = way.nodes.len() >= 4 && way.nodes.first() == way.nodes.last();
            let Some(kind) = classify(&way.tags, closed) else { return };
            let mut flags = 0;
            if matches!(tag(&way.tags, "bridge"), Some(value) if value != "no") {
                flags |= BRIDGE;
            }
            if matches!(tag(&way.tags, "tunnel"), Some(value) if value != "no")
                || tag(&way.tags, "covered") == Some("yes") && kind.layer == Layer::Road
            {
                flags |= TUNNEL;
            }
            if tag(&way.tags, "highway").and_then(road).is_some_and(|(_, _, _, ramp)| ramp) {
                flags |= RAMP;
            }
            let name = match kind.layer {
                // A motorway is known by its number when it has no name.
                Layer::Road => tag(&way.tags, "name").or_else(|| tag(&way.tags, "ref")),
                Layer::Waterway | Layer::Water => tag(&way.tags, "name"),
                _ => None,
            };
            let name = name.unwrap_or_default().to_owned();
            // Named buildings, parks and amenities also get a label point.
            if kind.area
                && let Some(class) = poi(&way.tags)
            {
                let label = Kind { layer: Layer::Poi, class, min_zoom: 14, rank: 0, area: true };
                let name = tag(&way.tags, "name").unwrap_or_default().to_owned();
                pending.push(Pending { kind: label, name, flags: 0, parts: vec![way.nodes.clone()], outers: 1 });
            }
            pending.push(Pending { kind, name, flags, parts: vec![way.nodes], outers: 1 });
        })?;
        for (kind, name, members) in multipolygons {
            let outer: Vec<Vec<i64>> =
                members.iter().filter(|(_, outer)| *outer).filter_map(|(id, _)| way_nodes.get(id).cloned()).collect();
            let inner: Vec<Vec<i64>> =
                members.iter().filter(|(_, outer)| !*outer).filter_map(|(id, _)| way_nodes.get(id).cloned()).collect();
            let (mut rings, _) = join_chains(outer, true);
            if rings.is_empty() {
                continue;
            }
            let outers = rings.len();
            rings.extend(join_chains(inner, true).0);
            pending.push(Pending { kind, name, flags: 0, parts: rings, outers });
        }

        let wanted: HashSet<i64> = pending
            .iter()
            .flat_map(|item| item.parts.iter().flatten())
            .chain(coastline.iter().flatten())
            .copied()
            .collect();
        let mut coords: HashMap<i64, Point> = HashMap::with_capacity(wanted.len());
        let mut strings = Strings::new();
        let mut features = Vec::new();
        let mut extent = [[u32::MAX; 2], [0u32; 2]];
        read_elements(path, |element| {
            let Element::Node(node) = element else { return };
            let point = project(node.lat, node.lng);
            for axis in 0..2 {
                extent[0][axis] = extent[0][axis].min(point[axis]);
                extent[1][axis] = extent[1][axis].max(point[axis]);
            }
            if wanted.contains(&node.id) {
                coords.insert(node.id, point);
            }
            if node.tags.is_empty() {
                return;
            }
            let name = tag(&node.tags, "name").unwrap_or_default();
            if let Some((class, min_zoom, rank)) = place(&node.tags) {
                features.push(Feature {
                    layer: Layer::Place,
                    class: strings.intern(class),
                    name: strings.intern(name),
                    min_zoom,
                    flags: 0,
                    rank,
                    geometry: Geometry::Point(point),
                });
            } else if let Some(class) = poi(&node.tags) {
                features.push(Feature {
                    layer: Layer::Poi,
                    class: strings.intern(class),
                    name: strings.intern(name),
                    min_zoom: 14,
                    flags: 0,
                    rank: 0,
                    geometry: Geometry::Point(point),
                });
            }
        })?;
        if extent[0][0] > extent[1][0] {
            extent = [[0, 0], [0, 0]];
        }

        let locate = |nodes: &[i64]| -> Vec<Point> {
            let mut points: Vec<Point> = nodes.iter().filter_map(|id| coords.get(id).copied()).collect();
            points.dedup();
            points
        };
        for item in pending {
            let Pending { kind, name, flags, parts, outers } = item;
            let geometry = if kind.layer == Layer::Poi {
                // A label point inside the area: the centre of its outline.
                let points = locate(&parts[0]);
                if points.is_empty() {
                    continue;
                }
                Geometry::Point(centroid(&points))
            } else if kind.area {
                let ring = |nodes: &Vec<i64>| Some(locate(nodes)).filter(|ring| ring.len() >= 4);
                let outer: Vec<Vec<Point>> = parts[..outers].iter().filter_map(ring).collect();
                let inner: Vec<Vec<Point>> = parts[outers..].iter().filter_map(ring).collect();
                if outer.is_empty() {
                    continue;
                }
                Geometry::Polygon(nest(outer, inner))
            } else {
                let line = locate(&parts[0]);
                if line.len() < 2 {
                    continue;
                }
                Geometry::Line(line)
            };
            features.push(Feature {
                layer: kind.layer,
                class: strings.intern(kind.class),
                name: strings.intern(&name),
                min_zoom: kind.min_zoom,
                flags,
                rank: kind.rank,
                geometry,
            });
        }
        let (sea, islands) = coast(&coastline, &coords, extent);
        let sea_class = strings.intern("sea");
        let land_class = strings.intern("island");
        for ring in sea {
            features.push(Feature {
                layer: Layer::Water,
                class: sea_class,
                name: 0,
                min_zoom: 0,
                flags: 0,
                rank: 0,
                geometry: Geometry::Polygon(nest(vec![ring], Vec::new())),
            });
        }
        for ring in islands {
            features.push(Feature {
                layer: Layer::Land,
                class: land_class,
                name: 0,
                min_zoom: 0,
                flags: 0,
                rank: 0,
                geometry: Geometry::Polygon(nest(vec![ring], Vec::new())),
            });
        }
        let version = content_hash(path)?.chars().take(12).collect();
        Ok(Basemap { features, strings: strings.list, extent, version })
    }

    pub fn string(&self, index: u32) -> &str {
        self.strings.get(index as usize).map(String::as_str).unwrap_or_default()
    }

    /// The extract's extent as `[west, south, east, north]` degrees.
    pub fn bounds(&self) -> [f64; 4] {
        let (north, west) = unproject(self.extent[0]);
        let (south, east) = unproject(self.extent[1]);
        [west, south, east, north]
    }
}

/// The mean of a ring's points (closing point counted once): good enough to
/// hang a label on a building or a park.
fn centroid(points: &[Point]) -> Point {
    let points = if points.len() > 1 && points.first() == points.last() { &points[1..] } else { points };
    let n = points.len() as u64;
    let x = points.iter().map(|point| point[0] as u64).sum::<u64>() / n;
    let y = points.iter().map(|point| point[1] as u64).sum::<u64>() / n;
    [x as u32, y as u32]
}

/// Rings as vector tiles want them: each outer ring clockwise on the map
/// (positive [`signed_area`]) and followed by the holes inside it,
/// counter-clockwise. A hole inside no outer ring is dropped.
fn nest(outers: Vec<Vec<Point>>, inners: Vec<Vec<Point>>) -> Vec<Vec<Point>> {
    let orient = |mut ring: Vec<Point>, positive: bool| {
        if (signed_area(&ring) > 0.0) != positive {
            ring.reverse();
        }
        ring
    };
    let outers: Vec<Vec<Point>> = outers.into_iter().map(|ring| orient(ring, true)).collect();
    let mut holes: Vec<Vec<Vec<Point>>> = vec![Vec::new(); outers.len()];
    for inner in inners {
        if let Some(owner) = outers.iter().position(|outer| contains(outer, inner[0])) {
            holes[owner].push(orient(inner, false));
        }
    }
    outers.into_iter().zip(holes).flat_map(|(outer, holes)| std::iter::once(outer).chain(holes)).collect()
}

/// Whether a closed ring contains a point (even–odd rule).
pub(crate) fn contains(ring: &[Point], point: Point) -> bool {
    let [px, py] = [point[0] as f64, point[1] as f64];
    let mut inside = false;
    for pair in ring.windows(2) {
        let [x0, y0] = [pair[0][0] as f64, pair[0][1] as f64];
        let [x1, y1] = [pair[1][0] as f64, pair[1][1] as f64];
        if (y0 > py) != (y1 > py) && px < x0 + (py - y0) / (y1 - y0) * (x1 - x0) {
            inside = !inside;
        }
    }
    inside
}

/// Joins ways end to end into closed rings; returns the rings and the
/// chains that could not be closed. `reverse` lets a way join backwards
/// (multipolygon members have no set direction; coastlines do).
pub fn join_chains(parts: Vec<Vec<i64>>, reverse: bool) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
    let mut rings = Vec::new();
    let mut open: Vec<Option<Vec<i64>>> = Vec::new();
    for part in parts {
        if part.len() < 2 {
            continue;
        }
        if part.first() == part.last() {
            rings.push(part);
        } else {
            open.push(Some(part));
        }
    }
    // Which open parts start, and end, at a node.
    let mut starts: HashMap<i64, Vec<usize>> = HashMap::new();
    let mut ends: HashMap<i64, Vec<usize>> = HashMap::new();
    for (index, part) in open.iter().enumerate() {
        let part = part.as_ref().expect("all present");
        starts.entry(part[0]).or_default().push(index);
        ends.entry(*part.last().expect("two nodes")).or_default().push(index);
    }
    let mut chains = Vec::new();
    for index in 0..open.len() {
        let Some(mut chain) = open[index].take() else { continue };
        loop {
            let end = *chain.last().expect("two nodes");
            if chain[0] == end {
                break;
            }
            let forward = starts.get(&end).and_then(|list| list.iter().copied().find(|&next| open[next].is_some()));
            if let Some(next) = forward {
                let part = open[next].take().expect("checked");
                chain.extend_from_slice(&part[1..]);
                continue;
            }
            let backward = if reverse {
                ends.get(&end).and_then(|list| list.iter().copied().find(|&next| open[next].is_some()))
            } else {
                None
            };
            if let Some(next) = backward {
                let part = open[next].take().expect("checked");
                chain.extend(part.iter().rev().skip(1));
                continue;
            }
            // Nothing continues it forwards: try to grow it backwards from its start.
            let before = ends.get(&chain[0]).and_then(|list| list.iter().copied().find(|&next| open[next].is_some()));
            if let Some(previous) = before {
                let mut part = open[previous].take().expect("checked");
                part.extend_from_slice(&chain[1..]);
                chain = part;
                continue;
            }
            break;
        }
        if chain.first() == chain.last() {
            rings.push(chain);
        } else {
            chains.push(chain);
        }
    }
    (rings, chains)
}

/// Twice the signed area of a ring in the unit square (x east, y south):
/// positive when it turns clockwise as seen on the map.
pub fn signed_area(ring: &[Point]) -> f64 {
    let mut sum = 0.0;
    for pair in ring.windows(2) {
        let [x0, y0] = [pair[0][0] as f64, pair[0][1] as f64];
        let [x1, y1] = [pair[1][0] as f64, pair[1][1] as f64];
        sum += x0 * y1 - x1 * y0;
    }
    sum
}

/// The sea, from the coastline. OSM draws the coastline with the land on
/// its left, so walking a coast chain and then the extract's edge clockwise
/// (the way a map reader's clock turns, y pointing south) to the start of
/// the next chain keeps the water on the right: each such loop is a sea
/// polygon. Closed coastlines are islands. A chain ending far from the
/// edge means the extract cut the coast badly; then no sea is drawn rather
/// than the city flooded.
fn coast(ways: &[Vec<i64>], coords: &HashMap<i64, Point>, extent: [Point; 2]) -> (Vec<Vec<Point>>, Vec<Vec<Point>>) {
    let (rings, chains) = join_chains(ways.to_vec(), false);
    let locate = |nodes: &[i64]| -> Vec<Point> { nodes.iter().filter_map(|id| coords.get(id).copied()).collect() };
    let islands: Vec<Vec<Point>> = rings.iter().map(|ring| locate(ring)).filter(|ring| ring.len() >= 4).collect();
    let chains: Vec<Vec<Point>> = chains.iter().map(|chain| locate(chain)).filter(|chain| chain.len() >= 2).collect();
    let [min, max] = extent;
    let frame = Frame { min: [min[0] as f64, min[1] as f64], max: [max[0] as f64, max[1] as f64] };
    let size = (frame.max[0] - frame.min[0]).max(frame.max[1] - frame.min[1]);
    if size <= 0.0 {
        return (Vec::new(), Vec::new());
    }
    if chains.is_empty() {
        // An island extract: the sea is all around the land.
        if !islands.is_empty() && islands.iter().all(|ring| signed_area(ring) < 0.0) {
            let corners = frame.corners();
            let mut sea: Vec<Point> = corners.iter().map(|corner| frame.point(*corner)).collect();
            sea.push(sea[0]);
            return (vec![sea], islands);
        }
        return (Vec::new(), islands);
    }
    // A chain that stops well inside the extract was cut short by whoever
    // clipped it: it is closed straight across its mouth when that encloses
    // water (the loop turns clockwise, water on its right), else dropped.
    let far = |point: &Point| frame.distance_to_edge(point) > size * 0.02;
    let (chains, cut_short): (Vec<Vec<Point>>, Vec<Vec<Point>>) =
        chains.into_iter().partition(|chain| !far(&chain[0]) && !far(chain.last().expect("two points")));
    let mut sea: Vec<Vec<Point>> = Vec::new();
    for mut chain in cut_short {
        chain.push(chain[0]);
        if chain.len() >= 4 && signed_area(&chain) > 0.0 {
            sea.push(chain);
        }
    }
    let starts: Vec<f64> = chains.iter().map(|chain| frame.position(&chain[0])).collect();
    let ends: Vec<f64> = chains.iter().map(|chain| frame.position(chain.last().expect("two points"))).collect();
    let mut used = vec![false; chains.len()];
    for first in 0..chains.len() {
        if used[first] {
            continue;
        }
        used[first] = true;
        let mut ring: Vec<Point> = vec![frame.point(frame.at(starts[first]))];
        ring.extend_from_slice(&chains[first]);
        let mut at = ends[first];
        // Each step takes a chain, so this ends.
        for _ in 0..=chains.len() {
            ring.push(frame.point(frame.at(at)));
            // The next chain start clockwise from here; the ring's own first
            // chain closes it.
            let next = (0..chains.len())
                .filter(|&index| index == first || !used[index])
                .min_by(|&a, &b| {
                    let gap = |index: usize| (starts[index] - at).rem_euclid(4.0);
                    gap(a).total_cmp(&gap(b))
                })
                .expect("the first chain is always a candidate");
            let corners = frame.corners_between(at, starts[next]);
            ring.extend(corners.into_iter().map(|corner| frame.point(corner)));
            if next == first {
                ring.push(ring[0]);
                break;
            }
            used[next] = true;
            ring.push(frame.point(frame.at(starts[next])));
            ring.extend_from_slice(&chains[next]);
            at = ends[next];
        }
        if ring.first() == ring.last() && ring.len() >= 4 {
            sea.push(ring);
        }
    }
    (sea, islands)
}

/// The extract's rectangle, walked clockwise on the map from its
/// north-west corner: a position along it is 0..1 on the north edge
/// (west to east), 1..2 on the east edge (north to south), 2..3 on the
/// south edge (east to west), 3..4 on the west edge (south to north).
struct Frame {
    min: [f64; 2],
    max: [f64; 2],
}

impl Frame {
    fn distance_to_edge(&self, point: &Point) -> f64 {
        let [x, y] = [point[0] as f64, point[1] as f64];
        let inside = (x - self.min[0]).min(self.max[0] - x).min(y - self.min[1]).min(self.max[1] - y);
        inside.max(0.0)
    }

    /// Where on the edge a point is nearest.
    fn position(&self, point: &Point) -> f64 {
        let [x, y] =
            [(point[0] as f64).clamp(self.min[0], self.max[0]), (point[1] as f64).clamp(self.min[1], self.max[1])];
        let width = self.max[0] - self.min[0];
        let height = self.max[1] - self.min[1];
        let fx = if width > 0.0 { (x - self.min[0]) / width } else { 0.0 };
        let fy = if height > 0.0 { (y - self.min[1]) / height } else { 0.0 };
        let candidates = [
            (y - self.min[1], fx),             // north
            (self.max[0] - x, 1.0 + fy),       // east
            (self.max[1] - y, 2.0 + 1.0 - fx), // south
            (x - self.min[0], 3.0 + 1.0 - fy), // west
        ];
        let (_, position) = candidates.iter().copied().min_by(|a, b| a.0.total_cmp(&b.0)).expect("four edges");
        position.rem_euclid(4.0)
    }

    /// The point at a position along the edge, as fractions `[fx, fy]`.
    fn at(&self, position: f64) -> [f64; 2] {
        let position = position.rem_euclid(4.0);
        let edge = position.floor();
        let t = position - edge;
        match edge as u8 {
            0 => [t, 0.0],
            1 => [1.0, t],
            2 => [1.0 - t, 1.0],
            _ => [0.0, 1.0 - t],
        }
    }

    fn point(&self, fraction: [f64; 2]) -> Point {
        let x = self.min[0] + fraction[0] * (self.max[0] - self.min[0]);
        let y = self.min[1] + fraction[1] * (self.max[1] - self.min[1]);
        [x.round() as u32, y.round() as u32]
    }

    fn corners(&self) -> [[f64; 2]; 4] {
        [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    }

    /// The corners passed walking clockwise from `from` to `to`.
    fn corners_between(&self, from: f64, to: f64) -> Vec<[f64; 2]> {
        let mut corners = Vec::new();
        let end = from + (to - from).rem_euclid(4.0);
        // Corner k sits at position k (1 = north-east, 2 = south-east, …).
        let mut corner = from.floor() + 1.0;
        while corner < end {
            corners.push(self.at(corner));
            corner += 1.0;
        }
        corners
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_round_trips_to_a_centimetre() {
        for (lat, lng) in [(39.2904, -76.6122), (43.7384, 7.4246), (-33.86, 151.21), (0.0, 0.0)] {
            let (back_lat, back_lng) = unproject(project(lat, lng));
            assert!(
                (back_lat - lat).abs() < 1e-7 && (back_lng - lng).abs() < 1e-7,
                "{lat},{lng} → {back_lat},{back_lng}"
            );
        }
        // North is up: a point further north has a smaller y.
        assert!(project(40.0, 0.0)[1] < project(39.0, 0.0)[1]);
    }

    #[test]
    fn ways_join_into_rings_and_coastlines_keep_their_direction() {
        let (rings, open) = join_chains(vec![vec![1, 2, 3], vec![5, 4, 3], vec![5, 6, 1]], true);
        assert_eq!(rings.len(), 1);
        assert!(open.is_empty());
        assert_eq!(rings[0].len(), 7);
        assert_eq!(rings[0].first(), rings[0].last());
        // A coastline may not run backwards: the reversed piece stays apart.
        let (rings, open) = join_chains(vec![vec![1, 2, 3], vec![5, 4, 3], vec![3, 9]], false);
        assert!(rings.is_empty());
        assert_eq!(open, vec![vec![1, 2, 3, 9], vec![5, 4, 3]]);
    }

    #[test]
    fn a_coast_across_the_extract_floods_the_side_on_its_right() {
        // A straight coast from the west edge to the east edge, running east:
        // land on its left (north), water on its right (south).
        let extent = [[1000, 1000], [2000, 2000]];
        let coords: HashMap<i64, Point> = [(1, [1000, 1500]), (2, [1500, 1500]), (3, [2000, 1500])].into();
        let (sea, islands) = coast(&[vec![1, 2], vec![2, 3]], &coords, extent);
        assert!(islands.is_empty());
        assert_eq!(sea.len(), 1);
        let ring = &sea[0];
        assert_eq!(ring.first(), ring.last());
        // Clockwise on the map, and covering the southern half only.
        assert!(signed_area(ring) > 0.0);
        assert!((signed_area(ring) / 2.0 - 500.0 * 1000.0).abs() < 1.0, "area {}", signed_area(ring) / 2.0);
        assert!(ring.iter().all(|point| point[1] >= 1500));
        // The same coast drawn the other way floods the north instead.
        let (sea, _) = coast(&[vec![3, 2, 1]], &coords, extent);
        assert!(sea[0].iter().all(|point| point[1] <= 1500));
    }

    #[test]
    fn a_coast_cut_short_inside_the_extract_is_closed_across_its_mouth_only_around_water() {
        let extent = [[1000, 1000], [2000, 2000]];
        // A harbour: a U of coast well inside the extract, open to the south.
        // Walked west shore north, head east, east shore south: water on the
        // right, inside the U.
        let coords: HashMap<i64, Point> =
            [(1, [1300, 1700]), (2, [1300, 1300]), (3, [1700, 1300]), (4, [1700, 1700])].into();
        let (sea, _) = coast(&[vec![1, 2, 3, 4]], &coords, extent);
        assert_eq!(sea.len(), 1);
        assert!((signed_area(&sea[0]) / 2.0 - 400.0 * 400.0).abs() < 1.0);
        // Walked the other way the U is a headland: closing it would flood land.
        let (sea, _) = coast(&[vec![4, 3, 2, 1]], &coords, extent);
        assert!(sea.is_empty());
    }
}
