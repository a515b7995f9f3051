//! The MapLibre style of the basemap: a light, quiet map (so the markers and
//! the route drawn over it stand out) of the layers [`super::tiles`] cuts.
//! It names no glyphs and no sprite: MapLibre GL JS 5.11 and later draw the
//! labels with the browser's own fonts, so nothing is fetched from outside.

use super::basemap::Basemap;
use super::tiles::MAX_ZOOM;
use serde_json::{Value, json};

pub const ATTRIBUTION: &str = "© OpenStreetMap contributors";
/// The fonts labels ask for, first found wins; the last is the browser's
/// own sans-serif, always there.
const FONTS: [&str; 4] = ["Noto Sans", "DejaVu Sans", "Arial", "sans-serif"];

/// Zooms at which road widths are given, and the widths in pixels of each
/// class's line at those zooms (0: not drawn yet).
const WIDTH_ZOOMS: [f64; 7] = [5.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0];
const WIDTHS: [(&str, [f64; 7]); 9] = [
    ("motorway", [0.6, 1.0, 2.0, 3.5, 6.0, 11.0, 22.0]),
    ("trunk", [0.4, 0.8, 1.6, 3.0, 5.5, 10.0, 20.0]),
    ("primary", [0.0, 0.5, 1.2, 2.5, 5.0, 9.0, 18.0]),
    ("secondary", [0.0, 0.0, 0.8, 2.0, 4.5, 8.0, 16.0]),
    ("tertiary", [0.0, 0.0, 0.4, 1.5, 4.0, 7.5, 15.0]),
    ("minor", [0.0, 0.0, 0.0, 0.8, 3.0, 6.0, 12.0]),
    ("service", [0.0, 0.0, 0.0, 0.0, 1.5, 3.5, 7.0]),
    ("track", [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 4.0]),
    ("path", [0.0, 0.0, 0.0, 0.0, 0.8, 1.2, 2.0]),
];
/// What the casing adds to a drawn road's width at each zoom.
const CASING: [f64; 7] = [0.0, 0.4, 0.6, 1.0, 1.5, 2.0, 3.0];

const ROAD_FILL: [(&str, &str); 8] = [
    ("motorway", "#f6b883"),
    ("trunk", "#f9c995"),
    ("primary", "#fde2a6"),
    ("secondary", "#fff3c4"),
    ("tertiary", "#ffffff"),
    ("minor", "#ffffff"),
    ("service", "#ffffff"),
    ("track", "#f4efe6"),
];
const ROAD_CASING: [(&str, &str); 4] =
    [("motorway", "#d88c52"), ("trunk", "#dba068"), ("primary", "#d7b574"), ("secondary", "#cfc08e")];
const CASING_OTHER: &str = "#d3ccc1";

const LANDCOVER: [(&str, &str); 12] = [
    ("park", "#d4e9c6"),
    ("wood", "#c5dcb2"),
    ("grass", "#deecd0"),
    ("pitch", "#cbe7d4"),
    ("cemetery", "#d2e3cb"),
    ("industrial", "#ebe6ec"),
    ("commercial", "#f3e7e3"),
    ("residential", "#efece6"),
    ("institution", "#f2ecda"),
    ("sand", "#f2e8c9"),
    ("parking", "#ebe8e2"),
    ("pedestrian", "#efebe5"),
];
const LAND: &str = "#f5f3ee";
const WATER: &str = "#aad2e4";

fn matching(property: &str, pairs: &[(&str, &str)], fallback: &str) -> Value {
    let mut expression = vec![json!("match"), json!(["get", property])];
    for (key, value) in pairs {
        expression.push(json!(key));
        expression.push(json!(value));
    }
    expression.push(json!(fallback));
    Value::Array(expression)
}

