//! Tiles are read back with `mvt-reader`, a decoder that is not ours, so a
//! mistake in the encoding cannot cancel out in the test.

use super::super::basemap::{BRIDGE, Basemap, Feature, Geometry, Layer, Point, project};
use super::{EXTENT, MAX_ZOOM, TileError, Tiles};
use geo_types::Geometry as Geo;
use mvt_reader::Reader;
use mvt_reader::feature::Value;

/// The tile at `zoom` holding a point.
fn tile_of(point: Point, zoom: u8) -> (u32, u32) {
    let shift = 32 - zoom as u64;
    ((point[0] as u64 >> shift) as u32, (point[1] as u64 >> shift) as u32)
}

fn feature(layer: Layer, class: u32, name: u32, min_zoom: u8, geometry: Geometry) -> Feature {
    Feature { layer, class, name, min_zoom, flags: 0, rank: 40, geometry }
}

/// A small city at Baltimore's latitude: a long road across many tiles, a
/// park with a pond cut out of it, a building and a neighbourhood's name.
fn city() -> (Tiles, Point) {
    let centre = project(39.29, -76.61);
    let metres = |east: f64, north: f64| project(39.29 + north / 111_320.0, -76.61 + east / 86_100.0);
    let strings = ["", "primary", "park", "building", "neighbourhood", "Charles Street", "Mid-Town", "lake"];
    let square = |half: f64, east: f64| {
        // Clockwise on the map, as an outer ring is kept.
        vec![
            metres(east - half, -half),
            metres(east - half, half),
            metres(east + half, half),
            metres(east + half, -half),
            metres(east - half, -half),
        ]
    };
    let mut park = square(200.0, 0.0);
    park.reverse();
    let mut road = feature(Layer::Road, 1, 5, 8, Geometry::Line(vec![metres(-5000.0, 10.0), metres(5000.0, 10.0)]));
    road.flags = BRIDGE;
    let features = vec![
        road,
        feature(Layer::Landcover, 2, 0, 10, Geometry::Polygon(vec![square(300.0, 0.0), park])),
        feature(Layer::Building, 3, 0, 14, Geometry::Polygon(vec![square(10.0, 100.0)])),
        feature(Layer::Place, 4, 6, 13, Geometry::Point(metres(50.0, 50.0))),
    ];
    let basemap = Basemap {
        features,
        strings: strings.iter().map(|text| text.to_string()).collect(),
        extent: [metres(-6000.0, 6000.0), metres(6000.0, -6000.0)],
        version: "test".into(),
    };
    (Tiles::new(basemap), centre)
}

fn read(tile: &[u8]) -> Vec<(String, Vec<mvt_reader::feature::Feature>)> {
    let reader = Reader::new(tile.to_vec()).expect("a valid vector tile");
    let names = reader.get_layer_names().unwrap();
    names.into_iter().enumerate().map(|(index, name)| (name, reader.get_features(index).unwrap())).collect()
}

fn text(feature: &mvt_reader::feature::Feature, key: &str) -> Option<String> {
    match feature.properties.as_ref()?.get(key)? {
        Value::String(text) => Some(text.clone()),
        _ => None,
    }
}

#[test]
fn a_tile_reads_back_with_its_layers_classes_names_and_holes() {
    let (tiles, centre) = city();
    let (x, y) = tile_of(centre, 14);
    let layers = read(&tiles.tile(14, x, y).unwrap());
    let names: Vec<&str> = layers.iter().map(|(name, _)| name.as_str()).collect();
    // Drawing order: land cover under buildings under roads under names.
    assert_eq!(names, ["landcover", "building", "road", "place"]);
    let (_, roads) = &layers[2];
    assert_eq!(text(&roads[0], "name").as_deref(), Some("Charles Street"));
    assert_eq!(text(&roads[0], "class").as_deref(), Some("primary"));
    assert_eq!(text(&roads[0], "brunnel").as_deref(), Some("bridge"));
    let Geo::LineString(line) = &roads[0].geometry else { panic!("a road is a line: {:?}", roads[0].geometry) };
    // Clipped to the tile and its buffer, and crossing the whole tile.
    let xs: Vec<f32> = line.coords().map(|point| point.x).collect();
    assert_eq!(xs.len(), 2);
    assert!(xs.iter().all(|x| (-128.0..=EXTENT as f32 + 128.0).contains(x)), "{xs:?}");
    assert!(xs[0] < 0.0 && xs[1] > EXTENT as f32);
    // The park keeps its pond as a hole.
    let (_, landcover) = &layers[0];
    // mvt-reader gives every polygon as a multipolygon.
    let Geo::MultiPolygon(park) = &landcover[0].geometry else {
        panic!("the park is an area: {:?}", landcover[0].geometry)
    };
    assert_eq!(park.0.len(), 1, "one polygon");
    assert_eq!(park.0[0].interiors().len(), 1, "with the pond as its hole");
    let (_, places) = &layers[3];
    assert_eq!(text(&places[0], "name").as_deref(), Some("Mid-Town"));
    assert!(matches!(&places[0].geometry, Geo::MultiPoint(points) if points.0.len() == 1));
}

