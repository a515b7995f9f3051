//! The maps of unmet demand: H3 cells coloured by requests left unserved,
//! over the roads of the run's network.

use super::plots::value_ticks;
use super::text::{U, escape, swatch};
use crate::basemap::{self, LAND, RoadClass, Roads};
use crate::format::{count, percent};
use crate::report::{CellCount, H3_RESOLUTION, Report, RunReport};
use std::collections::BTreeMap;
use std::fmt::Write;
use wayfare_maps::osm::style::ATTRIBUTION;

/// Sequential scale for unserved requests on the map (ColorBrewer YlOrRd
/// without its near-white end, so one unserved request still shows).
const UNSERVED_STOPS: [[u8; 3]; 6] =
    [[254, 217, 118], [254, 178, 76], [253, 141, 60], [252, 78, 42], [227, 26, 28], [177, 0, 38]];
/// Cells with requests, all served.
const ALL_SERVED_FILL: &str = "#d5dce4";
/// The longer side of a map, in user units.
const MAP_SIZE: f64 = 560.0;

pub(super) fn unmet_demand(page: &mut String, report: &Report, roads: &Roads) {
    let credit = report.scenario.openstreetmap;
    put!(
        page,
        "<section id=\"map\">\n<h2>Where demand went unmet</h2>\n<p class=\"how\"><strong>How to read this.\
         </strong> Each hexagon is an H3 cell (resolution {H3_RESOLUTION}, about 0.7 km²) where requests started. \
         Its colour is the number of those requests left unserved, on the same scale for every run; grey cells \
         had requests, all served. {}Hover a cell (or press it on a phone) for its counts. North is up.{}</p>\n",
        if roads.lines.is_empty() {
            ""
        } else {
            "Under the cells, see-through, are the roads of the run's network in the colours of the app's map. "
        },
        super::plots::first_seed_note(report)
    );
    let Some(geometry) = MapGeometry::new(&report.runs) else {
        put!(page, "<p>No cells to draw.</p>\n</section>\n");
        return;
    };
    let most_unserved =
        report.runs.iter().flat_map(|run| run.cells.iter()).map(|cell| cell.unserved).max().unwrap_or(0);
    colour_scale(page, most_unserved);
    // Each cell's outline and each road class is written once and drawn by
    // reference in every run's map, so more runs do not multiply the geometry.
    put!(page, "<svg class=\"defs\" aria-hidden=\"true\"><defs>\n");
    for (id, outline) in geometry.outlines.iter().enumerate() {
        put!(page, "<path id=\"cell-{id}\" d=\"{outline}\"/>\n");
    }
    let has_roads = road_layer(page, &geometry, roads);
    put!(page, "</defs></svg>\n<div class=\"maps\">\n");
    for (index, run) in report.runs.iter().enumerate() {
        let unserved: u64 = run.cells.iter().map(|cell| cell.unserved).sum();
        let requests: u64 = run.cells.iter().map(|cell| cell.requests).sum();
        let cells_unserved = run.cells.iter().filter(|cell| cell.unserved > 0).count();
        put!(page, "<figure>\n<h3>{}{}</h3>\n", swatch(index), escape(&run.label()));
        put!(
            page,
            "<svg class=\"map\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Unserved requests by cell, {}\">\n",
            U(geometry.width),
            U(geometry.height),
            escape(&run.label())
        );
        if has_roads {
            put!(
                page,
                "<rect width=\"{}\" height=\"{}\" fill=\"{LAND}\"/><use href=\"#roads\" clip-path=\"url(#map-frame)\"/>\n\
                 <g class=\"cells\" fill-opacity=\"{CELLS_OVER_ROADS}\">\n",
                U(geometry.width),
                U(geometry.height - MAP_FOOT)
            );
        } else {
            put!(page, "<g class=\"cells\">\n");
        }
        // Most unmet last, so its outline is not hidden under its neighbours'.
        let mut cells: Vec<&CellCount> = run.cells.iter().collect();
        cells.sort_by(|a, b| a.unserved.cmp(&b.unserved).then_with(|| a.cell.cmp(&b.cell)));
        for cell in cells {
            let Some(id) = geometry.ids.get(cell.cell.as_str()) else { continue };
            let fill = if cell.unserved == 0 {
                ALL_SERVED_FILL.to_string()
            } else {
                unserved_colour(cell.unserved, most_unserved)
            };
            let share = if cell.requests > 0 { 100.0 * cell.unserved as f64 / cell.requests as f64 } else { 0.0 };
            put!(
                page,
                "<use href=\"#cell-{id}\" fill=\"{fill}\"><title>{}\n{} requests, {} unserved ({})</title></use>\n",
                escape(&cell.cell),
                count(cell.requests),
                count(cell.unserved),
                percent(share)
            );
        }
        put!(page, "</g>\n");
        geometry.scale_bar(page);
        if credit {
            put!(
                page,
                "<text class=\"credit\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                U(geometry.width - MAP_PAD),
                U(geometry.height - 10.0),
                escape(ATTRIBUTION)
            );
        }
        put!(
            page,
            "</svg>\n<figcaption>{} of {} requests unserved, in {} of {} cells</figcaption>\n</figure>\n",
            count(unserved),
            count(requests),
            count(cells_unserved as u64),
            count(run.cells.len() as u64)
        );
    }
    put!(page, "</div>\n</section>\n");
}

