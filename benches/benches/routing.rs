//! Road routing on the OpenStreetMap extracts (issue #14): preparation, one
//! route, and a 25 × 25 distance matrix, in process, on Baltimore and Monaco.
//! Targets (docs/benchmarks.md): a route p50 under 100 µs, a matrix under 5 ms.
//! Points are random spots in the extract's box, snapped to the nearest road.
//! On Baltimore also (issue #39): 100 × 100 and 1,000 × 1,000 matrices, and
//! map matching of a long noisy track, in points per second.
//! Then place search, and the basemap: reading it and cutting its tiles.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wayfare_engine::LatLng;
use wayfare_maps::osm::cache;
use wayfare_maps::osm::network::metres;
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

fn percentiles(samples: &mut [Duration]) -> String {
    samples.sort();
    let at = |share: f64| samples[((samples.len() as f64 * share) as usize).min(samples.len() - 1)];
    format!("p50 {:?}, p99 {:?}, max {:?} ({} queries)", at(0.5), at(0.99), at(1.0), samples.len())
}

/// The issue #39 matrices: points snapped inside the timing, as
/// `Router::matrix` is called.
fn many_to_many(group: &mut BenchmarkGroup<'_, WallTime>, router: &Router, points: &[LatLng]) {
    for size in [100, 1000] {
        let (origins, destinations) = (&points[..size], &points[size..2 * size]);
        let started = Instant::now();
        let matrix = router.matrix(origins, destinations);
        let routed = matrix.iter().flatten().filter(|cell| cell.is_some()).count();
        eprintln!("baltimore: matrix {size}x{size} once in {:?}, {routed} cells routed", started.elapsed());
        if size >= 1000 {
            group.sample_size(10);
        }
        group.bench_function(BenchmarkId::new(format!("matrix {size}x{size}"), "baltimore.osm.pbf"), |bencher| {
            bencher.iter(|| black_box(router.matrix(origins, destinations)))
        });
        group.sample_size(30);
    }
}

/// Points every `step_m` metres along a line.
fn along_line(line: &[[f64; 2]], step_m: f64) -> Vec<[f64; 2]> {
    let mut out = vec![line[0]];
    let mut carried = 0.0;
    for pair in line.windows(2) {
        let length = metres(pair[0], pair[1]);
        let mut at = step_m - carried;
        while at < length {
            let fraction = at / length;
            out.push([
                pair[0][0] + (pair[1][0] - pair[0][0]) * fraction,
                pair[0][1] + (pair[1][1] - pair[0][1]) * fraction,
            ]);
            at += step_m;
        }
        carried = (carried + length) % step_m;
    }
    out.push(*line.last().expect("a line has points"));
    out
}

/// A long drive through the city: routes between successive random points
/// joined, a fix every 25 m (45 km/h, every 2 s), each 10–20 m off the road,
/// as in maps' matching tests.
fn noisy_track(router: &Router, points: &[LatLng], km: f64) -> (Vec<LatLng>, f64) {
    let mut state = 42u64;
    let mut uniform = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut line: Vec<[f64; 2]> = Vec::new();
    let mut length_m = 0.0;
    let mut at = points[0];
    for next in &points[1..] {
        let Some(path) = router.route(at, *next) else { continue };
        // Joined end to start: the next leg starts where this one ended.
        let end = *path.points.last().expect("a path has points");
        line.extend(path.points);
        length_m += path.length_m;
        at = LatLng::new(end[0], end[1]);
        if length_m > km * 1000.0 {
            break;
        }
    }
    let track = along_line(&line, 25.0)
        .into_iter()
        .map(|point| {
            let noise_m = 10.0 + 10.0 * uniform();
            let angle = uniform() * std::f64::consts::TAU;
            let (north, east) = (noise_m * angle.sin(), noise_m * angle.cos());
            LatLng::new(point[0] + north / 111_320.0, point[1] + east / (111_320.0 * point[0].to_radians().cos()))
        })
        .collect();
    (track, length_m)
}

/// Map matching in points per second: one long track, matched whole.
fn map_matching(group: &mut BenchmarkGroup<'_, WallTime>, router: &Router, points: &[LatLng]) {
    let (track, length_m) = noisy_track(router, points, 100.0);
    let started = Instant::now();
    let matched = router.match_track(&track).expect("the track matches");
    let took = started.elapsed();
    eprintln!(
        "baltimore: matched {} fixes ({:.1} km driven, {:.1} km matched) in {:?}: {:.0} points/s",
        track.len(),
        length_m / 1000.0,
        matched.length_m / 1000.0,
        took,
        track.len() as f64 / took.as_secs_f64()
    );
    group.throughput(Throughput::Elements(track.len() as u64));
    group.bench_function(BenchmarkId::new("100 km noisy track", "baltimore.osm.pbf"), |bencher| {
        bencher.iter(|| black_box(router.match_track(&track)))
    });
}

