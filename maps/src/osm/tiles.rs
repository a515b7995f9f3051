//! Vector tiles of the basemap, cut on request: the features a tile needs
//! are found in an R-tree per zoom band, clipped to the tile (plus a buffer,
//! so lines and labels run on across tile edges), thinned to what a pixel
//! can show, and written as Mapbox Vector Tiles (spec 2.1) — the format
//! MapLibre reads. Cut tiles are kept in memory.
//!
//! The encoder is our own: an MVT is a small protobuf (layers of features
//! with tag indices and zig-zag delta geometry commands), and owning it
//! keeps the tile path free of a geometry stack we would mostly not use.

use super::basemap::{BRIDGE, Basemap, Feature, Geometry, Layer, Point, RAMP, TUNNEL, signed_area};
use crate::polyline::simplify;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Tile units per tile side.
pub const EXTENT: u32 = 4096;
/// Tile units kept around each tile.
const BUFFER: f64 = 128.0;
/// The deepest zoom cut; MapLibre draws deeper zooms from these tiles.
pub const MAX_ZOOM: u8 = 14;
/// Tiles kept in memory before the cache is emptied and refilled.
const CACHE_TILES: usize = 8192;
/// Below the deepest zoom, points closer than this to a line (tile units;
/// 8 per pixel of a 512-pixel tile) are dropped.
const SIMPLIFY: f64 = 4.0;

type Entry = GeomWithData<Rectangle<[f64; 2]>, u32>;
/// `(z, x, y)`
type TileId = (u8, u32, u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    #[error("no tile {z}/{x}/{y}: zoom runs 0 to {MAX_ZOOM} and x, y 0 to 2^zoom − 1")]
    OutOfRange { z: u8, x: u32, y: u32 },
}

pub struct Tiles {
    basemap: Basemap,
    /// `trees[z]` holds the features first drawn at zoom `z`.
    trees: Vec<RTree<Entry>>,
    cache: Mutex<HashMap<TileId, Arc<[u8]>>>,
}

impl Tiles {
    pub fn new(basemap: Basemap) -> Tiles {
        let mut bands: Vec<Vec<Entry>> = (0..=MAX_ZOOM).map(|_| Vec::new()).collect();
        for (index, feature) in basemap.features.iter().enumerate() {
            let [min, max] = feature.geometry.bounds();
            let rectangle = Rectangle::from_corners([min[0] as f64, min[1] as f64], [max[0] as f64, max[1] as f64]);
            bands[feature.min_zoom.min(MAX_ZOOM) as usize].push(GeomWithData::new(rectangle, index as u32));
        }
        let trees = bands.into_iter().map(RTree::bulk_load).collect();
        Tiles { basemap, trees, cache: Mutex::new(HashMap::new()) }
    }

    pub fn basemap(&self) -> &Basemap {
        &self.basemap
    }

    /// The tile `z/x/y` as an MVT; a tile with nothing in it is empty.
    pub fn tile(&self, z: u8, x: u32, y: u32) -> Result<Arc<[u8]>, TileError> {
        if z > MAX_ZOOM || x >= 1 << z || y >= 1 << z {
            return Err(TileError::OutOfRange { z, x, y });
        }
        if let Some(tile) = self.cache.lock().expect("tile cache").get(&(z, x, y)) {
            return Ok(tile.clone());
        }
        let tile: Arc<[u8]> = self.cut(z, x, y).into();
        let mut cache = self.cache.lock().expect("tile cache");
        if cache.len() >= CACHE_TILES {
            // Emptied whole rather than tracked by age: a tile is cut again in
            // about a millisecond, and the map's working set refills it.
            cache.clear();
        }
        cache.insert((z, x, y), tile.clone());
        Ok(tile)
    }

