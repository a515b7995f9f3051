//! The roads under the report's maps: the run's own network (an extract's
//! basemap roads, or an OSMnx graph's links) in the classes and colours of
//! the app's OpenStreetMap basemap (maps/src/osm/basemap.rs and style.rs),
//! so a hexagon map reads like the dispatch console's map. The report is one
//! file that fetches nothing, so the roads are drawn into it as SVG: only
//! the classes the app would draw at the map's scale, thinned to what the
//! eye can see. Straight-line runs have no roads to draw.

use crate::input::RoadNetwork;
use std::collections::HashSet;
use wayfare_engine::LatLng;
use wayfare_maps::osm::basemap::{self as app_basemap, Basemap, Layer, TUNNEL};

/// A road's class as the app's basemap names it, most important first.
/// Tracks and paths are left out: no car of the simulation drives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoadClass {
    Motorway,
    Trunk,
    Primary,
    Secondary,
    Tertiary,
    Minor,
    Service,
}

/// The app's style (maps/src/osm/style.rs): the zooms its road widths are
/// given at, and the width in pixels of each class at those zooms.
const WIDTH_ZOOMS: [f64; 7] = [5.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0];
const WIDTHS: [[f64; 7]; 7] = [
    [0.6, 1.0, 2.0, 3.5, 6.0, 11.0, 22.0],
    [0.4, 0.8, 1.6, 3.0, 5.5, 10.0, 20.0],
    [0.0, 0.5, 1.2, 2.5, 5.0, 9.0, 18.0],
    [0.0, 0.0, 0.8, 2.0, 4.5, 8.0, 16.0],
    [0.0, 0.0, 0.4, 1.5, 4.0, 7.5, 15.0],
    [0.0, 0.0, 0.0, 0.8, 3.0, 6.0, 12.0],
    [0.0, 0.0, 0.0, 0.0, 1.5, 3.5, 7.0],
];
/// What the casing adds to a drawn road's width at each zoom.
const CASING: [f64; 7] = [0.0, 0.4, 0.6, 1.0, 1.5, 2.0, 3.0];
/// The land under everything, the app's background.
pub const LAND: &str = "#f5f3ee";

impl RoadClass {
    pub const ALL: [RoadClass; 7] = [
        RoadClass::Motorway,
        RoadClass::Trunk,
        RoadClass::Primary,
        RoadClass::Secondary,
        RoadClass::Tertiary,
        RoadClass::Minor,
        RoadClass::Service,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RoadClass::Motorway => "motorway",
            RoadClass::Trunk => "trunk",
            RoadClass::Primary => "primary",
            RoadClass::Secondary => "secondary",
            RoadClass::Tertiary => "tertiary",
            RoadClass::Minor => "minor",
            RoadClass::Service => "service",
        }
    }

    /// The class of an app basemap road (`track` and `path` are not drawn).
    pub fn of_basemap(class: &str) -> Option<RoadClass> {
        RoadClass::ALL.into_iter().find(|road| road.name() == class)
    }

    /// An OSMnx link carries no highway tag: its speed tells its class, by
    /// the default speeds of the router's car profile (maps/src/osm/profile.rs),
    /// split halfway between classes.
    pub fn of_speed(kmh: f64) -> RoadClass {
        match kmh {
            kmh if kmh >= 88.0 => RoadClass::Motorway,
            kmh if kmh >= 75.0 => RoadClass::Trunk,
            kmh if kmh >= 60.0 => RoadClass::Primary,
            kmh if kmh >= 47.0 => RoadClass::Secondary,
            kmh if kmh >= 33.0 => RoadClass::Tertiary,
            kmh if kmh >= 20.0 => RoadClass::Minor,
            _ => RoadClass::Service,
        }
    }

    /// Fill and casing, the app's basemap colours.
    pub fn colours(self) -> (&'static str, &'static str) {
        match self {
            RoadClass::Motorway => ("#f6b883", "#d88c52"),
            RoadClass::Trunk => ("#f9c995", "#dba068"),
            RoadClass::Primary => ("#fde2a6", "#d7b574"),
            RoadClass::Secondary => ("#fff3c4", "#cfc08e"),
            RoadClass::Tertiary | RoadClass::Minor | RoadClass::Service => ("#ffffff", "#d3ccc1"),
        }
    }

    /// The width of its line and of its casing at `zoom`, in pixels, as
    /// the app's style gives them (linear between its zooms); (0, 0) where
    /// the line would be under [`THINNEST`] and is not drawn.
    pub fn widths(self, zoom: f64) -> (f64, f64) {
        let at = |values: &[f64; 7]| {
            let zoom = zoom.clamp(WIDTH_ZOOMS[0], WIDTH_ZOOMS[6]);
            let upper = WIDTH_ZOOMS.iter().position(|stop| *stop >= zoom).unwrap_or(6).max(1);
            let (low, high) = (WIDTH_ZOOMS[upper - 1], WIDTH_ZOOMS[upper]);
            let fraction = (zoom - low) / (high - low);
            values[upper - 1] + (values[upper] - values[upper - 1]) * fraction
        };
        let width = at(&WIDTHS[self as usize]);
        if width < THINNEST { (0.0, 0.0) } else { (width, width + at(&CASING)) }
    }
}

