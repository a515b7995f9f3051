//! Supply and demand per H3 cell: where drivers wait and where riders do.
//! Cells come with their boundary, so the console draws them as they are
//! (DESIGN.md: H3 layers are GeoJSON fills computed on the server).

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::LatLng;
use h3o::{CellIndex, Resolution};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// The resolutions the console offers: 6 (about 36 km² a cell, a region) to
/// 10 (about 0.015 km², a block).
pub const RESOLUTIONS: RangeInclusive<u8> = 6..=10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemandKind {
    /// A booking waiting for a driver now.
    Open,
    /// A booking made within the recent window, whatever became of it.
    Recent,
    /// A booking within the window that ended without a driver.
    Unserved,
}

/// One rider's demand at its pickup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Demand {
    pub pickup: LatLng,
    pub kind: DemandKind,
}

/// One cell's counts. `short` marks where demand exceeds supply: more riders
/// waiting, plus riders lost lately, than drivers free to take them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HexCell {
    /// The H3 index, as H3 writes it (15 hex digits).
    pub cell: String,
    pub available: u32,
    pub open: u32,
    pub recent: u32,
    pub unserved: u32,
    pub short: bool,
    /// The cell's outline as a closed ring of `[lng, lat]`, GeoJSON's order.
    pub boundary: Vec<[f64; 2]>,
}

#[derive(Default)]
struct Counts {
    available: u32,
    open: u32,
    recent: u32,
    unserved: u32,
}

fn cell_of(point: LatLng, resolution: Resolution) -> Option<CellIndex> {
    // A point off the earth counts nowhere rather than failing the map.
    h3o::LatLng::new(point.lat, point.lng).ok().filter(|_| point.is_valid()).map(|at| at.to_cell(resolution))
}

/// Counts available drivers and demand per cell at `resolution`; only cells
/// with something in them, in H3 index order (so the answer is stable).
pub fn hexagons(
    resolution: u8,
    available_drivers: impl IntoIterator<Item = LatLng>,
    demand: impl IntoIterator<Item = Demand>,
) -> DomainResult<Vec<HexCell>> {
    if !RESOLUTIONS.contains(&resolution) {
        return Err(DomainError::on_field(ErrorKey::InvalidInput, "resolution"));
    }
    let resolution =
        Resolution::try_from(resolution).map_err(|_| DomainError::on_field(ErrorKey::InvalidInput, "resolution"))?;
    let mut cells: BTreeMap<CellIndex, Counts> = BTreeMap::new();
    for driver in available_drivers {
        if let Some(cell) = cell_of(driver, resolution) {
            cells.entry(cell).or_default().available += 1;
        }
    }
    for wanted in demand {
        if let Some(cell) = cell_of(wanted.pickup, resolution) {
            let counts = cells.entry(cell).or_default();
            match wanted.kind {
                DemandKind::Open => counts.open += 1,
                DemandKind::Recent => counts.recent += 1,
                DemandKind::Unserved => counts.unserved += 1,
            }
        }
    }
    Ok(cells
        .into_iter()
        .map(|(cell, counts)| {
            let mut boundary: Vec<[f64; 2]> =
                cell.boundary().iter().map(|corner| [corner.lng(), corner.lat()]).collect();
            if let Some(first) = boundary.first().copied() {
                boundary.push(first);
            }
            HexCell {
                cell: cell.to_string(),
                available: counts.available,
                open: counts.open,
                recent: counts.recent,
                unserved: counts.unserved,
                short: counts.open + counts.unserved > counts.available,
                boundary,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FELLS_POINT: LatLng = LatLng { lat: 39.2825, lng: -76.5927 };
    const FORT_MCHENRY: LatLng = LatLng { lat: 39.2634, lng: -76.5803 };

    fn near(point: LatLng, metres_north: f64) -> LatLng {
        LatLng::new(point.lat + metres_north / 111_195.0, point.lng)
    }

    #[test]
    fn counts_supply_and_demand_in_the_cells_they_fall_in() {
        let drivers = [FELLS_POINT, near(FELLS_POINT, 20.0), FORT_MCHENRY];
        let demand = [
            Demand { pickup: near(FELLS_POINT, -10.0), kind: DemandKind::Open },
            Demand { pickup: FORT_MCHENRY, kind: DemandKind::Open },
            Demand { pickup: near(FORT_MCHENRY, 10.0), kind: DemandKind::Open },
            Demand { pickup: FORT_MCHENRY, kind: DemandKind::Recent },
            Demand { pickup: FORT_MCHENRY, kind: DemandKind::Unserved },
        ];
        let cells = hexagons(8, drivers, demand).unwrap();
        assert_eq!(cells.len(), 2, "{cells:?}");
        let fells = cells.iter().find(|cell| cell.available == 2).unwrap();
        assert_eq!((fells.open, fells.recent, fells.unserved, fells.short), (1, 0, 0, false));
        let fort = cells.iter().find(|cell| cell.available == 1).unwrap();
        // Two waiting and one lost against one free driver: short of drivers.
        assert_eq!((fort.open, fort.recent, fort.unserved, fort.short), (2, 1, 1, true));
        assert_eq!(fort.cell.len(), 15);
    }

    #[test]
    fn a_cell_is_drawn_as_a_closed_hexagon_around_its_points() {
        let cells = hexagons(9, [FELLS_POINT], []).unwrap();
        let ring = &cells[0].boundary;
        assert_eq!(ring.len(), 7, "six corners and the first again");
        assert_eq!(ring.first(), ring.last());
        let (lngs, lats): (Vec<f64>, Vec<f64>) = ring.iter().map(|[lng, lat]| (*lng, *lat)).unzip();
        let inside = |value: f64, values: &[f64]| {
            values.iter().cloned().fold(f64::MAX, f64::min) < value
                && value < values.iter().cloned().fold(f64::MIN, f64::max)
        };
        assert!(inside(FELLS_POINT.lng, &lngs) && inside(FELLS_POINT.lat, &lats), "{ring:?}");
    }

    #[test]
    fn coarser_resolutions_gather_more_into_one_cell() {
        let drivers = [FELLS_POINT, FORT_MCHENRY];
        assert_eq!(hexagons(9, drivers, []).unwrap().len(), 2);
        let region = hexagons(6, drivers, []).unwrap();
        assert_eq!(region.len(), 1);
        assert_eq!(region[0].available, 2);
    }

    #[test]
    fn refuses_resolutions_outside_the_consoles_and_ignores_points_off_the_earth() {
        assert!(hexagons(5, [FELLS_POINT], []).is_err());
        assert!(hexagons(11, [FELLS_POINT], []).is_err());
        let cells = hexagons(8, [LatLng::new(95.0, 0.0), LatLng::new(f64::NAN, 1.0), FELLS_POINT], []).unwrap();
        assert_eq!(cells.len(), 1);
    }

    #[test]
    fn the_answer_does_not_depend_on_the_order_things_came_in() {
        let demand = [
            Demand { pickup: FORT_MCHENRY, kind: DemandKind::Open },
            Demand { pickup: FELLS_POINT, kind: DemandKind::Recent },
        ];
        let forward = hexagons(8, [FELLS_POINT, FORT_MCHENRY], demand).unwrap();
        let mut reversed_demand = demand;
        reversed_demand.reverse();
        let backward = hexagons(8, [FORT_MCHENRY, FELLS_POINT], reversed_demand).unwrap();
        assert_eq!(forward, backward);
    }
}