    /// Cuts a tile without the cache: what a first request costs.
    pub fn cut(&self, z: u8, x: u32, y: u32) -> Vec<u8> {
        let size = 2f64.powi(32 - z as i32);
        let origin = [x as f64 * size, y as f64 * size];
        let scale = EXTENT as f64 / size;
        let margin = BUFFER / scale;
        let envelope = AABB::from_corners(
            [origin[0] - margin, origin[1] - margin],
            [origin[0] + size + margin, origin[1] + size + margin],
        );
        let mut found: Vec<u32> = self.trees[..=z as usize]
            .iter()
            .flat_map(|tree| tree.locate_in_envelope_intersecting(envelope).map(|entry| entry.data))
            .collect();
        let features = &self.basemap.features;
        found.sort_by_key(|&index| (features[index as usize].layer, features[index as usize].rank, index));
        let transform = Transform { origin, scale, tolerance: if z < MAX_ZOOM { SIMPLIFY } else { 0.0 } };
        let mut tile = Vec::new();
        let mut start = 0;
        while start < found.len() {
            let layer = features[found[start] as usize].layer;
            let end = found[start..]
                .iter()
                .position(|&index| features[index as usize].layer != layer)
                .map_or(found.len(), |n| start + n);
            let mut writer = LayerWriter::new(layer);
            for &index in &found[start..end] {
                let feature = &features[index as usize];
                if let Some(geometry) = transform.apply(&feature.geometry) {
                    writer.add(index, feature, &self.basemap, &geometry);
                }
            }
            if writer.count > 0 {
                bytes_field(&mut tile, 3, &writer.finish());
            }
            start = end;
        }
        tile
    }
}

/// A feature's geometry in tile units, clipped: `(kind, commands)`.
type TileGeometry = (u32, Vec<u32>);

struct Transform {
    origin: [f64; 2],
    scale: f64,
    tolerance: f64,
}

const LOW: f64 = -BUFFER;
const HIGH: f64 = EXTENT as f64 + BUFFER;

impl Transform {
    fn to_tile(&self, point: &Point) -> [f64; 2] {
        [(point[0] as f64 - self.origin[0]) * self.scale, (point[1] as f64 - self.origin[1]) * self.scale]
    }

    fn apply(&self, geometry: &Geometry) -> Option<TileGeometry> {
        match geometry {
            Geometry::Point(point) => {
                let [x, y] = self.to_tile(point);
                if !(LOW..=HIGH).contains(&x) || !(LOW..=HIGH).contains(&y) {
                    return None;
                }
                let mut commands = vec![command(1, 1)];
                commands.extend([zigzag(x.round() as i32), zigzag(y.round() as i32)]);
                Some((1, commands))
            }
            Geometry::Line(points) => {
                let line: Vec<[f64; 2]> = points.iter().map(|point| self.to_tile(point)).collect();
                let mut commands = Vec::new();
                let mut cursor = [0i32; 2];
                for part in clip_line(&line) {
                    let part = quantise(&simplify(&part, self.tolerance));
                    if part.len() < 2 {
                        continue;
                    }
                    commands.push(command(1, 1));
                    push_delta(&mut commands, &mut cursor, part[0]);
                    commands.push(command(2, part.len() as u32 - 1));
                    for point in &part[1..] {
                        push_delta(&mut commands, &mut cursor, *point);
                    }
                }
                (!commands.is_empty()).then_some((2, commands))
            }
            Geometry::Polygon(rings) => {
                let mut commands = Vec::new();
                let mut cursor = [0i32; 2];
                let mut outer_kept = false;
                for ring in rings {
                    let outer = signed_area(ring) > 0.0;
                    let tile_ring: Vec<[f64; 2]> = ring.iter().map(|point| self.to_tile(point)).collect();
                    let clipped = clip_polygon(&tile_ring);
                    let mut ring = quantise(&simplify(&clipped, self.tolerance));
                    if ring.len() > 1 && ring.first() == ring.last() {
                        ring.pop();
                    }
                    // Too small to see, or turned inside out by rounding.
                    let area = ring_area(&ring);
                    if ring.len() < 3 || (outer && area <= 0) || (!outer && area >= 0) {
                        if outer {
                            outer_kept = false;
                        }
                        continue;
                    }
                    if !outer && !outer_kept {
                        continue;
                    }
                    outer_kept |= outer;
                    commands.push(command(1, 1));
                    push_delta(&mut commands, &mut cursor, ring[0]);
                    commands.push(command(2, ring.len() as u32 - 1));
                    for point in &ring[1..] {
                        push_delta(&mut commands, &mut cursor, *point);
                    }
                    commands.push(command(7, 1));
                }
                (!commands.is_empty()).then_some((3, commands))
            }
        }
    }
}