/// The most points the roads of the maps may take, about ten bytes each:
/// the most important classes that fit are drawn.
const ROAD_POINTS: usize = 80_000;
/// Drawn roads keep their shape to within this many units, about a third
/// of a pixel at the size the page shows a map.
const ROAD_TOLERANCE: f64 = 0.35;
/// How opaque the cells are over roads: enough to read the colour scale,
/// little enough to see the streets through it.
const CELLS_OVER_ROADS: &str = "0.55";

/// The roads in the map's frame, one path per class, as `#roads`, each
/// class's casing under every fill as the app draws them; whether there
/// are any.
fn road_layer(page: &mut String, geometry: &MapGeometry<'_>, roads: &Roads) -> bool {
    let zoom = basemap::zoom_of(1000.0 / geometry.per_km, geometry.mid_lat);
    let frame = ([0.0, 0.0], [geometry.width, geometry.height - MAP_FOOT]);
    let mut classes: BTreeMap<RoadClass, (String, usize)> = BTreeMap::new();
    for line in &roads.lines {
        if line.class.widths(zoom).0 == 0.0 {
            continue;
        }
        let projected: Vec<[f64; 2]> = line.points.iter().map(|point| geometry.project(point.lat, point.lng)).collect();
        for piece in basemap::clip(&projected, frame.0, frame.1) {
            let (path, points) = classes.entry(line.class).or_default();
            let simple = basemap::simplify(&piece, ROAD_TOLERANCE);
            for (index, point) in simple.iter().enumerate() {
                put!(path, "{}{} {}", if index == 0 { "M" } else { "L" }, U(point[0]), U(point[1]));
            }
            *points += simple.len();
        }
    }
    let mut drawn: Vec<(RoadClass, String)> = Vec::new();
    let mut points_drawn = 0;
    for (class, (path, points)) in classes {
        if points_drawn + points > ROAD_POINTS && !drawn.is_empty() {
            break;
        }
        points_drawn += points;
        drawn.push((class, path));
    }
    if drawn.is_empty() {
        return false;
    }
    for (class, path) in &drawn {
        put!(page, "<path id=\"road-{}\" d=\"{path}\"/>\n", class.name());
    }
    put!(page, "<g id=\"roads\" class=\"roads\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n");
    for casing in [true, false] {
        for (class, _) in drawn.iter().rev() {
            let (width, with_casing) = class.widths(zoom);
            let (fill, outline) = class.colours();
            let (colour, width) = if casing { (outline, with_casing) } else { (fill, width) };
            put!(page, "<use href=\"#road-{}\" stroke=\"{colour}\" stroke-width=\"{}\"/>\n", class.name(), U(width));
        }
    }
    put!(page, "</g>\n");
    // Roads end at the map's edge, above the scale bar.
    put!(
        page,
        "<clipPath id=\"map-frame\"><rect width=\"{}\" height=\"{}\"/></clipPath>\n",
        U(geometry.width),
        U(geometry.height - MAP_FOOT)
    );
    true
}

