//! Scenario inputs (issue #16, docs/simulations.md "Inputs"): requests as CSV
//! in NREL HIVE's layout or as trip records, told apart by their header;
//! vehicles as HIVE's CSV; an OSMnx node-link road network as HIVE ships it.
//!
//! A row that cannot be used (a missing field, coordinates that are not a
//! place on Earth or are 0,0, a time that does not parse) is skipped and
//! counted with its line and reason, never fatal; a file whose header names
//! no known layout is an error.

use chrono::NaiveDateTime;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Read;
use wayfare_engine::LatLng;

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error(
        "the header names no known layout ({0}); expected HIVE's request_id,o_lat,o_lon,d_lat,d_lon,departure_time or trip records' pickup_time,…,pickup_lat,pickup_lon,dropoff_lat,dropoff_lon"
    )]
    UnknownLayout(String),
    #[error("not a CSV file: {0}")]
    Csv(#[from] csv::Error),
    #[error("not an OSMnx node-link network: {0}")]
    Network(String),
}

/// Why a row was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// A field the layout needs is empty or absent.
    MissingField,
    /// Not a number, outside ±90/±180, or 0,0 (a common placeholder).
    BadCoordinates,
    /// The time does not parse.
    BadTime,
    /// A row the CSV reader could not read (unbalanced quotes, bad UTF-8).
    Unreadable,
}

/// A skipped row: its line in the file (1 is the header) and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub line: u64,
    pub reason: SkipReason,
}

/// What a file gave: the rows used and the rows skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    pub items: Vec<T>,
    pub skipped: Vec<Skipped>,
}

impl<T> Loaded<T> {
    /// Skipped rows counted by reason, for the report.
    pub fn skipped_by_reason(&self) -> HashMap<SkipReason, usize> {
        let mut counts = HashMap::new();
        for skipped in &self.skipped {
            *counts.entry(skipped.reason).or_insert(0) += 1;
        }
        counts
    }
}

/// Which layout a requests file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestLayout {
    Hive,
    TripRecords,
}

/// One trip request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    pub id: String,
    /// When the rider asks, in seconds since 1970-01-01T00:00:00 (the file's
    /// own clock, read as UTC; the simulation starts at the earliest).
    pub at: i64,
    pub origin: LatLng,
    pub destination: LatLng,
    pub passengers: u32,
}

/// One vehicle at the start.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vehicle {
    pub id: String,
    pub position: LatLng,
}

/// Column names each field may go by in trip records (the layout's own
/// names first, then those of common public datasets, NYC TLC's among them).
const PICKUP_TIME: &[&str] =
    &["pickup_time", "pickup_datetime", "tpep_pickup_datetime", "lpep_pickup_datetime", "trip_start_timestamp"];
const PICKUP_LAT: &[&str] = &["pickup_lat", "pickup_latitude", "pickup_centroid_latitude", "start_lat"];
const PICKUP_LON: &[&str] =
    &["pickup_lon", "pickup_lng", "pickup_longitude", "pickup_centroid_longitude", "start_lng", "start_lon"];
const DROPOFF_LAT: &[&str] = &["dropoff_lat", "dropoff_latitude", "dropoff_centroid_latitude", "end_lat"];
const DROPOFF_LON: &[&str] =
    &["dropoff_lon", "dropoff_lng", "dropoff_longitude", "dropoff_centroid_longitude", "end_lng", "end_lon"];
const PASSENGERS: &[&str] = &["passengers", "passenger_count"];

/// Column positions, found by name in the header.
struct Columns {
    layout: RequestLayout,
    id: Option<usize>,
    time: usize,
    origin: (usize, usize),
    destination: (usize, usize),
    passengers: Option<usize>,
}

fn clean(name: &str) -> String {
    name.trim_start_matches('\u{feff}').trim().to_ascii_lowercase()
}

fn find(header: &[String], names: &[&str]) -> Option<usize> {
    names.iter().find_map(|name| header.iter().position(|column| column == name))
}