/// Twice the area of a closed ring given without its closing point, in the
/// tile's y-down axes: positive when clockwise on screen (an outer ring).
fn ring_area(ring: &[[i32; 2]]) -> i64 {
    let mut sum = 0i64;
    for index in 0..ring.len() {
        let [x0, y0] = ring[index];
        let [x1, y1] = ring[(index + 1) % ring.len()];
        sum += x0 as i64 * y1 as i64 - x1 as i64 * y0 as i64;
    }
    sum
}

fn quantise(points: &[[f64; 2]]) -> Vec<[i32; 2]> {
    let mut out: Vec<[i32; 2]> = Vec::with_capacity(points.len());
    for point in points {
        let point = [point[0].round() as i32, point[1].round() as i32];
        if out.last() != Some(&point) {
            out.push(point);
        }
    }
    out
}

/// The parts of a line inside the buffered tile (Liang–Barsky per segment).
fn clip_line(line: &[[f64; 2]]) -> Vec<Vec<[f64; 2]>> {
    let mut parts: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut current: Vec<[f64; 2]> = Vec::new();
    for pair in line.windows(2) {
        match clip_segment(pair[0], pair[1]) {
            Some((a, b)) => {
                if current.last() != Some(&a) {
                    if current.len() >= 2 {
                        parts.push(std::mem::take(&mut current));
                    }
                    current.clear();
                    current.push(a);
                }
                current.push(b);
            }
            None => {
                if current.len() >= 2 {
                    parts.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() >= 2 {
        parts.push(current);
    }
    parts
}

fn clip_segment(a: [f64; 2], b: [f64; 2]) -> Option<([f64; 2], [f64; 2])> {
    let delta = [b[0] - a[0], b[1] - a[1]];
    let (mut enter, mut leave) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        for (p, q) in [(-delta[axis], a[axis] - LOW), (delta[axis], HIGH - a[axis])] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    enter = enter.max(t);
                } else {
                    leave = leave.min(t);
                }
            }
        }
    }
    if enter > leave {
        return None;
    }
    let at = |t: f64| {
        if t == 0.0 {
            a
        } else if t == 1.0 {
            b
        } else {
            [a[0] + t * delta[0], a[1] + t * delta[1]]
        }
    };
    Some((at(enter), at(leave)))
}

/// A ring clipped to the buffered tile (Sutherland–Hodgman), closed.
fn clip_polygon(ring: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut points: Vec<[f64; 2]> = ring.to_vec();
    if points.len() > 1 && points.first() == points.last() {
        points.pop();
    }
    // Left, right, top, bottom: (axis, bound, keep the side below it).
    for (axis, bound, below) in [(0, LOW, false), (0, HIGH, true), (1, LOW, false), (1, HIGH, true)] {
        if points.is_empty() {
            break;
        }
        let inside = |point: &[f64; 2]| if below { point[axis] <= bound } else { point[axis] >= bound };
        let mut out = Vec::with_capacity(points.len() + 4);
        for index in 0..points.len() {
            let current = points[index];
            let previous = points[(index + points.len() - 1) % points.len()];
            let crossing = || {
                let t = (bound - previous[axis]) / (current[axis] - previous[axis]);
                [previous[0] + t * (current[0] - previous[0]), previous[1] + t * (current[1] - previous[1])]
            };
            match (inside(&previous), inside(&current)) {
                (true, true) => out.push(current),
                (true, false) => out.push(crossing()),
                (false, true) => {
                    out.push(crossing());
                    out.push(current);
                }
                (false, false) => {}
            }
        }
        points = out;
    }
    if let Some(&first) = points.first() {
        points.push(first);
    }
    points
}

fn command(id: u32, count: u32) -> u32 {
    (id & 0x7) | (count << 3)
}

fn zigzag(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

fn push_delta(commands: &mut Vec<u32>, cursor: &mut [i32; 2], point: [i32; 2]) {
    commands.push(zigzag(point[0] - cursor[0]));
    commands.push(zigzag(point[1] - cursor[1]));
    *cursor = point;
}

/// A property value of a feature.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Value {
    Text(String),
    Int(i64),
}

