//! Where an idle driver should wait: demand learned per H3 cell from the
//! bookings seen, weighed against the free drivers already there. The server
//! shows the answer on the driver's map (never forced); the simulator's
//! drivers can follow it. Pure: the caller says what happened and when.
//!
//! A cell's expected demand blends two rates: the recent one (an
//! exponentially decayed count, so a burst shows within minutes and fades),
//! and, once a whole day has been seen, the same hour on the days before (so
//! the morning rush is expected before it starts).

use crate::geo::distance_km;
use crate::ids::UserId;
use crate::model::LatLng;
use h3o::{CellIndex, Resolution};
use serde::Serialize;
use std::collections::HashMap;

/// About 0.74 km² a cell (edge ~460 m): a few blocks, a short drive across.
pub const RESOLUTION: Resolution = Resolution::Eight;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// How far back a starting node reads the bookings to know demand again: a
/// week gives every hour of the day its earlier days.
pub const HISTORY_MS: i64 = 7 * DAY_MS;
/// And at most this many of them, the newest (a busy city's last hours).
pub const HISTORY_LIMIT: u32 = 200_000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// How far a suggestion may be, in rings of cells around the driver's
    /// (3 rings at resolution 8: about 2.5 km).
    pub rings: u32,
    /// How fast the recent rate forgets.
    pub half_life_ms: i64,
    /// A cell is suggested only when its demand per free driver, after the
    /// drive there, beats the driver's own cell by this factor.
    pub min_gain: f64,
    /// And only when at least this many riders an hour are expected there.
    pub min_per_hour: f64,
    /// Half the worth of a cell is lost over this distance.
    pub half_worth_km: f64,
    /// Local time's offset, so "the same hour" is the riders' hour.
    pub utc_offset_ms: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rings: 3,
            half_life_ms: 30 * 60_000,
            min_gain: 1.5,
            min_per_hour: 1.0,
            half_worth_km: 2.0,
            utc_offset_ms: 0,
        }
    }
}

/// A decayed count: `level` as of `at_ms`.
#[derive(Debug, Clone, Copy)]
struct Recent {
    level: f64,
    at_ms: i64,
}

/// The demand seen, per cell.
#[derive(Debug, Clone)]
pub struct DemandModel {
    settings: Settings,
    /// ln 2 / half-life, per millisecond.
    decay: f64,
    recent: HashMap<CellIndex, Recent>,
    /// Bookings per (cell, local hour of day) over the completed days.
    hours: HashMap<(CellIndex, u8), u32>,
    /// The same for the day in progress, folded into `hours` when it ends.
    today: HashMap<(CellIndex, u8), u32>,
    /// The local day in progress, and how many whole days came before it.
    day: Option<i64>,
    days_seen: u32,
}

/// An area an idle driver is pointed to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SuggestedArea {
    /// The H3 index, as H3 writes it.
    pub cell: String,
    pub center: LatLng,
    /// The cell's outline as a closed ring of `[lng, lat]`, GeoJSON's order.
    pub boundary: Vec<[f64; 2]>,
    /// Riders expected there in the next hour.
    pub expected_per_hour: f64,
    /// Straight-line distance from the driver.
    pub distance_km: f64,
}

pub fn cell_of(point: LatLng) -> Option<CellIndex> {
    h3o::LatLng::new(point.lat, point.lng).ok().filter(|_| point.is_valid()).map(|at| at.to_cell(RESOLUTION))
}

fn center_of(cell: CellIndex) -> LatLng {
    let center = h3o::LatLng::from(cell);
    LatLng::new(center.lat(), center.lng())
}