/// Roads thinner than this many pixels at the map's scale are left out:
/// they would be a grey wash under the hexagons, and bytes in the file.
pub const THINNEST: f64 = 1.0;

/// The web map zoom at which a pixel covers `metres_per_pixel` at `lat`.
pub fn zoom_of(metres_per_pixel: f64, lat: f64) -> f64 {
    // 156,543 m per pixel at zoom 0 on the equator (256-pixel tiles).
    (156_543.034 * lat.to_radians().cos() / metres_per_pixel.max(1e-9)).log2()
}

#[derive(Debug, Clone, PartialEq)]
pub struct RoadLine {
    pub class: RoadClass,
    pub points: Vec<LatLng>,
}

/// The roads of a run's network.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Roads {
    pub lines: Vec<RoadLine>,
}

impl Roads {
    /// No roads: straight-line runs.
    pub fn none() -> Roads {
        Roads::default()
    }

    /// An OSMnx graph's links, straight from node to node as the router
    /// drives them; a two-way street is two links and is drawn once.
    pub fn from_osmnx(graph: &RoadNetwork) -> Roads {
        let mut drawn: HashSet<(usize, usize)> = HashSet::new();
        let mut lines = Vec::new();
        for link in &graph.links {
            let pair = (link.from.min(link.to), link.from.max(link.to));
            if link.from == link.to || !drawn.insert(pair) {
                continue;
            }
            let speed_kmh = if link.travel_time_s > 0.0 { link.length_m / link.travel_time_s * 3.6 } else { 0.0 };
            lines.push(RoadLine {
                class: RoadClass::of_speed(speed_kmh),
                points: vec![graph.nodes[link.from].position, graph.nodes[link.to].position],
            });
        }
        Roads { lines }
    }

    /// The roads of an extract's basemap, the app's own (tunnels left out,
    /// as the app draws them faint below everything).
    pub fn from_basemap(basemap: &Basemap) -> Roads {
        let lines = basemap
            .features
            .iter()
            .filter(|feature| feature.layer == Layer::Road && feature.flags & TUNNEL == 0)
            .filter_map(|feature| {
                let class = RoadClass::of_basemap(basemap.string(feature.class))?;
                let app_basemap::Geometry::Line(points) = &feature.geometry else { return None };
                let points = points
                    .iter()
                    .map(|point| {
                        let (lat, lng) = app_basemap::unproject(*point);
                        LatLng::new(lat, lng)
                    })
                    .collect();
                Some(RoadLine { class, points })
            })
            .collect();
        Roads { lines }
    }
}

pub use wayfare_maps::polyline::simplify;

