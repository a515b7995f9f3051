//! What a free driver does between trips: stay, drive back to where riders
//! lately were, cruise, or go to the area the server would suggest
//! (`engine::reposition`); and arriving where an idle move led.

use super::{Event, Sim, State, Traced};
use crate::scenario::IdleBehaviour;
use crate::travel::Spot;
use h3o::CellIndex;
use rand::Rng;
use wayfare_engine::LatLng;
use wayfare_engine::reposition;

impl Sim<'_> {
    pub(super) fn become_idle(&mut self, number: usize) {
        let driver = &mut self.drivers[number];
        driver.state = State::Idle;
        driver.generation += 1;
        let (id, generation) = (driver.id, driver.generation);
        self.index.set_available(id, true);
        let model = &self.input.scenario.drivers;
        if model.idle != IdleBehaviour::Stay && self.now < self.input.span_ms {
            self.schedule(self.now + model.idle_every_s as i64 * 1000, Event::Idle { driver: number, generation });
        }
    }

    pub(super) fn idle_move(&mut self, number: usize, generation: u64) {
        let driver = &self.drivers[number];
        if driver.generation != generation || !matches!(driver.state, State::Idle) || !driver.on_shift {
            return;
        }
        let from = driver.spot;
        let target = match self.input.scenario.drivers.idle {
            IdleBehaviour::Stay => None,
            IdleBehaviour::Return => self.recent_origin(),
            IdleBehaviour::Reposition => self.suggested_area(number),
            IdleBehaviour::Cruise => {
                let km = self.rng.random_range(0.0..self.input.scenario.drivers.cruise_km);
                let bearing = self.rng.random_range(0.0..std::f64::consts::TAU);
                let lat = from.point.lat + km * bearing.cos() / 111.195;
                let lng = from.point.lng + km * bearing.sin() / (111.195 * from.point.lat.to_radians().cos());
                self.input.travel.spot(LatLng::new(lat, lng))
            }
        };
        let leg = target.and_then(|to| self.input.travel.leg(&from, &to).map(|leg| (to, leg)));
        let driver = &mut self.drivers[number];
        driver.generation += 1;
        let generation = driver.generation;
        match leg {
            Some((to, leg)) => {
                driver.state = State::Moving { from, to, leg, since: self.now };
                self.schedule(self.now + leg.time_ms, Event::Moved { driver: number, generation });
            }
            None => {
                let every = self.input.scenario.drivers.idle_every_s as i64 * 1000;
                if self.now < self.input.span_ms {
                    self.schedule(self.now + every, Event::Idle { driver: number, generation });
                }
            }
        }
    }

    /// The centre of the area the server would show this free driver, if
    /// any. Free drivers are counted per cell once a simulated minute; each
    /// driver sent somewhere counts there at once, so a crowd is not sent
    /// to one cell.
    fn suggested_area(&mut self, number: usize) -> Option<Spot> {
        let demand = self.demand.as_ref()?;
        if self.supply_at.is_none_or(|at| self.now - at >= 60_000) {
            self.supply.clear();
            for driver in self.drivers.iter().filter(|driver| driver.free()) {
                let place = match driver.state {
                    State::Moving { to, .. } => to.point,
                    _ => driver.spot.point,
                };
                if let Some(cell) = reposition::cell_of(place) {
                    *self.supply.entry(cell).or_default() += 1;
                }
            }
            self.supply_at = Some(self.now);
        }
        let from = self.drivers[number].spot.point;
        let own = reposition::cell_of(from);
        let supply = &self.supply;
        let free = |cell: CellIndex| {
            let count = supply.get(&cell).copied().unwrap_or(0);
            if Some(cell) == own { count.saturating_sub(1) } else { count }
        };
        let area = demand.suggest(from, self.epoch(), free)?;
        let target = reposition::cell_of(area.center)?;
        if let Some(count) = own.and_then(|own| self.supply.get_mut(&own)) {
            *count = count.saturating_sub(1);
        }
        *self.supply.entry(target).or_default() += 1;
        self.input.travel.spot(area.center)
    }

    /// Where a request of the last half hour started, at random.
    fn recent_origin(&mut self) -> Option<Spot> {
        let trips = self.input.trips;
        let end = trips.partition_point(|trip| trip.at_ms <= self.now);
        let begin = trips.partition_point(|trip| trip.at_ms < self.now - 30 * 60_000);
        (begin < end).then(|| trips[self.rng.random_range(begin..end)].origin)
    }

    pub(super) fn moved(&mut self, number: usize, generation: u64) {
        let driver = &mut self.drivers[number];
        let State::Moving { to, leg, .. } = driver.state else { return };
        if driver.generation != generation {
            return;
        }
        driver.tally.distance_m += leg.distance_m;
        driver.tally.empty_m += leg.distance_m;
        driver.spot = to;
        let id = driver.id;
        self.index.move_to(id, to.point);
        self.record(|at| Traced::Moved { at, driver: id, point: to.point });
        self.become_idle(number);
    }
}