/// A road's width by class and zoom, `casing` adding the outline, thinner on
/// ramps.
fn road_width(casing: bool) -> Value {
    let mut expression = vec![json!("interpolate"), json!(["exponential", 1.5]), json!(["zoom"])];
    for (stop, zoom) in WIDTH_ZOOMS.iter().enumerate() {
        let mut by_class = vec![json!("match"), json!(["get", "class"])];
        for (class, widths) in WIDTHS {
            let width = widths[stop];
            let width = if casing && width > 0.0 { width + CASING[stop] } else { width };
            by_class.push(json!(class));
            by_class.push(json!(width));
        }
        by_class.push(json!(0));
        expression.push(json!(zoom));
        expression.push(json!(["*", Value::Array(by_class), ["case", ["has", "ramp"], 0.6, 1]]));
    }
    Value::Array(expression)
}

fn label_paint(color: &str) -> Value {
    json!({ "text-color": color, "text-halo-color": "rgba(255,255,255,0.9)", "text-halo-width": 1.4 })
}

/// The style, its tiles at `tiles_url` (a `{z}/{x}/{y}` template).
pub fn style(tiles_url: &str, basemap: &Basemap) -> Value {
    let [west, south, east, north] = basemap.bounds();
    let not_tunnel = json!(["!=", ["get", "brunnel"], "tunnel"]);
    let is_bridge = json!(["==", ["get", "brunnel"], "bridge"]);
    let is_tunnel = json!(["==", ["get", "brunnel"], "tunnel"]);
    let drawn_road = json!(["!=", ["get", "class"], "path"]);
    let road_layout = json!({ "line-cap": "round", "line-join": "round", "line-sort-key": ["get", "rank"] });
    let fill = matching("class", &ROAD_FILL, "#ffffff");
    let casing = matching("class", &ROAD_CASING, CASING_OTHER);
    json!({
        "version": 8,
        "name": "Wayfare OpenStreetMap",
        "center": [(west + east) / 2.0, (south + north) / 2.0],
        "zoom": 12,
        "sources": {
            "basemap": {
                "type": "vector",
                "tiles": [tiles_url],
                "minzoom": 0,
                "maxzoom": MAX_ZOOM,
                "bounds": [west, south, east, north],
                "attribution": ATTRIBUTION,
            }
        },
        "layers": [
            { "id": "background", "type": "background", "paint": { "background-color": LAND } },
            {
                "id": "landcover", "type": "fill", "source": "basemap", "source-layer": "landcover",
                "paint": { "fill-color": matching("class", &LANDCOVER, LAND) },
            },
            {
                "id": "water", "type": "fill", "source": "basemap", "source-layer": "water",
                "paint": { "fill-color": WATER },
            },
            {
                "id": "waterway", "type": "line", "source": "basemap", "source-layer": "waterway",
                "paint": {
                    "line-color": WATER,
                    "line-width": ["interpolate", ["exponential", 1.4], ["zoom"], 8, 0.5, 14, 2, 18, 8],
                },
            },
            {
                "id": "land", "type": "fill", "source": "basemap", "source-layer": "land",
                "filter": ["==", ["geometry-type"], "Polygon"],
                "paint": { "fill-color": LAND },
            },
            {
                "id": "pier", "type": "line", "source": "basemap", "source-layer": "land",
                "filter": ["==", ["geometry-type"], "LineString"],
                "paint": {
                    "line-color": LAND,
                    "line-width": ["interpolate", ["exponential", 1.5], ["zoom"], 13, 1, 18, 10],
                },
            },
            {
                "id": "building", "type": "fill", "source": "basemap", "source-layer": "building", "minzoom": 14,
                "paint": {
                    "fill-color": "#e2ddd5",
                    "fill-outline-color": "#d2cbc1",
                    "fill-opacity": ["interpolate", ["linear"], ["zoom"], 14, 0.4, 16, 1],
                },
            },
            {
                "id": "road-tunnel", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", is_tunnel, drawn_road],
                "layout": { "line-join": "round" },
                "paint": { "line-color": "#e6e1d8", "line-width": road_width(false), "line-dasharray": [2, 1] },
            },
            {
                "id": "rail", "type": "line", "source": "basemap", "source-layer": "rail",
                "filter": not_tunnel,
                "paint": {
                    "line-color": "#b9b3ab",
                    "line-width": ["interpolate", ["linear"], ["zoom"], 10, 0.5, 16, 1.5],
                },
            },
            {
                "id": "road-casing", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", not_tunnel, drawn_road],
                "layout": road_layout,
                "paint": { "line-color": casing, "line-width": road_width(true) },
            },
            {
                "id": "road", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", not_tunnel, drawn_road],
                "layout": road_layout,
                "paint": { "line-color": fill, "line-width": road_width(false) },
            },
            {
                "id": "path", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", not_tunnel, ["==", ["get", "class"], "path"]],
                "paint": { "line-color": "#b7ab9c", "line-width": road_width(false), "line-dasharray": [1.5, 1.5] },
            },
            {
                "id": "bridge-casing", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", is_bridge, drawn_road],
                "layout": road_layout,
                "paint": { "line-color": "#bfb6a8", "line-width": road_width(true) },
            },
            {
                "id": "bridge", "type": "line", "source": "basemap", "source-layer": "road",
                "filter": ["all", is_bridge, drawn_road],
                "layout": road_layout,
                "paint": { "line-color": fill, "line-width": road_width(false) },
            },
            {
                "id": "road-label-major", "type": "symbol", "source": "basemap", "source-layer": "road", "minzoom": 12,
                "filter": ["all", ["has", "name"], ["match", ["get", "class"], ["motorway", "trunk", "primary", "secondary", "tertiary"], true, false]],
                "layout": {
                    "symbol-placement": "line",
                    "text-field": ["get", "name"],
                    "text-font": FONTS,
                    "text-size": ["interpolate", ["linear"], ["zoom"], 12, 10, 17, 14],
                    "text-max-angle": 30,
                },
                "paint": label_paint("#4f4a43"),
            },
            {
                "id": "road-label-minor", "type": "symbol", "source": "basemap", "source-layer": "road", "minzoom": 14,
                "filter": ["all", ["has", "name"], ["match", ["get", "class"], ["minor", "service"], true, false]],
                "layout": {
                    "symbol-placement": "line",
                    "text-field": ["get", "name"],
                    "text-font": FONTS,
                    "text-size": ["interpolate", ["linear"], ["zoom"], 14, 10, 17, 13],
                    "text-max-angle": 30,
                },
                "paint": label_paint("#5d574f"),
            },
            {
                "id": "poi-dot", "type": "circle", "source": "basemap", "source-layer": "poi", "minzoom": 15,
                "paint": { "circle-radius": 3, "circle-color": "#9a8f80", "circle-stroke-color": "#ffffff", "circle-stroke-width": 1 },
            },
            {
                "id": "poi-label", "type": "symbol", "source": "basemap", "source-layer": "poi", "minzoom": 15,
                "layout": {
                    "text-field": ["get", "name"],
                    "text-font": FONTS,
                    "text-size": 11,
                    "text-anchor": "top",
                    "text-offset": [0, 0.5],
                    "text-max-width": 8,
                    "text-optional": true,
                },
                "paint": label_paint("#6f665b"),
            },
            {
                "id": "place-label", "type": "symbol", "source": "basemap", "source-layer": "place",
                "layout": {
                    "text-field": ["get", "name"],
                    "text-font": FONTS,
                    "text-size": ["match", ["get", "class"], "city", 18, "town", 15, "suburb", 14, "quarter", 13, 12],
                    "text-transform": ["match", ["get", "class"], ["suburb", "quarter", "neighbourhood"], "uppercase", "none"],
                    "text-letter-spacing": ["match", ["get", "class"], ["suburb", "quarter", "neighbourhood"], 0.08, 0],
                    "text-max-width": 8,
                    "symbol-sort-key": ["-", 100, ["get", "rank"]],
                },
                "paint": label_paint("#3f3a34"),
            },
        ],
    })
}