impl Columns {
    fn of(header: &[String]) -> Option<Columns> {
        let hive =
            ["request_id", "o_lat", "o_lon", "d_lat", "d_lon", "departure_time"].map(|name| find(header, &[name]));
        if let [Some(id), Some(o_lat), Some(o_lon), Some(d_lat), Some(d_lon), Some(time)] = hive {
            return Some(Columns {
                layout: RequestLayout::Hive,
                id: Some(id),
                time,
                origin: (o_lat, o_lon),
                destination: (d_lat, d_lon),
                passengers: find(header, PASSENGERS),
            });
        }
        let trips = [PICKUP_TIME, PICKUP_LAT, PICKUP_LON, DROPOFF_LAT, DROPOFF_LON].map(|names| find(header, names));
        if let [Some(time), Some(p_lat), Some(p_lon), Some(d_lat), Some(d_lon)] = trips {
            return Some(Columns {
                layout: RequestLayout::TripRecords,
                id: find(header, &["request_id", "trip_id", "id"]),
                time,
                origin: (p_lat, p_lon),
                destination: (d_lat, d_lon),
                passengers: find(header, PASSENGERS),
            });
        }
        None
    }
}

/// A place on Earth, not the 0,0 placeholder.
fn point(record: &csv::StringRecord, (lat, lng): (usize, usize)) -> Result<LatLng, SkipReason> {
    let field = |index: usize| record.get(index).map(str::trim).filter(|text| !text.is_empty());
    let (Some(lat), Some(lng)) = (field(lat), field(lng)) else {
        return Err(SkipReason::MissingField);
    };
    let (Ok(lat), Ok(lng)) = (lat.parse::<f64>(), lng.parse::<f64>()) else {
        return Err(SkipReason::BadCoordinates);
    };
    let on_earth = lat.is_finite() && lng.is_finite() && lat.abs() <= 90.0 && lng.abs() <= 180.0;
    if !on_earth || (lat == 0.0 && lng == 0.0) {
        return Err(SkipReason::BadCoordinates);
    }
    Ok(LatLng::new(lat, lng))
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.fff]` (a trailing `Z` allowed), or whole seconds
/// since the epoch, as seconds since the epoch.
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim().trim_end_matches('Z');
    if let Ok(seconds) = text.parse::<i64>() {
        return Some(seconds);
    }
    [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
        "%m/%d/%Y %I:%M:%S %p",
        "%m/%d/%Y %H:%M:%S",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    .map(|time| time.and_utc().timestamp())
}

fn reader(input: impl Read) -> csv::Reader<impl Read> {
    // Flexible: HIVE's files leave trailing optional columns off some rows.
    csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(input)
}

/// Reads a requests file in either layout (the header decides).
pub fn read_requests(input: impl Read) -> Result<(RequestLayout, Loaded<Request>), InputError> {
    let mut reader = reader(input);
    let header: Vec<String> = reader.headers()?.iter().map(clean).collect();
    let columns = Columns::of(&header).ok_or_else(|| InputError::UnknownLayout(header.join(",")))?;
    let mut loaded = Loaded { items: Vec::new(), skipped: Vec::new() };
    for (row, record) in reader.records().enumerate() {
        // Line 1 is the header.
        let line = row as u64 + 2;
        let record = match record {
            Ok(record) => record,
            Err(_) => {
                loaded.skipped.push(Skipped { line, reason: SkipReason::Unreadable });
                continue;
            }
        };
        match request(&record, &columns, row) {
            Ok(request) => loaded.items.push(request),
            Err(reason) => loaded.skipped.push(Skipped { line, reason }),
        }
    }
    Ok((columns.layout, loaded))
}

fn request(record: &csv::StringRecord, columns: &Columns, row: usize) -> Result<Request, SkipReason> {
    let time =
        record.get(columns.time).map(str::trim).filter(|text| !text.is_empty()).ok_or(SkipReason::MissingField)?;
    let at = parse_time(time).ok_or(SkipReason::BadTime)?;
    let origin = point(record, columns.origin)?;
    let destination = point(record, columns.destination)?;
    let id = match columns.id.and_then(|index| record.get(index)).filter(|text| !text.is_empty()) {
        Some(id) => id.to_string(),
        None if columns.layout == RequestLayout::Hive => return Err(SkipReason::MissingField),
        // Trip records often have no id: the row's number is one.
        None => format!("r{row}"),
    };
    // A missing or odd passenger count is one passenger, not a reason to drop the trip.
    let passengers = columns
        .passengers
        .and_then(|index| record.get(index))
        .and_then(|text| text.parse::<f64>().ok())
        .filter(|count| *count >= 1.0 && *count < 100.0)
        .map_or(1, |count| count as u32);
    Ok(Request { id, at, origin, destination, passengers })
}

/// Reads HIVE's vehicles file (`vehicle_id,lat,lon,…`; the electric-vehicle columns are ignored).
pub fn read_vehicles(input: impl Read) -> Result<Loaded<Vehicle>, InputError> {
    let mut reader = reader(input);
    let header: Vec<String> = reader.headers()?.iter().map(clean).collect();
    let (Some(id), Some(lat), Some(lng)) = (
        find(&header, &["vehicle_id", "id"]),
        find(&header, &["lat", "latitude"]),
        find(&header, &["lon", "lng", "longitude"]),
    ) else {
        return Err(InputError::UnknownLayout(header.join(",")));
    };
    let mut loaded = Loaded { items: Vec::new(), skipped: Vec::new() };
    for (row, record) in reader.records().enumerate() {
        let line = row as u64 + 2;
        let Ok(record) = record else {
            loaded.skipped.push(Skipped { line, reason: SkipReason::Unreadable });
            continue;
        };
        let vehicle = match record.get(id).filter(|text| !text.is_empty()) {
            None => Err(SkipReason::MissingField),
            Some(name) => point(&record, (lat, lng)).map(|position| Vehicle { id: name.to_string(), position }),
        };
        match vehicle {
            Ok(vehicle) => loaded.items.push(vehicle),
            Err(reason) => loaded.skipped.push(Skipped { line, reason }),
        }
    }
    Ok(loaded)
}

/// A road network as OSMnx writes it (node-link JSON): nodes with their
/// place, directed links with length (m) and travel time (s).
#[derive(Debug, Clone, PartialEq)]
pub struct RoadNetwork {
    pub nodes: Vec<NetworkNode>,
    pub links: Vec<NetworkLink>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NetworkNode {
    /// OSMnx's id (an OpenStreetMap node id).
    pub id: i64,
    pub position: LatLng,
}

/// A directed road between two nodes, by their index in `nodes`.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkLink {
    pub from: usize,
    pub to: usize,
    pub length_m: f64,
    pub travel_time_s: f64,
}

/// Where a link gives no speed or travel time (HIVE's `default_speed_kmph`).
pub const DEFAULT_SPEED_KMPH: f64 = 40.0;

/// Reads an OSMnx node-link graph (`links`, or `edges` as newer NetworkX
/// names them). A link naming an unknown node or with no length is an error:
/// a network is not a file of independent rows.
pub fn read_osmnx(input: impl Read) -> Result<RoadNetwork, InputError> {
    let bad = |why: String| InputError::Network(why);
    let graph: serde_json::Value = serde_json::from_reader(input).map_err(|error| bad(error.to_string()))?;
    let nodes = graph.get("nodes").and_then(|nodes| nodes.as_array()).ok_or_else(|| bad("no `nodes` list".into()))?;
    let links = graph
        .get("links")
        .or_else(|| graph.get("edges"))
        .and_then(|links| links.as_array())
        .ok_or_else(|| bad("no `links` (or `edges`) list".into()))?;
    let number = |value: &serde_json::Value, field: &str| value.get(field).and_then(serde_json::Value::as_f64);
    let mut index = HashMap::with_capacity(nodes.len());
    let mut network = RoadNetwork { nodes: Vec::with_capacity(nodes.len()), links: Vec::with_capacity(links.len()) };
    for node in nodes {
        let id = node
            .get("id")
            .and_then(serde_json::Value::as_i64)
            .ok_or_else(|| bad(format!("a node without an id: {node}")))?;
        let (Some(lng), Some(lat)) = (number(node, "x"), number(node, "y")) else {
            return Err(bad(format!("node {id} has no x and y")));
        };
        index.insert(id, network.nodes.len());
        network.nodes.push(NetworkNode { id, position: LatLng::new(lat, lng) });
    }
    for link in links {
        let end = |field: &str| {
            link.get(field)
                .and_then(serde_json::Value::as_i64)
                .and_then(|id| index.get(&id).copied())
                .ok_or_else(|| bad(format!("a link whose {field} is not a node: {link}")))
        };
        let (from, to) = (end("source")?, end("target")?);
        let length_m = number(link, "length")
            .filter(|length| *length >= 0.0)
            .ok_or_else(|| bad(format!("a link without a length: {link}")))?;
        let speed_kmph = number(link, "speed_kph")
            .or_else(|| number(link, "speed_kmph"))
            .filter(|speed| *speed > 0.0)
            .unwrap_or(DEFAULT_SPEED_KMPH);
        let travel_time_s =
            number(link, "travel_time").filter(|time| *time >= 0.0).unwrap_or(length_m / (speed_kmph / 3.6));
        network.links.push(NetworkLink { from, to, length_m, travel_time_s });
    }
    Ok(network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_requests_are_read_and_bad_rows_counted_with_their_line() {
        let file = "\u{feff}request_id,o_lat,o_lon,d_lat,d_lon,departure_time,passengers\n\
            0,39.74721571,-104.9894734,39.74402659,-104.9898234,1970-01-01T00:02:00,2\n\
            1,not-a-lat,-104.98,39.74,-104.98,1970-01-01T00:03:00,1\n\
            2,39.75,-104.99,39.74,-104.98,yesterday,1\n\
            3,0,0,39.74,-104.98,1970-01-01T00:04:00,1\n\
            4,39.75,-104.99,,-104.98,1970-01-01T00:05:00,1\n\
            5,39.75,-104.99,91,-104.98,1970-01-01T00:05:00,1\n\
            6,39.7558352,-104.9847758,39.74251202,-104.9814164,1970-01-01T01:00:00\n";
        let (layout, loaded) = read_requests(file.as_bytes()).unwrap();
        assert_eq!(layout, RequestLayout::Hive);
        assert_eq!(loaded.items.len(), 2);
        assert_eq!(
            loaded.items[0],
            Request {
                id: "0".into(),
                at: 120,
                origin: LatLng::new(39.74721571, -104.9894734),
                destination: LatLng::new(39.74402659, -104.9898234),
                passengers: 2,
            }
        );
        // No passenger count: one.
        assert_eq!((loaded.items[1].at, loaded.items[1].passengers), (3600, 1));
        let skipped: Vec<(u64, SkipReason)> = loaded.skipped.iter().map(|row| (row.line, row.reason)).collect();
        assert_eq!(
            skipped,
            [
                (3, SkipReason::BadCoordinates),
                (4, SkipReason::BadTime),
                (5, SkipReason::BadCoordinates),
                (6, SkipReason::MissingField),
                (7, SkipReason::BadCoordinates),
            ]
        );
        assert_eq!(loaded.skipped_by_reason()[&SkipReason::BadCoordinates], 3);
    }

    #[test]
    fn trip_records_are_told_apart_by_their_header_and_tlc_names_are_understood() {
        let file = "vendor,pickup_time,dropoff_time,passengers,pickup_lat,pickup_lon,dropoff_lat,dropoff_lon\n\
            A,2016-01-01 00:00:05,2016-01-01 00:10:00,1,40.75,-73.99,40.76,-73.98\n\
            B,\"2016-01-01 00:01:00\",2016-01-01 00:09:00,3,40.70,-73.95,40.72,-73.96\n";
        let (layout, loaded) = read_requests(file.as_bytes()).unwrap();
        assert_eq!(layout, RequestLayout::TripRecords);
        assert_eq!(loaded.items.iter().map(|request| request.id.as_str()).collect::<Vec<_>>(), ["r0", "r1"]);
        assert_eq!(loaded.items[1].at - loaded.items[0].at, 55);
        assert_eq!(loaded.items[1].passengers, 3);

        let tlc = "VendorID,tpep_pickup_datetime,tpep_dropoff_datetime,passenger_count,pickup_longitude,pickup_latitude,dropoff_longitude,dropoff_latitude\n\
            2,2015-01-15 19:05:39,2015-01-15 19:23:42,1,-73.993896484375,40.750110626220703,-73.974784851074219,40.750617980957031\n\
            1,2015-01-15 19:05:40,2015-01-15 19:10:00,1,0,0,0,0\n";
        let (layout, loaded) = read_requests(tlc.as_bytes()).unwrap();
        assert_eq!(layout, RequestLayout::TripRecords);
        assert_eq!(loaded.items.len(), 1);
        assert_eq!(loaded.items[0].origin, LatLng::new(40.750_110_626_220_7, -73.993_896_484_375));
        assert_eq!(loaded.skipped, [Skipped { line: 3, reason: SkipReason::BadCoordinates }]);
    }

    #[test]
    fn an_unknown_header_is_an_error_that_names_the_layouts() {
        let error = read_requests("a,b,c\n1,2,3\n".as_bytes()).unwrap_err();
        assert!(matches!(&error, InputError::UnknownLayout(header) if header == "a,b,c"), "{error}");
        assert!(error.to_string().contains("request_id,o_lat,o_lon"));
    }

    #[test]
    fn hive_vehicles_with_short_rows_and_a_byte_order_mark() {
        let file = "\u{feff}vehicle_id,lat,lon,mechatronics_id,initial_soc,schedule_id,home_base_id\n\
            v1,39.754695,-104.988116,leaf_50,0.3,first,hb1\n\
            v2,39.754695,-104.988116,leaf_50,0.3\n\
            ,39.75,-104.98\n\
            v4,abc,-104.98\n";
        let loaded = read_vehicles(file.as_bytes()).unwrap();
        assert_eq!(loaded.items.iter().map(|vehicle| vehicle.id.as_str()).collect::<Vec<_>>(), ["v1", "v2"]);
        assert_eq!(
            loaded.skipped,
            [
                Skipped { line: 4, reason: SkipReason::MissingField },
                Skipped { line: 5, reason: SkipReason::BadCoordinates }
            ]
        );
    }

    #[test]
    fn an_osmnx_network_gives_nodes_and_directed_links_with_their_times() {
        let file = r#"{"directed": true, "multigraph": true, "graph": {},
            "nodes": [{"y": 39.74, "x": -104.98, "id": 10}, {"y": 39.75, "x": -104.98, "id": 20}],
            "links": [{"source": 10, "target": 20, "key": 0, "length": 1112.0, "speed_kmph": 40.0, "travel_time": 100.1},
                      {"source": 20, "target": 10, "key": 0, "length": 1112.0}]}"#;
        let network = read_osmnx(file.as_bytes()).unwrap();
        assert_eq!(network.nodes[1], NetworkNode { id: 20, position: LatLng::new(39.75, -104.98) });
        assert_eq!(network.links[0], NetworkLink { from: 0, to: 1, length_m: 1112.0, travel_time_s: 100.1 });
        // No speed or time: the default 40 km/h.
        assert!((network.links[1].travel_time_s - 1112.0 / (40.0 / 3.6)).abs() < 1e-9);
        let broken = r#"{"nodes": [{"y": 1, "x": 2, "id": 1}], "links": [{"source": 1, "target": 9, "length": 5}]}"#;
        assert!(read_osmnx(broken.as_bytes()).unwrap_err().to_string().contains("target is not a node"));
    }

    #[test]
    fn times_in_the_common_forms() {
        assert_eq!(parse_time("1970-01-01T00:02:00"), Some(120));
        assert_eq!(parse_time("1970-01-01 01:00:00.500"), Some(3600));
        assert_eq!(parse_time("2016-01-01T00:00:05Z"), Some(1_451_606_405));
        assert_eq!(parse_time("01/15/2015 07:05:39 PM"), parse_time("2015-01-15 19:05:39"));
        assert_eq!(parse_time("86400"), Some(86_400));
        assert_eq!(parse_time("soon"), None);
    }
}
