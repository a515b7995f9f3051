//! The dispatch engine's spatial index at city scale: 100,000 drivers over
//! 40 km x 40 km of Baltimore, 10 car types, a fifth of them unavailable.
//! Targets (docs/benchmarks.md): a dispatch query under 20 µs, a move under 2 µs.

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Duration;
use wayfare_benches::City;
use wayfare_engine::{LatLng, UserId};

const DRIVERS: usize = 100_000;
const CAR_TYPES: usize = 10;
const UNAVAILABLE_SHARE: f64 = 0.2;
const RADIUS_KM: f64 = 5.0;
const LIMIT: usize = 10;
/// Query points are drawn up front so the loop measures the index only.
const QUERY_POINTS: usize = 4096;
/// The most a driver moves between two reported positions (~100 m, a few
/// seconds of city driving).
const STEP_KM: f64 = 0.1;

fn spatial_index(criterion: &mut Criterion) {
    let city = City::baltimore(CAR_TYPES);
    let mut rng = SmallRng::seed_from_u64(2024);
    let drivers = city.drivers(DRIVERS, UNAVAILABLE_SHARE, &mut rng);
    let queries: Vec<(usize, LatLng)> =
        (0..QUERY_POINTS).map(|number| (number % CAR_TYPES, city.random_point(&mut rng))).collect();
    // A booking's declines and expiries: a few drivers every query must pass over.
    let declined: BTreeSet<UserId> = drivers.iter().step_by(DRIVERS / 8).map(|driver| driver.id).collect();

    let mut group = criterion.benchmark_group("spatial_index");
    group.sample_size(50).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));

    for (build, index) in
        [("inserted", city.index_by_inserting(&drivers)), ("bulk-loaded", city.index_bulk_loaded(&drivers))]
    {
        group.bench_function(format!("nearest 10 eligible within 5 km ({build})"), |bencher| {
            let mut next_query = 0;
            bencher.iter(|| {
                let (car_type, point) = queries[next_query % QUERY_POINTS];
                next_query += 1;
                black_box(index.nearest(&city.car_types[car_type], point, RADIUS_KM, LIMIT, |id| declined.contains(id)))
            })
        });
    }

    let mut index = city.index_by_inserting(&drivers);
    let mut positions: Vec<LatLng> = drivers.iter().map(|driver| driver.position).collect();
    // Available drivers only: theirs is the move that updates a tree; a busy
    // driver's move only touches the side table.
    let movable: Vec<usize> = (0..DRIVERS).filter(|&number| drivers[number].available).collect();
    group.bench_function("move one driver", |bencher| {
        let mut step_rng = SmallRng::seed_from_u64(7);
        bencher.iter(|| {
            let which = movable[rand::Rng::random_range(&mut step_rng, 0..movable.len())];
            let position = city.random_step(positions[which], STEP_KM, &mut step_rng);
            positions[which] = position;
            black_box(index.move_to(drivers[which].id, position))
        })
    });
    group.finish();
}

criterion_group!(benches, spatial_index);
criterion_main!(benches);
