//! How long and how far a car drives between two places: on roads through
//! the maps crate's router (an OpenStreetMap extract, or an OSMnx graph as
//! HIVE ships it), or in straight lines at a fixed speed.

use crate::input::RoadNetwork;
use std::path::Path;
use wayfare_engine::LatLng;
use wayfare_engine::geo::distance_km;
use wayfare_maps::osm::basemap::Basemap;
use wayfare_maps::osm::ch::Total;
use wayfare_maps::osm::network::{GraphLink, Network};
use wayfare_maps::osm::router::{Destination, Origin, Router, Snap};

/// Straight-line speed: a city's average door to door.
pub use wayfare_engine::dispatch::STRAIGHT_LINE_KMH;
/// A place further than this from any road is off the network.
pub const OFF_NETWORK_M: f64 = 1_000.0;

/// A place, with where it meets the roads when there are roads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spot {
    pub point: LatLng,
    snap: Option<Snap>,
}

impl Spot {
    /// A place as it is, not on any road: for straight lines, and for
    /// positions a live driver reports between snaps.
    pub fn free(point: LatLng) -> Spot {
        Spot { point, snap: None }
    }
}

/// A place many drives go to (a waiting pickup), prepared once: on roads
/// the search from its side is kept, so each drive there is half a search.
pub struct Target {
    spot: Spot,
    destination: Option<Destination>,
}

/// A place many drives start from (an idle driver weighed window after
/// window), prepared once: on roads its upward search is kept, so each
/// drive from it to a [`Target`] needs no search at all.
pub struct Start {
    spot: Spot,
    origin: Option<Origin>,
}

/// A drive: time in ms, distance in metres.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Leg {
    pub time_ms: i64,
    pub distance_m: f64,
}

pub enum Travel {
    StraightLine { speed_kmh: f64 },
    Roads { router: Box<Router>, kind: &'static str },
}

impl Travel {
    pub fn straight_line() -> Travel {
        Travel::StraightLine { speed_kmh: STRAIGHT_LINE_KMH }
    }

    /// The roads of an OSMnx graph, prepared for routing.
    pub fn from_osmnx(graph: &RoadNetwork) -> Result<Travel, String> {
        let nodes: Vec<LatLng> = graph.nodes.iter().map(|node| node.position).collect();
        let links: Vec<GraphLink> = graph
            .links
            .iter()
            .map(|link| GraphLink {
                from: link.from,
                to: link.to,
                length_m: link.length_m,
                time_ms: (link.travel_time_s * 1000.0).round().clamp(0.0, f64::from(u32::MAX)) as u32,
            })
            .collect();
        let network = Network::from_graph(&nodes, &links).map_err(|error| error.to_string())?;
        Ok(Travel::Roads { router: Box::new(Router::prepare(network, |_, _| {})), kind: "osmnx" })
    }

    /// The roads of an OpenStreetMap extract, from the maps cache when it
    /// holds them (as `wayfare serve` keeps them), else prepared there now;
    /// with the basemap the app draws from the same extract.
    pub fn from_extract(
        extract: &Path,
        cache_dir: &Path,
        progress: impl FnMut(&str, usize, usize),
    ) -> Result<(Travel, Basemap), String> {
        let (prepared, _) = wayfare_maps::osm::cache::load_or_prepare(extract, cache_dir, progress)
            .map_err(|error| error.to_string())?;
        Ok((Travel::Roads { router: Box::new(prepared.router), kind: "osm" }, prepared.basemap))
    }

    /// `osm`, `osmnx` or `straight-line`.
    pub fn kind(&self) -> &'static str {
        match self {
            Travel::StraightLine { .. } => "straight-line",
            Travel::Roads { kind, .. } => kind,
        }
    }

    /// The place as the network sees it; `None` when it is off the network.
    pub fn spot(&self, point: LatLng) -> Option<Spot> {
        if !point.is_valid() {
            return None;
        }
        match self {
            Travel::StraightLine { .. } => Some(Spot { point, snap: None }),
            Travel::Roads { router, .. } => {
                let snap = router.snap(point).filter(|snap| snap.distance_m <= OFF_NETWORK_M)?;
                Some(Spot { point, snap: Some(snap) })
            }
        }
    }