fn routing(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("routing");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let mut baltimore = None;
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
        // Percentiles of single queries (criterion reports means).
        let mut each: Vec<Duration> = points
            .chunks(2)
            .map(|pair| {
                let started = Instant::now();
                black_box(router.route(pair[0], pair[1]));
                started.elapsed()
            })
            .collect();
        eprintln!("{name}: route {}", percentiles(&mut each));
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
        if name == "baltimore.osm.pbf" {
            many_to_many(&mut group, &router, &points);
            baltimore = Some((router, points));
        }
    }
    group.finish();
    if let Some((router, points)) = baltimore {
        let mut group = criterion.benchmark_group("map matching");
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
        map_matching(&mut group, &router, &points);
        group.finish();
    }

    // Autocomplete on the Baltimore index: what a rider types, letter by letter.
    let places = wayfare_maps::osm::geocode::PlaceIndex::from_file(&extract("baltimore.osm.pbf")).expect("indexes");
    let typed: Vec<String> =
        ["2006 Fleet St", "Patterson Park", "Eastern Ave & S Conkling", "Danvile Ave", "maxs broadway"]
            .iter()
            .flat_map(|query| (3..=query.len()).map(move |end| query[..end].to_owned()))
            .collect();
    let near = Some(LatLng::new(39.285, -76.58));
    let mut each: Vec<Duration> = typed
        .iter()
        .cycle()
        .take(2000)
        .map(|query| {
            let started = Instant::now();
            black_box(places.search(query, near, None).len());
            started.elapsed()
        })
        .collect();
    eprintln!("baltimore: autocomplete {}", percentiles(&mut each));
    let mut group = criterion.benchmark_group("geocoding");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let mut turn = 0usize;
    group.bench_function("autocomplete (baltimore, each keystroke)", |bencher| {
        bencher.iter(|| {
            turn = (turn + 1) % typed.len();
            black_box(places.search(&typed[turn], near, None).len())
        })
    });
    group.finish();

    // The basemap: every tile of zooms 10 to 14 over each extract, cut
    // without the cache (a first request), then a cached tile.
    let mut group = criterion.benchmark_group("basemap");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for name in ["baltimore.osm.pbf", "monaco.osm.pbf"] {
        use wayfare_maps::osm::basemap::{Basemap, project};
        use wayfare_maps::osm::tiles::Tiles;
        let started = Instant::now();
        let basemap = Basemap::from_file(&extract(name)).expect("the extract reads");
        eprintln!(
            "{name}: basemap read in {:.2} s, {} features",
            started.elapsed().as_secs_f64(),
            basemap.features.len()
        );
        let [min, max] = basemap.extent;
        let tiles = Tiles::new(basemap);
        let mut each = Vec::new();
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        for zoom in 10..=14u8 {
            let shift = 32 - zoom as u64;
            let tile = |point: [u32; 2]| ((point[0] as u64 >> shift) as u32, (point[1] as u64 >> shift) as u32);
            let ((x0, y0), (x1, y1)) = (tile(min), tile(max));
            for x in x0..=x1 {
                for y in y0..=y1 {
                    let started = Instant::now();
                    let bytes = black_box(tiles.cut(zoom, x, y));
                    each.push(started.elapsed());
                    sizes.push(bytes.len());
                    all.push((zoom, x, y));
                }
            }
        }
        sizes.sort();
        eprintln!(
            "{name}: tile cut {}; size median {} B, max {} B",
            percentiles(&mut each),
            sizes[sizes.len() / 2],
            sizes[sizes.len() - 1]
        );
        let centre = project(
            (tiles.basemap().bounds()[1] + tiles.basemap().bounds()[3]) / 2.0,
            (tiles.basemap().bounds()[0] + tiles.basemap().bounds()[2]) / 2.0,
        );
        let (x, y) = ((centre[0] >> 18), (centre[1] >> 18));
        group.bench_with_input(BenchmarkId::new("cut zoom-14 tile at the centre", name), &tiles, |bencher, tiles| {
            bencher.iter(|| black_box(tiles.cut(14, x, y)))
        });
        let mut turn = 0usize;
        group.bench_with_input(BenchmarkId::new("cached tile", name), &tiles, |bencher, tiles| {
            bencher.iter(|| {
                turn = (turn + 1) % all.len();
                let (z, x, y) = all[turn];
                black_box(tiles.tile(z, x, y).expect("in range"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, routing);
criterion_main!(benches);
