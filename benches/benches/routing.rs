//! Road routing on the OpenStreetMap extracts (issue #14): preparation, one
//! route, and a 25 × 25 distance matrix, in process, on Baltimore and Monaco.
//! Targets (docs/benchmarks.md): a route p50 under 100 µs, a matrix under 5 ms.
//! Points are random spots in the extract's box, snapped to the nearest road.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wayfare_engine::LatLng;
use wayfare_maps::osm::cache;
use wayfare_maps::osm::router::Router;

fn extract(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("data").join(name)
}

/// Reproducible points inside the network's box that have a road near them.
fn points(router: &Router, count: usize) -> Vec<LatLng> {
    let all = &router.network().points;
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let point = all[(next() % all.len() as u64) as usize];
            // Off the road by up to ~30 m, as a rider's tap is.
            let jitter = |value: u64| (value % 600) as f64 / 1e5 - 0.003;
            LatLng::new(point[0] + jitter(next()) / 10.0, point[1] + jitter(next()) / 10.0)
        })
        .collect()
}

fn routing(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("routing");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for name in ["baltimore.osm.pbf", "monaco.osm.pbf"] {
        let started = Instant::now();
        let router = cache::prepare(&extract(name), |_, _, _| {}).expect("the extract prepares");
        eprintln!(
            "{name}: prepared in {:.2} s: {} directed segments, {} shortcuts",
            started.elapsed().as_secs_f64(),
            router.hierarchy().nodes(),
            router.hierarchy().shortcut_count()
        );
        let points = points(&router, 2048);
        let mut turn = 0usize;
        group.bench_with_input(BenchmarkId::new("route", name), &router, |bencher, router| {
            bencher.iter(|| {
                turn = (turn + 2) % points.len();
                black_box(router.route(points[turn], points[turn + 1]))
            })
        });
        let origins = &points[..25];
        let destinations = &points[25..50];
        group.bench_with_input(BenchmarkId::new("matrix 25x25", name), &router, |bencher, router| {
            bencher.iter(|| black_box(router.matrix(origins, destinations)))
        });
        group.bench_with_input(BenchmarkId::new("dijkstra route (reference)", name), &router, |bencher, router| {
            bencher.iter(|| {
                turn = (turn + 2) % points.len();
                black_box(router.route_by_dijkstra(points[turn], points[turn + 1]))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, routing);
criterion_main!(benches);