    /// The drive from `from` to `to`; `None` when the roads do not go there.
    pub fn leg(&self, from: &Spot, to: &Spot) -> Option<Leg> {
        match (self, from.snap, to.snap) {
            (Travel::Roads { router, .. }, Some(start), Some(end)) => router.totals_snaps(&start, &end).map(road_leg),
            _ => self.legs_to(std::slice::from_ref(from), to).pop().flatten(),
        }
    }

    /// `to` prepared for many drives to it ([`Travel::legs_to_targets`]).
    pub fn target(&self, to: &Spot) -> Target {
        let destination = match (self, to.snap) {
            (Travel::Roads { router, .. }, Some(end)) => Some(router.destination(&end)),
            _ => None,
        };
        Target { spot: *to, destination }
    }

    /// [`Travel::leg`] from `from` to each prepared target: the same drives,
    /// on roads with one search from `from` for all of them.
    pub fn legs_to_targets(&self, from: &Spot, to: &[&Target]) -> Vec<Option<Leg>> {
        let destinations: Option<Vec<&Destination>> = to.iter().map(|target| target.destination.as_ref()).collect();
        match (self, from.snap, destinations) {
            (Travel::Roads { router, .. }, Some(start), Some(destinations)) => {
                router.totals_to_many(&start, &destinations).into_iter().map(|total| total.map(road_leg)).collect()
            }
            _ => to.iter().map(|target| self.leg(from, &target.spot)).collect(),
        }
    }

    /// `from` prepared for many drives from it ([`Travel::leg_between`]).
    pub fn start(&self, from: &Spot) -> Start {
        let origin = match (self, from.snap) {
            (Travel::Roads { router, .. }, Some(start)) => Some(router.origin(&start)),
            _ => None,
        };
        Start { spot: *from, origin }
    }

    /// [`Travel::leg`] from a prepared start to a prepared target: the same
    /// drive, on roads without a search.
    pub fn leg_between(&self, from: &Start, to: &Target) -> Option<Leg> {
        match (self, &from.origin, &to.destination) {
            (Travel::Roads { router, .. }, Some(origin), Some(destination)) => {
                router.totals_between(origin, destination).map(road_leg)
            }
            _ => self.leg(&from.spot, &to.spot),
        }
    }

    /// The drives from each of `from` to `to`.
    pub fn legs_to(&self, from: &[Spot], to: &Spot) -> Vec<Option<Leg>> {
        self.matrix(from, std::slice::from_ref(to)).into_iter().map(|mut row| row.pop().flatten()).collect()
    }

    /// The drives from every one of `from` to every one of `to`: one
    /// many-to-many search on roads, cheaper than a search per pair.
    pub fn matrix(&self, from: &[Spot], to: &[Spot]) -> Vec<Vec<Option<Leg>>> {
        match self {
            Travel::StraightLine { speed_kmh } => from
                .iter()
                .map(|start| {
                    to.iter()
                        .map(|end| {
                            let km = distance_km(start.point, end.point);
                            let time_ms = (km / speed_kmh * 3_600_000.0).round() as i64;
                            Some(Leg { time_ms, distance_m: km * 1000.0 })
                        })
                        .collect()
                })
                .collect(),
            Travel::Roads { router, .. } => {
                let origins: Vec<Option<Snap>> = from.iter().map(|spot| spot.snap).collect();
                let destinations: Vec<Option<Snap>> = to.iter().map(|spot| spot.snap).collect();
                router
                    .matrix_snaps(&origins, &destinations)
                    .into_iter()
                    .map(|row| row.into_iter().map(|cell| cell.map(road_leg)).collect())
                    .collect()
            }
        }
    }
}

fn road_leg(total: Total) -> Leg {
    Leg { time_ms: total.time_ms.max(0), distance_m: total.length_dm.max(0) as f64 / 10.0 }
}