#[test]
fn features_appear_from_their_zoom_and_far_tiles_are_empty() {
    let (tiles, centre) = city();
    let layer_names = |zoom: u8| {
        let (x, y) = tile_of(centre, zoom);
        read(&tiles.tile(zoom, x, y).unwrap()).into_iter().map(|(name, _)| name).collect::<Vec<_>>()
    };
    assert_eq!(layer_names(12), ["landcover", "road"]);
    assert_eq!(layer_names(9), ["road"]);
    assert!(layer_names(7).is_empty(), "the primary road starts at zoom 8");
    // A tile on the other side of the world holds nothing.
    let (x, y) = tile_of(centre, 14);
    assert!(tiles.tile(14, x + 5000, y).unwrap().is_empty());
    assert_eq!(tiles.tile(15, 0, 0), Err(TileError::OutOfRange { z: 15, x: 0, y: 0 }));
    assert_eq!(tiles.tile(3, 8, 0), Err(TileError::OutOfRange { z: 3, x: 8, y: 0 }));
}

#[test]
fn a_line_is_thinned_below_the_deepest_zoom_but_not_at_it() {
    // A street with a point every metre, nearly straight.
    let start = project(39.29, -76.61);
    let points: Vec<Point> = (0..2000).map(|step| [start[0] + step * 400, start[1] + (step % 2) * 3]).collect();
    let basemap = Basemap {
        features: vec![feature(Layer::Road, 1, 0, 5, Geometry::Line(points))],
        strings: vec![String::new(), "minor".into()],
        extent: [start, start],
        version: "test".into(),
    };
    let tiles = Tiles::new(basemap);
    let vertices = |zoom: u8| {
        let (x, y) = tile_of(start, zoom);
        read(&tiles.tile(zoom, x, y).unwrap())
            .iter()
            .flat_map(|(_, features)| features.iter())
            .map(|feature| match &feature.geometry {
                Geo::LineString(line) => line.0.len(),
                Geo::MultiLineString(lines) => lines.0.iter().map(|line| line.0.len()).sum(),
                other => panic!("{other:?}"),
            })
            .sum::<usize>()
    };
    assert!(vertices(10) <= 3, "zoom 10: {}", vertices(10));
    assert!(vertices(MAX_ZOOM) > 100, "zoom 14: {}", vertices(MAX_ZOOM));
}

#[test]
fn every_baltimore_tile_decodes_and_the_harbour_tile_has_water_roads_and_names() {
    let basemap =
        Basemap::from_file(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/baltimore.osm.pbf"))
            .unwrap();
    let [min, max] = basemap.extent;
    let tiles = Tiles::new(basemap);
    let mut cut = 0;
    for zoom in 0..=MAX_ZOOM {
        let (x0, y0) = tile_of(min, zoom);
        let (x1, y1) = tile_of(max, zoom);
        for x in x0..=x1 {
            for y in y0..=y1 {
                let tile = tiles.tile(zoom, x, y).unwrap();
                read(&tile);
                assert!(tile.len() < 500_000, "{zoom}/{x}/{y} is {} bytes", tile.len());
                cut += 1;
            }
        }
    }
    assert!(cut > 100, "{cut} tiles");
    let harbour = project(39.2836, -76.6080);
    let (x, y) = tile_of(harbour, 14);
    let layers = read(&tiles.tile(14, x, y).unwrap());
    let layer =
        |name: &str| layers.iter().find(|(layer, _)| layer == name).map(|(_, features)| features.len()).unwrap_or(0);
    assert!(
        layer("water") > 0 && layer("road") > 50 && layer("building") > 10,
        "{:?}",
        layers.iter().map(|(n, f)| (n, f.len())).collect::<Vec<_>>()
    );
    let names: Vec<String> =
        layers.iter().flat_map(|(_, features)| features.iter().filter_map(|feature| text(feature, "name"))).collect();
    assert!(names.iter().any(|name| name == "East Pratt Street"), "{names:?}");
}
