//! Shared helpers for the benchmarks and load generators: seeded synthetic
//! cities of drivers, so every run measures the same workload. Nothing here
//! is used by the product.

pub mod storage_data;
pub mod storage_target;

use rand::Rng;
use wayfare_engine::dispatch::{DriverIndex, IndexedDriver};
use wayfare_engine::geo::EARTH_RADIUS_KM;
use wayfare_engine::{LatLng, UserId};

/// A square city on the map with a fixed set of car types.
#[derive(Debug, Clone)]
pub struct City {
    pub centre: LatLng,
    pub side_km: f64,
    pub car_types: Vec<String>,
}

/// One made-up driver of a [`City`].
#[derive(Debug, Clone, Copy)]
pub struct SyntheticDriver {
    pub id: UserId,
    /// Index into [`City::car_types`].
    pub car_type: usize,
    pub position: LatLng,
    pub available: bool,
}

impl City {
    /// 40 km x 40 km around downtown Baltimore, with `car_type_count` car types.
    pub fn baltimore(car_type_count: usize) -> Self {
        City {
            centre: LatLng::new(39.29, -76.61),
            side_km: 40.0,
            car_types: (0..car_type_count).map(|number| format!("car-type-{number}")).collect(),
        }
    }

    fn km_per_degree_lat() -> f64 {
        EARTH_RADIUS_KM.to_radians()
    }

    fn km_per_degree_lng(&self) -> f64 {
        Self::km_per_degree_lat() * self.centre.lat.to_radians().cos()
    }

    /// A point uniformly distributed over the city's square.
    pub fn random_point<R: Rng + ?Sized>(&self, rng: &mut R) -> LatLng {
        let half_side = self.side_km / 2.0;
        let north_km = rng.random_range(-half_side..=half_side);
        let east_km = rng.random_range(-half_side..=half_side);
        LatLng::new(
            self.centre.lat + north_km / Self::km_per_degree_lat(),
            self.centre.lng + east_km / self.km_per_degree_lng(),
        )
    }

    /// A random step of at most `max_km` along each axis from `from`, kept
    /// inside the city, as a driver's next reported position.
    pub fn random_step<R: Rng + ?Sized>(&self, from: LatLng, max_km: f64, rng: &mut R) -> LatLng {
        let half_lat = self.side_km / 2.0 / Self::km_per_degree_lat();
        let half_lng = self.side_km / 2.0 / self.km_per_degree_lng();
        let lat = from.lat + rng.random_range(-max_km..=max_km) / Self::km_per_degree_lat();
        let lng = from.lng + rng.random_range(-max_km..=max_km) / self.km_per_degree_lng();
        LatLng::new(
            lat.clamp(self.centre.lat - half_lat, self.centre.lat + half_lat),
            lng.clamp(self.centre.lng - half_lng, self.centre.lng + half_lng),
        )
    }

    /// `count` drivers spread uniformly over the city and its car types; each
    /// is unavailable (busy or just gone offline) with `unavailable_share`.
    pub fn drivers<R: Rng + ?Sized>(&self, count: usize, unavailable_share: f64, rng: &mut R) -> Vec<SyntheticDriver> {
        (0..count)
            .map(|_| SyntheticDriver {
                id: UserId::from_u128(rng.random()),
                car_type: rng.random_range(0..self.car_types.len()),
                position: self.random_point(rng),
                available: !rng.random_bool(unavailable_share),
            })
            .collect()
    }

    /// The index as the actor builds it over a day: one driver at a time.
    pub fn index_by_inserting(&self, drivers: &[SyntheticDriver]) -> DriverIndex {
        let mut index = DriverIndex::new();
        for driver in drivers {
            index.upsert(driver.id, &self.car_types[driver.car_type], driver.position, driver.available);
        }
        index
    }

    /// The index as the actor builds it on restart: bulk-loaded.
    pub fn index_bulk_loaded(&self, drivers: &[SyntheticDriver]) -> DriverIndex {
        DriverIndex::from_drivers(drivers.iter().map(|driver| IndexedDriver {
            driver: driver.id,
            car_type: &self.car_types[driver.car_type],
            position: driver.position,
            available: driver.available,
        }))
    }
}