/// The pieces of a polyline that pass through the rectangle from `min` to
/// `max`: runs of segments whose bounding box meets it. Segments wholly
/// outside are dropped, so a map carries only the roads it shows.
pub fn clip(points: &[[f64; 2]], min: [f64; 2], max: [f64; 2]) -> Vec<Vec<[f64; 2]>> {
    let meets = |a: [f64; 2], b: [f64; 2]| {
        a[0].max(b[0]) >= min[0] && a[0].min(b[0]) <= max[0] && a[1].max(b[1]) >= min[1] && a[1].min(b[1]) <= max[1]
    };
    let mut pieces: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut current: Vec<[f64; 2]> = Vec::new();
    for pair in points.windows(2) {
        if meets(pair[0], pair[1]) {
            if current.is_empty() {
                current.push(pair[0]);
            }
            current.push(pair[1]);
        } else if !current.is_empty() {
            pieces.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{NetworkLink, NetworkNode};

    #[test]
    fn a_two_way_street_of_an_osmnx_graph_is_drawn_once_in_its_speeds_class() {
        let node = |id: i64, lat: f64| NetworkNode { id, position: LatLng::new(lat, -104.99) };
        let link =
            |from: usize, to: usize, travel_time_s: f64| NetworkLink { from, to, length_m: 500.0, travel_time_s };
        let graph = RoadNetwork {
            nodes: vec![node(1, 39.740), node(2, 39.745), node(3, 39.750)],
            // 500 m in 37.5 s is 48 km/h; in 18 s, 100 km/h; and a loop.
            links: vec![link(0, 1, 37.5), link(1, 0, 37.5), link(1, 2, 18.0), link(2, 2, 1.0)],
        };
        let roads = Roads::from_osmnx(&graph);
        let classes: Vec<RoadClass> = roads.lines.iter().map(|line| line.class).collect();
        assert_eq!(classes, [RoadClass::Secondary, RoadClass::Motorway]);
        assert_eq!(roads.lines[0].points, [graph.nodes[0].position, graph.nodes[1].position]);
    }

    #[test]
    fn basemap_roads_keep_their_class_and_place_and_leave_tunnels_and_paths_out() {
        use app_basemap::{Feature, Geometry, project};
        let line = |class: u32, flags: u8| Feature {
            layer: Layer::Road,
            class,
            name: 0,
            min_zoom: 12,
            flags,
            rank: 0,
            geometry: Geometry::Line(vec![project(39.29, -76.61), project(39.30, -76.60)]),
        };
        let basemap = Basemap {
            features: vec![line(1, 0), line(2, 0), line(1, TUNNEL)],
            strings: vec![String::new(), "primary".into(), "path".into()],
            extent: [[0, 0], [u32::MAX, u32::MAX]],
            version: "test".into(),
        };
        let roads = Roads::from_basemap(&basemap);
        assert_eq!(roads.lines.len(), 1);
        assert_eq!(roads.lines[0].class, RoadClass::Primary);
        let start = roads.lines[0].points[0];
        assert!((start.lat - 39.29).abs() < 1e-6 && (start.lng + 76.61).abs() < 1e-6);
    }

    #[test]
    fn widths_follow_the_apps_style_and_small_roads_vanish_when_zoomed_out() {
        assert_eq!(RoadClass::Primary.widths(14.0), (5.0, 6.5));
        let (minor, casing) = RoadClass::Minor.widths(13.0);
        assert!((minor - 1.9).abs() < 1e-9 && (casing - 3.15).abs() < 1e-9);
        assert_eq!(RoadClass::Service.widths(13.0), (0.0, 0.0));
        assert_eq!(RoadClass::Minor.widths(11.0), (0.0, 0.0));
        assert!(RoadClass::Motorway.widths(9.0).0 > 0.0);
        // 2.4 m a pixel at 39.7° N is zoom 15.6.
        assert!((zoom_of(2.4, 39.7) - 15.6).abs() < 0.05);
    }

    #[test]
    fn simplifying_keeps_the_ends_and_the_corners() {
        let wiggle = [[0.0, 0.0], [1.0, 0.05], [2.0, -0.05], [3.0, 0.0], [3.0, 3.0]];
        assert_eq!(simplify(&wiggle, 0.2), [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0]]);
        assert_eq!(simplify(&wiggle, 0.01), wiggle);
    }

    #[test]
    fn clipping_keeps_only_what_passes_through_the_frame() {
        let line = [[-5.0, 1.0], [-4.0, 1.0], [0.5, 1.0], [5.0, 1.0], [6.0, 1.0], [1.0, 1.5]];
        let pieces = clip(&line, [0.0, 0.0], [2.0, 2.0]);
        assert_eq!(pieces, [vec![[-4.0, 1.0], [0.5, 1.0], [5.0, 1.0]], vec![[6.0, 1.0], [1.0, 1.5]]]);
        assert!(clip(&[[5.0, 5.0], [6.0, 6.0]], [0.0, 0.0], [2.0, 2.0]).is_empty());
    }
}