/// One layer of a tile, its keys and values each written once.
struct LayerWriter {
    layer: Layer,
    features: Vec<u8>,
    keys: Vec<&'static str>,
    values: Vec<Value>,
    value_index: HashMap<Value, u32>,
    count: usize,
}

impl LayerWriter {
    fn new(layer: Layer) -> Self {
        LayerWriter {
            layer,
            features: Vec::new(),
            keys: Vec::new(),
            values: Vec::new(),
            value_index: HashMap::new(),
            count: 0,
        }
    }

    fn key(&mut self, key: &'static str) -> u32 {
        match self.keys.iter().position(|known| *known == key) {
            Some(index) => index as u32,
            None => {
                self.keys.push(key);
                self.keys.len() as u32 - 1
            }
        }
    }

    fn value(&mut self, value: Value) -> u32 {
        if let Some(&index) = self.value_index.get(&value) {
            return index;
        }
        let index = self.values.len() as u32;
        self.values.push(value.clone());
        self.value_index.insert(value, index);
        index
    }

    fn add(&mut self, id: u32, feature: &Feature, basemap: &Basemap, geometry: &TileGeometry) {
        let mut properties: Vec<(&'static str, Value)> =
            vec![("class", Value::Text(basemap.string(feature.class).to_owned()))];
        let name = basemap.string(feature.name);
        if !name.is_empty() {
            properties.push(("name", Value::Text(name.to_owned())));
        }
        if matches!(self.layer, Layer::Road | Layer::Place) {
            properties.push(("rank", Value::Int(feature.rank as i64)));
        }
        if feature.flags & BRIDGE != 0 {
            properties.push(("brunnel", Value::Text("bridge".into())));
        } else if feature.flags & TUNNEL != 0 {
            properties.push(("brunnel", Value::Text("tunnel".into())));
        }
        if feature.flags & RAMP != 0 {
            properties.push(("ramp", Value::Int(1)));
        }
        let mut tags = Vec::with_capacity(properties.len() * 2);
        for (key, value) in properties {
            tags.push(self.key(key));
            tags.push(self.value(value));
        }
        let mut body = Vec::new();
        varint_field(&mut body, 1, id as u64 + 1);
        packed_field(&mut body, 2, &tags);
        varint_field(&mut body, 3, geometry.0 as u64);
        packed_field(&mut body, 4, &geometry.1);
        bytes_field(&mut self.features, 2, &body);
        self.count += 1;
    }

    fn finish(self) -> Vec<u8> {
        let mut layer = Vec::new();
        varint_field(&mut layer, 15, 2);
        bytes_field(&mut layer, 1, self.layer.name().as_bytes());
        layer.extend_from_slice(&self.features);
        for key in &self.keys {
            bytes_field(&mut layer, 3, key.as_bytes());
        }
        for value in &self.values {
            let mut encoded = Vec::new();
            match value {
                Value::Text(text) => bytes_field(&mut encoded, 1, text.as_bytes()),
                Value::Int(number) => varint_field(&mut encoded, 4, *number as u64),
            }
            bytes_field(&mut layer, 4, &encoded);
        }
        varint_field(&mut layer, 5, EXTENT as u64);
        layer
    }
}

fn varint(buffer: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        buffer.push((value as u8) | 0x80);
        value >>= 7;
    }
    buffer.push(value as u8);
}

fn varint_field(buffer: &mut Vec<u8>, field: u32, value: u64) {
    varint(buffer, (field as u64) << 3);
    varint(buffer, value);
}

fn bytes_field(buffer: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    varint(buffer, ((field as u64) << 3) | 2);
    varint(buffer, bytes.len() as u64);
    buffer.extend_from_slice(bytes);
}

fn packed_field(buffer: &mut Vec<u8>, field: u32, values: &[u32]) {
    let mut packed = Vec::with_capacity(values.len() * 2);
    for value in values {
        varint(&mut packed, *value as u64);
    }
    bytes_field(buffer, field, &packed);
}

#[cfg(test)]
mod tests;