/// Every cell of every run, projected once: x = lng·cos(mid latitude),
/// y = −lat, fitted into [`MAP_SIZE`] on the longer side.
struct MapGeometry<'a> {
    ids: BTreeMap<&'a str, usize>,
    /// The projection: the frame's west and north edges, the shrink of a
    /// degree of longitude at the middle latitude, units per degree.
    west: f64,
    north: f64,
    shrink: f64,
    per_degree: f64,
    mid_lat: f64,
    /// SVG path data, by id.
    outlines: Vec<String>,
    width: f64,
    height: f64,
    /// User units per kilometre.
    per_km: f64,
}

/// Room around the cells, and below them for the scale bar.
const MAP_PAD: f64 = 8.0;
const MAP_FOOT: f64 = 30.0;

impl<'a> MapGeometry<'a> {
    fn new(runs: &'a [RunReport]) -> Option<MapGeometry<'a>> {
        let mut boundaries: BTreeMap<&str, &[[f64; 2]]> = BTreeMap::new();
        for cell in runs.iter().flat_map(|run| run.cells.iter()) {
            if cell.boundary.len() >= 3 && cell.boundary.iter().flatten().all(|degrees| degrees.is_finite()) {
                boundaries.entry(cell.cell.as_str()).or_insert(&cell.boundary);
            }
        }
        let corners = || boundaries.values().flat_map(|boundary| boundary.iter());
        let south = corners().map(|corner| corner[0]).reduce(f64::min)?;
        let north = corners().map(|corner| corner[0]).reduce(f64::max)?;
        let west = corners().map(|corner| corner[1]).reduce(f64::min)?;
        let east = corners().map(|corner| corner[1]).reduce(f64::max)?;
        let shrink = ((south + north) / 2.0).to_radians().cos();
        let (across, up) = (((east - west) * shrink).max(1e-9), (north - south).max(1e-9));
        let per_degree = MAP_SIZE / across.max(up);
        let project = |corner: &[f64; 2]| {
            (MAP_PAD + (corner[1] - west) * shrink * per_degree, MAP_PAD + (north - corner[0]) * per_degree)
        };
        let mut ids = BTreeMap::new();
        let mut outlines = Vec::with_capacity(boundaries.len());
        for (id, (cell, boundary)) in boundaries.into_iter().enumerate() {
            let mut outline = String::new();
            for (index, corner) in boundary.iter().enumerate() {
                let (x, y) = project(corner);
                put!(outline, "{}{} {}", if index == 0 { "M" } else { "L" }, U(x), U(y));
            }
            outline.push('Z');
            ids.insert(cell, id);
            outlines.push(outline);
        }
        Some(MapGeometry {
            ids,
            west,
            north,
            shrink,
            per_degree,
            mid_lat: (south + north) / 2.0,
            outlines,
            width: across * per_degree + 2.0 * MAP_PAD,
            height: up * per_degree + 2.0 * MAP_PAD + MAP_FOOT,
            // A degree of latitude is 111.32 km.
            per_km: per_degree / 111.32,
        })
    }

    /// A place on the map, in user units.
    fn project(&self, lat: f64, lng: f64) -> [f64; 2] {
        [MAP_PAD + (lng - self.west) * self.shrink * self.per_degree, MAP_PAD + (self.north - lat) * self.per_degree]
    }

    /// A round distance at the bottom left, at most a third of the width.
    fn scale_bar(&self, page: &mut String) {
        let fits = |km: f64| km * self.per_km <= (self.width - 2.0 * MAP_PAD) / 3.0;
        let Some(km) = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
            .into_iter()
            .rev()
            .find(|km| fits(*km))
        else {
            return;
        };
        let (x, y, length) = (MAP_PAD, self.height - 10.0, km * self.per_km);
        let label = if km < 1.0 { format!("{} m", km * 1000.0) } else { format!("{km} km") };
        put!(
            page,
            "<path class=\"axis\" d=\"M{} {}v-5M{} {}H{}v-5\"/><text x=\"{}\" y=\"{}\">{label}</text>\n",
            U(x),
            U(y - 5.0),
            U(x),
            U(y),
            U(x + length),
            U(x + length + 6.0),
            U(y)
        );
    }
}

/// The colour of `unserved` on a square-root scale up to `most`: unmet
/// demand is skewed, and a linear scale would leave most cells pale.
fn unserved_colour(unserved: u64, most: u64) -> String {
    let position = (unserved as f64 / most.max(1) as f64).sqrt().clamp(0.0, 1.0) * (UNSERVED_STOPS.len() - 1) as f64;
    let low = (position.floor() as usize).min(UNSERVED_STOPS.len() - 2);
    let fraction = position - low as f64;
    let channel = |index: usize| {
        UNSERVED_STOPS[low][index] as f64
            + (UNSERVED_STOPS[low + 1][index] as f64 - UNSERVED_STOPS[low][index] as f64) * fraction
    };
    format!("#{:02x}{:02x}{:02x}", channel(0).round() as u8, channel(1).round() as u8, channel(2).round() as u8)
}

/// The map's key: the all-served grey, then the gradient from 1 to `most`
/// with ticks where the square-root scale puts them.
fn colour_scale(page: &mut String, most: u64) {
    let (width, height) = (480.0, 50.0);
    let (bar_left, bar_right, bar_top) = (86.0, width - 16.0, 8.0);
    put!(
        page,
        "<svg class=\"scale\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Colour scale of unserved requests\">\n\
         <rect x=\"0\" y=\"{}\" width=\"26\" height=\"14\" fill=\"{ALL_SERVED_FILL}\"/>\
         <text x=\"32\" y=\"{}\">none</text>\n",
        U(width),
        U(height),
        U(bar_top),
        U(bar_top + 11.0)
    );
    if most == 0 {
        put!(page, "<text x=\"{}\" y=\"{}\">every request served</text>\n</svg>\n", U(bar_left), U(bar_top + 11.0));
        return;
    }
    put!(page, "<defs><linearGradient id=\"unserved-scale\">");
    for (index, stop) in UNSERVED_STOPS.iter().enumerate() {
        put!(
            page,
            "<stop offset=\"{}\" stop-color=\"#{:02x}{:02x}{:02x}\"/>",
            U(index as f64 / (UNSERVED_STOPS.len() - 1) as f64 * 100.0).percent(),
            stop[0],
            stop[1],
            stop[2]
        );
    }
    put!(
        page,
        "</linearGradient></defs>\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"url(#unserved-scale)\"/>\n",
        U(bar_left),
        U(bar_top),
        U(bar_right - bar_left)
    );
    let at = |value: u64| bar_left + (value as f64 / most as f64).sqrt() * (bar_right - bar_left);
    let (_, ticks) = value_ticks(most as f64, true);
    let mut values: Vec<u64> = vec![1];
    values.extend(ticks.iter().map(|(value, _)| *value as u64).filter(|value| *value > 1 && *value < most));
    values.push(most);
    values.dedup();
    // Labels closer than this would overlap; the ends win.
    let mut placed: Vec<f64> = Vec::new();
    let mut marks = String::new();
    for (index, value) in values.iter().enumerate() {
        let x = at(*value);
        let is_end = index == 0 || index == values.len() - 1;
        if !is_end && (placed.iter().any(|left| x - left < 44.0) || at(most) - x < 44.0) {
            continue;
        }
        placed.push(x);
        put!(marks, "M{} {}v5", U(x), U(bar_top + 14.0));
        put!(
            page,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            U(x),
            U(bar_top + 34.0),
            count(*value)
        );
    }
    put!(page, "<path class=\"axis\" d=\"{marks}\"/>\n</svg>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_colour_scale_runs_from_light_to_dark() {
        assert_eq!(unserved_colour(10, 10), "#b10026");
        assert_eq!(unserved_colour(0, 10), "#fed976");
    }
}