impl DemandModel {
    pub fn new(settings: Settings) -> DemandModel {
        DemandModel {
            settings,
            decay: std::f64::consts::LN_2 / settings.half_life_ms.max(1) as f64,
            recent: HashMap::new(),
            hours: HashMap::new(),
            today: HashMap::new(),
            day: None,
            days_seen: 0,
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    fn local(&self, at_ms: i64) -> (i64, u8) {
        let local = at_ms + self.settings.utc_offset_ms;
        (local.div_euclid(DAY_MS), (local.rem_euclid(DAY_MS) / HOUR_MS) as u8)
    }

    /// A rider asked for a pickup at `pickup` at `at_ms`. Calls come in time
    /// order; an older one (a history replayed late) counts only by hour.
    pub fn observe(&mut self, pickup: LatLng, at_ms: i64) {
        let Some(cell) = cell_of(pickup) else { return };
        let (day, hour) = self.local(at_ms);
        match self.day {
            None => self.day = Some(day),
            Some(current) if day > current => {
                for (key, count) in self.today.drain() {
                    *self.hours.entry(key).or_default() += count;
                }
                self.days_seen += u32::try_from(day - current).unwrap_or(u32::MAX);
                self.day = Some(day);
            }
            _ => {}
        }
        if Some(day) == self.day {
            *self.today.entry((cell, hour)).or_default() += 1;
        } else {
            *self.hours.entry((cell, hour)).or_default() += 1;
        }
        let decay = self.decay;
        let recent = self.recent.entry(cell).or_insert(Recent { level: 0.0, at_ms });
        if at_ms >= recent.at_ms {
            recent.level = recent.level * (-decay * (at_ms - recent.at_ms) as f64).exp() + 1.0;
            recent.at_ms = at_ms;
        } else {
            recent.level += (-decay * (recent.at_ms - at_ms) as f64).exp();
        }
    }

    /// Riders expected in `cell` over the hour from `now_ms`.
    pub fn expected_per_hour(&self, cell: CellIndex, now_ms: i64) -> f64 {
        // A decayed count settles at rate / decay: per hour, level × decay × 1 h.
        let recent = self.recent.get(&cell).map_or(0.0, |recent| {
            let elapsed = (now_ms - recent.at_ms).max(0) as f64;
            recent.level * (-self.decay * elapsed).exp() * self.decay * HOUR_MS as f64
        });
        if self.days_seen == 0 {
            return recent;
        }
        // The coming hour is mostly the next clock hour from the half-hour on.
        let (_, hour) = self.local(now_ms + HOUR_MS / 2);
        let usual = f64::from(self.hours.get(&(cell, hour)).copied().unwrap_or(0)) / f64::from(self.days_seen);
        (recent + usual) / 2.0
    }

    /// Where a free driver at `from` should wait, if somewhere near beats
    /// where they are. `free_drivers` counts the free drivers in a cell
    /// (those already heading there included), this one not among them.
    pub fn suggest(&self, from: LatLng, now_ms: i64, free_drivers: impl Fn(CellIndex) -> u32) -> Option<SuggestedArea> {
        let own = cell_of(from)?;
        let settings = &self.settings;
        let worth = |cell: CellIndex, km: f64| {
            let per_driver = self.expected_per_hour(cell, now_ms) / f64::from(free_drivers(cell) + 1);
            per_driver * 0.5f64.powf(km / settings.half_worth_km.max(0.01))
        };
        let here = worth(own, 0.0);
        let mut best: Option<(f64, CellIndex, f64)> = None;
        let mut cells: Vec<CellIndex> = own.grid_disk(settings.rings);
        // In index order: ties go the same way whatever order H3 lists them.
        cells.sort_unstable();
        for cell in cells {
            if cell == own || self.expected_per_hour(cell, now_ms) < settings.min_per_hour {
                continue;
            }
            let km = distance_km(from, center_of(cell));
            let value = worth(cell, km);
            if best.is_none_or(|(known, _, _)| value > known) {
                best = Some((value, cell, km));
            }
        }
        let (value, cell, km) = best?;
        if value <= here * settings.min_gain || value <= 0.0 {
            return None;
        }
        let mut boundary: Vec<[f64; 2]> = cell.boundary().iter().map(|corner| [corner.lng(), corner.lat()]).collect();
        if let Some(first) = boundary.first().copied() {
            boundary.push(first);
        }
        Some(SuggestedArea {
            cell: cell.to_string(),
            center: center_of(cell),
            boundary,
            expected_per_hour: self.expected_per_hour(cell, now_ms),
            distance_km: km,
        })
    }
}

/// How long a driver pointed to an area counts there rather than where
/// they are: about the drive across the suggestion's reach.
pub const HEADING_MS: i64 = 10 * 60_000;

/// The drivers pointed to an area lately: counted there while they go, so
/// the next free driver asking is not sent to the same riders.
#[derive(Debug, Clone, Default)]
pub struct Pointed {
    to: HashMap<UserId, (CellIndex, i64)>,
    pruned_at: i64,
}

impl Pointed {
    pub fn point(&mut self, driver: UserId, cell: CellIndex, now_ms: i64) {
        self.to.insert(driver, (cell, now_ms));
        if now_ms - self.pruned_at >= HEADING_MS {
            self.to.retain(|_, (_, at)| now_ms - *at < HEADING_MS);
            self.pruned_at = now_ms;
        }
    }

    pub fn heading(&self, driver: UserId, now_ms: i64) -> Option<CellIndex> {
        self.to.get(&driver).filter(|(_, at)| now_ms - *at < HEADING_MS).map(|(cell, _)| *cell)
    }

    pub fn len(&self) -> usize {
        self.to.len()
    }

    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }
}

/// Free drivers per cell: where each is pointed to lately, else where each is.
pub fn free_by_cell(
    free: impl IntoIterator<Item = (UserId, LatLng)>,
    pointed: &Pointed,
    now_ms: i64,
) -> HashMap<CellIndex, u32> {
    let mut counts = HashMap::new();
    for (driver, at) in free {
        if let Some(cell) = pointed.heading(driver, now_ms).or_else(|| cell_of(at)) {
            *counts.entry(cell).or_default() += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    const FELLS_POINT: LatLng = LatLng { lat: 39.2825, lng: -76.5927 };
    const CANTON: LatLng = LatLng { lat: 39.2804, lng: -76.5750 };
    const STADIUM: LatLng = LatLng { lat: 39.2839, lng: -76.6217 };
    const TOWSON: LatLng = LatLng { lat: 39.4015, lng: -76.6019 };
    const MINUTE: i64 = 60_000;
    /// 2026-11-02 00:00 UTC, a Monday.
    const MONDAY: i64 = 1_793_577_600_000;

    fn model() -> DemandModel {
        DemandModel::new(Settings::default())
    }

    fn nobody(_: CellIndex) -> u32 {
        0
    }

    #[test]
    fn a_steady_stream_is_expected_at_its_rate() {
        let mut demand = model();
        // One booking a minute for three hours: 60 an hour.
        for minute in 0..180 {
            demand.observe(CANTON, MONDAY + minute * MINUTE);
        }
        let rate = demand.expected_per_hour(cell_of(CANTON).unwrap(), MONDAY + 180 * MINUTE);
        assert!((55.0..65.0).contains(&rate), "{rate}");
        // Half an hour of silence halves it.
        let later = demand.expected_per_hour(cell_of(CANTON).unwrap(), MONDAY + 210 * MINUTE);
        assert!((later - rate / 2.0).abs() < 2.0, "{later} after {rate}");
        assert_eq!(demand.expected_per_hour(cell_of(TOWSON).unwrap(), MONDAY + 180 * MINUTE), 0.0);
    }

    #[test]
    fn a_free_driver_is_pointed_to_the_busy_cell_nearby() {
        let mut demand = model();
        for minute in 0..60 {
            demand.observe(CANTON, MONDAY + minute * MINUTE);
        }
        let suggestion = demand.suggest(FELLS_POINT, MONDAY + 60 * MINUTE, nobody).expect("Canton is busy");
        assert_eq!(suggestion.cell, cell_of(CANTON).unwrap().to_string());
        assert!(suggestion.expected_per_hour > 30.0, "{suggestion:?}");
        assert!((1.0..2.5).contains(&suggestion.distance_km), "{suggestion:?}");
        assert_eq!(suggestion.boundary.len(), 7);
        assert_eq!(suggestion.boundary.first(), suggestion.boundary.last());
        // A driver already in Canton stays; one in Towson is out of reach.
        assert_eq!(demand.suggest(CANTON, MONDAY + 60 * MINUTE, nobody), None);
        assert_eq!(demand.suggest(TOWSON, MONDAY + 60 * MINUTE, nobody), None);
    }

    #[test]
    fn drivers_already_there_share_its_demand() {
        let mut demand = model();
        for minute in 0..60 {
            demand.observe(CANTON, MONDAY + minute * MINUTE);
            demand.observe(STADIUM, MONDAY + minute * MINUTE);
        }
        let canton = cell_of(CANTON).unwrap();
        let crowded = |cell: CellIndex| if cell == canton { 5 } else { 0 };
        let suggestion = demand.suggest(FELLS_POINT, MONDAY + 60 * MINUTE, crowded).expect("the stadium has riders");
        assert_eq!(suggestion.cell, cell_of(STADIUM).unwrap().to_string());
        // With the driver's own cell as busy and as free, staying wins.
        let mut busy_here = demand.clone();
        for minute in 0..60 {
            busy_here.observe(FELLS_POINT, MONDAY + minute * MINUTE);
        }
        assert_eq!(busy_here.suggest(FELLS_POINT, MONDAY + 60 * MINUTE, crowded), None);
    }

    #[test]
    fn yesterday_s_rush_is_expected_before_it_starts() {
        let mut demand = model();
        // Monday 08:00–09:00: 40 bookings in Canton.
        for booking in 0..40 {
            demand.observe(CANTON, MONDAY + 8 * HOUR_MS + booking * 90_000);
        }
        // Tuesday 07:50, nothing seen since Monday.
        let tuesday = MONDAY + DAY_MS + 7 * HOUR_MS + 50 * MINUTE;
        demand.observe(TOWSON, tuesday - MINUTE);
        let canton = cell_of(CANTON).unwrap();
        let expected = demand.expected_per_hour(canton, tuesday);
        assert!((15.0..25.0).contains(&expected), "half of Monday's 40, the recent rate long gone: {expected}");
        assert!(demand.suggest(FELLS_POINT, tuesday, nobody).is_some_and(|area| area.cell == canton.to_string()));
        // At Tuesday noon Monday's noon was quiet: nothing to go to.
        assert_eq!(demand.suggest(FELLS_POINT, MONDAY + DAY_MS + 12 * HOUR_MS, nobody), None);
    }

    #[test]
    fn the_riders_hour_is_local() {
        let mut demand = DemandModel::new(Settings { utc_offset_ms: -5 * HOUR_MS, ..Settings::default() });
        // 13:00 UTC is 08:00 in Baltimore in winter.
        for booking in 0..40 {
            demand.observe(CANTON, MONDAY + 13 * HOUR_MS + booking * 90_000);
        }
        demand.observe(TOWSON, MONDAY + DAY_MS + 12 * HOUR_MS);
        let canton = cell_of(CANTON).unwrap();
        assert!(demand.expected_per_hour(canton, MONDAY + DAY_MS + 12 * HOUR_MS + 50 * MINUTE) > 15.0);
        assert!(demand.expected_per_hour(canton, MONDAY + DAY_MS + 7 * HOUR_MS + 50 * MINUTE) < 1.0);
    }

    #[test]
    fn a_driver_pointed_somewhere_counts_there_until_they_could_have_arrived() {
        let (first, second) = (UserId::from_u128(1), UserId::from_u128(2));
        let canton = cell_of(CANTON).unwrap();
        let fells = cell_of(FELLS_POINT).unwrap();
        let mut pointed = Pointed::default();
        pointed.point(first, canton, MONDAY);
        let free = [(first, FELLS_POINT), (second, FELLS_POINT)];
        let counts = free_by_cell(free, &pointed, MONDAY + MINUTE);
        assert_eq!((counts.get(&canton), counts.get(&fells)), (Some(&1), Some(&1)));
        let later = free_by_cell(free, &pointed, MONDAY + HEADING_MS);
        assert_eq!((later.get(&canton), later.get(&fells)), (None, Some(&2)));
        // Old pointers are dropped as new ones come.
        pointed.point(second, canton, MONDAY + HEADING_MS);
        assert_eq!(pointed.len(), 1);
    }

    #[test]
    fn points_off_the_earth_are_ignored() {
        let mut demand = model();
        demand.observe(LatLng::new(f64::NAN, 0.0), MONDAY);
        demand.observe(LatLng::new(95.0, 0.0), MONDAY);
        assert_eq!(demand.suggest(LatLng::new(95.0, 0.0), MONDAY, nobody), None);
        assert_eq!(demand.suggest(FELLS_POINT, MONDAY, nobody), None);
    }
}
