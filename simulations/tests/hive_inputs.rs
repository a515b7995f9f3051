//! NREL HIVE's Denver demo inputs (data/hive, BSD-3-Clause, network ODbL) read
//! as `wayfare simulate` reads them: every row usable, the network whole.

use std::fs::File;
use std::path::PathBuf;
use wayfare_simulations::input::{RequestLayout, read_osmnx, read_requests, read_vehicles};

fn denver(file: &str) -> File {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/hive/denver_downtown").join(file);
    File::open(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_denver_demo_reads_whole() {
    let (layout, requests) = read_requests(denver("denver_demo_requests.csv")).unwrap();
    assert_eq!(layout, RequestLayout::Hive);
    assert_eq!((requests.items.len(), requests.skipped.len()), (2_500, 0));
    let first = &requests.items[0];
    assert_eq!((first.id.as_str(), first.at, first.passengers), ("0", 120, 2));
    // One day, in order of departure.
    assert!(requests.items.windows(2).all(|pair| pair[0].at <= pair[1].at));
    assert!(requests.items.last().unwrap().at < 86_400);

    let vehicles = read_vehicles(denver("denver_demo_vehicles.csv")).unwrap();
    assert_eq!((vehicles.items.len(), vehicles.skipped.len()), (20, 0));
    assert_eq!(vehicles.items[0].id, "v1");

    let network = read_osmnx(denver("downtown_denver_network.json")).unwrap();
    assert_eq!((network.nodes.len(), network.links.len()), (308, 541));
    assert!(network.links.iter().all(|link| link.length_m >= 0.0 && link.travel_time_s >= 0.0));
}
