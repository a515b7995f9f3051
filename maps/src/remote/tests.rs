//! The remote providers against a fake server on 127.0.0.1 that answers what
//! the real services document and records what it was asked.

use super::google::Google;
use super::nominatim::Nominatim;
use super::osrm::Osrm;
use super::photon::Photon;
use super::*;
use crate::config::{GeocoderKind, MapsConfig, ProviderKind, provider_from};
use crate::gazetteer::Gazetteer;
use crate::maps_provider::{Leg, MAX_MATRIX_ELEMENTS, MAX_WAYPOINTS};
use fake::{FakeServer, Reply, Seen};
use std::path::Path;
use std::time::Instant;

/// A fake web service: every request is recorded, then answered by a closure.
mod fake {
    use axum::Router;
    use axum::extract::State;
    use axum::http::{StatusCode, Uri, header};
    use axum::response::{IntoResponse, Response};
    use reqwest::Url;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    pub struct Reply {
        status: u16,
        body: String,
        delay: Duration,
    }

    impl Reply {
        pub fn json(body: impl Into<String>) -> Self {
            Self::status(200, body)
        }

        pub fn status(status: u16, body: impl Into<String>) -> Self {
            Self { status, body: body.into(), delay: Duration::ZERO }
        }

        pub fn after(self, delay: Duration) -> Self {
            Self { delay, ..self }
        }
    }

    #[derive(Debug, Clone)]
    pub struct Seen {
        pub path: String,
        /// As sent, before decoding.
        pub raw_query: String,
        pub query: Vec<(String, String)>,
    }

    impl Seen {
        pub fn param(&self, name: &str) -> Option<&str> {
            self.query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
        }
    }

    type Respond = dyn Fn(&Seen) -> Reply + Send + Sync;

    struct Shared {
        respond: Box<Respond>,
        seen: Mutex<Vec<Seen>>,
    }

    pub struct FakeServer {
        shared: Arc<Shared>,
        pub url: Url,
    }

    impl FakeServer {
        pub async fn start(respond: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Self {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            let shared = Arc::new(Shared { respond: Box::new(respond), seen: Mutex::new(Vec::new()) });
            let app = Router::new().fallback(answer).with_state(shared.clone());
            tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
            Self { shared, url: Url::parse(&format!("http://{address}")).unwrap() }
        }

        pub fn seen(&self) -> Vec<Seen> {
            self.shared.seen.lock().unwrap().clone()
        }

        pub fn only_request(&self) -> Seen {
            let seen = self.seen();
            assert_eq!(seen.len(), 1, "{seen:#?}");
            seen.into_iter().next().unwrap()
        }
    }

    async fn answer(State(shared): State<Arc<Shared>>, uri: Uri) -> Response {
        let url = Url::parse(&format!("http://fake{uri}")).unwrap();
        let seen = Seen {
            path: url.path().to_owned(),
            raw_query: url.query().unwrap_or_default().to_owned(),
            query: url.query_pairs().into_owned().collect(),
        };
        shared.seen.lock().unwrap().push(seen.clone());
        let reply = (shared.respond)(&seen);
        tokio::time::sleep(reply.delay).await;
        let status = StatusCode::from_u16(reply.status).unwrap();
        (status, [(header::CONTENT_TYPE, "application/json; charset=utf-8")], reply.body).into_response()
    }
}

const START: LatLng = LatLng { lat: 39.2858, lng: -76.6131 };
const VIA: LatLng = LatLng { lat: 39.2766, lng: -76.5951 };
const DEST: LatLng = LatLng { lat: 39.2631, lng: -76.5797 };
const GOOGLE_KEY: &str = "test-key-AIzaSy123";

fn http() -> HttpClient {
    HttpClient::new(Duration::from_secs(5)).unwrap()
}

fn landmarks() -> Arc<dyn Geocoding> {
    Arc::new(StraightLineProvider::new(Gazetteer::baltimore(), 1.3, 30.0).unwrap())
}

fn osrm(server: &FakeServer) -> Composed {
    Composed::new(Arc::new(Osrm::new(http(), server.url.clone())), landmarks())
}

fn nominatim(server: &FakeServer) -> Composed {
    Composed::new(Arc::new(Osrm::new(http(), server.url.clone())), Arc::new(Nominatim::new(http(), server.url.clone())))
}

fn photon(server: &FakeServer) -> Composed {
    Composed::new(Arc::new(Osrm::new(http(), server.url.clone())), Arc::new(Photon::new(http(), server.url.clone())))
}

fn google(server: &FakeServer) -> Composed {
    let google = Arc::new(Google::new(http(), server.url.clone(), GOOGLE_KEY));
    Composed::new(google.clone(), google)
}

/// The cause kept for the logs of a provider failure during `call`.
fn cause(error: &MapsError, call: GeoCall) -> &RemoteError {
    match error {
        MapsError::Provider { call: failed, source } => {
            assert_eq!(*failed, call, "{error:?}");
            source.downcast_ref::<RemoteError>().expect("a remote failure")
        }
        other => panic!("expected a provider failure, got {other:?}"),
    }
}

/// Everything an error would write to the logs, causes included.
fn whole_text(error: &MapsError) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(&format!(" / {inner} {inner:?}"));
        source = inner.source();
    }
    text
}

fn coords(points: &[LatLng]) -> Vec<Coord> {
    points.iter().map(|point| Coord { latitude: point.lat, longitude: point.lng }).collect()
}

/// The `lng,lat` pairs of an OSRM request path, after the profile.
fn osrm_points(seen: &Seen) -> Vec<LatLng> {
    let (_, list) = seen.path.rsplit_once('/').unwrap();
    list.split(';')
        .map(|pair| {
            let (lng, lat) = pair.split_once(',').unwrap();
            LatLng::new(lat.parse().unwrap(), lng.parse().unwrap())
        })
        .collect()
}

fn osrm_route_answer(line: &str) -> String {
    // The documented shape of a `route` answer, without steps.
    format!(
        r#"{{"code":"Ok","routes":[{{"geometry":"{line}","legs":[
            {{"steps":[],"summary":"","weight":301.2,"duration":301.2,"distance":2310.4}},
            {{"steps":[],"summary":"","weight":310.5,"duration":310.5,"distance":2450.9}}],
            "weight_name":"routability","weight":611.7,"duration":611.7,"distance":4761.3}}],
          "waypoints":[
            {{"hint":"KSoKADRYroqUBAEAEAAAABkAAAAGAAAAAAAAABAAAAAZAAAABgAAAAAAAAB5_wAAf","distance":4.2,"name":"East Pratt Street","location":[-76.6131,39.2858]}},
            {{"hint":"","distance":1.1,"name":"Key Highway","location":[-76.5951,39.2766]}},
            {{"hint":"","distance":9.8,"name":"East Fort Avenue","location":[-76.5797,39.2631]}}]}}"#
    )
}

#[tokio::test]
async fn osrm_routes_through_the_waypoint_asking_in_lng_lat_order() {
    // spec §7 getdirections: distance_in_km, time, polyline
    let line = crate::polyline::encode(&[START, VIA, DEST]);
    let answer = osrm_route_answer(&line);
    let server = FakeServer::start(move |_| Reply::json(answer.clone())).await;
    // A server under a path prefix, as behind a reverse proxy.
    let base = endpoint(&server.url, "osrm/");
    let maps = Composed::new(Arc::new(Osrm::new(http(), base)), landmarks());
    let route = maps.directions(START, DEST, &[VIA]).await.unwrap();

    let seen = server.only_request();
    assert_eq!(seen.path, "/osrm/route/v1/driving/-76.6131,39.2858;-76.5951,39.2766;-76.5797,39.2631");
    assert_eq!(seen.param("overview"), Some("full"));
    assert_eq!(seen.param("geometries"), Some("polyline"));
    assert!((route.distance_km - 4.7613).abs() < 1e-9, "{}", route.distance_km);
    assert_eq!(route.time_secs, 612, "611.7 s rounds to 612");
    assert_eq!(route.polyline, line);
    assert_eq!(route.coords, coords(&[START, VIA, DEST]));
}

#[tokio::test]
async fn osrm_no_route_is_no_route_found() {
    // spec §8: FETCH_ESTIMATE_FAILED 'No Route Found'; OSRM answers it with HTTP 400.
    let server =
        FakeServer::start(|_| Reply::status(400, r#"{"code":"NoRoute","message":"Impossible route between points"}"#))
            .await;
    let error = osrm(&server).directions(START, DEST, &[]).await.unwrap_err();
    assert!(matches!(error, MapsError::NoRoute), "{error:?}");
    assert_eq!(error.key().as_str(), "no_route_found");
    assert_eq!(error.to_string(), "No Route Found");

    let server = FakeServer::start(|_| {
        Reply::status(400, r#"{"code":"InvalidQuery","message":"Query string malformed close to position 28"}"#)
    })
    .await;
    let error = osrm(&server).directions(START, DEST, &[]).await.unwrap_err();
    assert_eq!(
        *cause(&error, GeoCall::Directions),
        RemoteError::Refused {
            service: "OSRM",
            status: "InvalidQuery".into(),
            message: "Query string malformed close to position 28".into()
        }
    );
}

#[tokio::test]
async fn an_osrm_matrix_asks_sources_and_destinations_and_keeps_a_null_cell_as_no_route() {
    // spec §7 getdistancematrix: `None` where no route joins the pair.
    let server = FakeServer::start(|_| {
        Reply::json(
            r#"{"code":"Ok",
                "durations":[[612.3,null,95.0],[480.0,null,0.0]],
                "distances":[[4761.3,null,820.5],[3900.2,null,0.0]],
                "sources":[{"hint":"","distance":4.2,"name":"East Pratt Street","location":[-76.6131,39.2858]},
                           {"hint":"","distance":1.1,"name":"Key Highway","location":[-76.5951,39.2766]}],
                "destinations":[{"hint":"","distance":9.8,"name":"East Fort Avenue","location":[-76.5797,39.2631]},
                                {"hint":"","distance":0.3,"name":"","location":[-76.55,39.25]},
                                {"hint":"","distance":1.1,"name":"Key Highway","location":[-76.5951,39.2766]}]}"#,
        )
    })
    .await;
    let island = LatLng::new(39.25, -76.55);
    let matrix = osrm(&server).distance_matrix(&[START, VIA], &[DEST, island, VIA]).await.unwrap();

    let seen = server.only_request();
    assert!(seen.path.starts_with("/table/v1/driving/"), "{}", seen.path);
    assert_eq!(osrm_points(&seen), [START, VIA, DEST, island, VIA], "origins first, then destinations");
    assert!(seen.raw_query.contains("sources=0;1&destinations=2;3;4"), "{}", seen.raw_query);
    assert_eq!(seen.param("annotations"), Some("distance,duration"));
    assert_eq!(
        matrix,
        [
            [Some(Leg { distance_km: 4.7613, time_secs: 612 }), None, Some(Leg { distance_km: 0.8205, time_secs: 95 })],
            [Some(Leg { distance_km: 3.9002, time_secs: 480 }), None, Some(Leg { distance_km: 0.0, time_secs: 0 })],
        ]
    );
}

/// Origin `i` and destination `j` of a block test: the fake answers
/// `1000 i + j` seconds, read back from the coordinates it is sent.
fn numbered(count: usize, base_lat: f64) -> Vec<LatLng> {
    (0..count).map(|index| LatLng::new(base_lat + index as f64 * 0.001, -76.6)).collect()
}

fn number_of(point: LatLng, base_lat: f64) -> u64 {
    ((point.lat - base_lat) * 1000.0).round() as u64
}

fn assert_numbered(matrix: &DistanceMatrix, origins: usize, destinations: usize) {
    assert_eq!(matrix.len(), origins);
    for (row_index, row) in matrix.iter().enumerate() {
        assert_eq!(row.len(), destinations);
        for (column_index, cell) in row.iter().enumerate() {
            assert_eq!(
                cell.unwrap().time_secs,
                (1000 * row_index + column_index) as u64,
                "[{row_index}][{column_index}]"
            );
        }
    }
}

#[tokio::test]
async fn a_large_osrm_matrix_is_asked_in_blocks_osrm_routed_accepts() {
    // osrm-routed takes at most 100 coordinates per table request by default.
    let server = FakeServer::start(|seen| {
        let points = osrm_points(seen);
        let indices =
            |name| -> Vec<usize> { seen.param(name).unwrap().split(';').map(|index| index.parse().unwrap()).collect() };
        let rows: Vec<String> = indices("sources")
            .into_iter()
            .map(|source| {
                let cells: Vec<String> = indices("destinations")
                    .into_iter()
                    .map(|destination| {
                        (1000 * number_of(points[source], 38.0) + number_of(points[destination], 39.0)).to_string()
                    })
                    .collect();
                format!("[{}]", cells.join(","))
            })
            .collect();
        let rows = rows.join(",");
        Reply::json(format!(r#"{{"code":"Ok","durations":[{rows}],"distances":[{rows}]}}"#))
    })
    .await;
    let (origins, destinations) = (numbered(3, 38.0), numbered(120, 39.0));
    let matrix = osrm(&server).distance_matrix(&origins, &destinations).await.unwrap();

    assert_numbered(&matrix, 3, 120);
    let seen = server.seen();
    assert_eq!(seen.len(), 3, "50 + 50 + 20 destinations");
    assert!(seen.iter().all(|seen| osrm_points(seen).len() <= 100));
}

#[tokio::test]
async fn a_large_google_matrix_is_asked_in_blocks_of_at_most_100_elements() {
    let server = FakeServer::start(|seen| {
        let side = |name, base_lat| -> Vec<u64> {
            seen.param(name)
                .unwrap()
                .split('|')
                .map(|pair| {
                    let (lat, lng) = pair.split_once(',').unwrap();
                    number_of(LatLng::new(lat.parse().unwrap(), lng.parse().unwrap()), base_lat)
                })
                .collect()
        };
        let destinations = side("destinations", 39.0);
        let rows: Vec<String> = side("origins", 38.0)
            .into_iter()
            .map(|origin| {
                let elements: Vec<String> = destinations
                    .iter()
                    .map(|destination| {
                        let seconds = 1000 * origin + destination;
                        format!(
                            r#"{{"distance":{{"text":"1 km","value":1000}},"duration":{{"text":"","value":{seconds}}},"status":"OK"}}"#
                        )
                    })
                    .collect();
                format!(r#"{{"elements":[{}]}}"#, elements.join(","))
            })
            .collect();
        Reply::json(format!(
            r#"{{"destination_addresses":[],"origin_addresses":[],"rows":[{}],"status":"OK"}}"#,
            rows.join(",")
        ))
    })
    .await;
    let (origins, destinations) = (numbered(30, 38.0), numbered(20, 39.0));
    let matrix = google(&server).distance_matrix(&origins, &destinations).await.unwrap();

    assert_numbered(&matrix, 30, 20);
    let seen = server.seen();
    assert_eq!(seen.len(), 6, "5 origins × 20 destinations each");
    for seen in &seen {
        let (origins, destinations) =
            (seen.param("origins").unwrap().split('|').count(), seen.param("destinations").unwrap().split('|').count());
        assert!(origins <= 25 && destinations <= 25 && origins * destinations <= 100, "{origins} × {destinations}");
        assert_eq!(seen.param("key"), Some(GOOGLE_KEY));
    }
}

#[test]
fn matrix_blocks_cover_every_pair_once_within_the_limits() {
    let limits = TableLimits { origins: 25, destinations: 25, elements: 100 };
    for (origins, destinations) in [(1, 625), (625, 1), (25, 25), (7, 3), (0, 5), (5, 0)] {
        let mut covered = vec![vec![0; destinations]; origins];
        for (rows, columns) in blocks(origins, destinations, limits) {
            assert!(rows.len() <= 25 && columns.len() <= 25 && rows.len() * columns.len() <= 100);
            assert!(!rows.is_empty() && !columns.is_empty());
            for row in rows {
                for column in columns.clone() {
                    covered[row][column] += 1;
                }
            }
        }
        assert!(covered.iter().flatten().all(|&count| count == 1), "{origins} × {destinations}");
    }
}

#[tokio::test]
async fn a_failing_service_is_the_calls_spec_error_with_the_cause_for_the_logs() {
    // spec §8: geo call failures reject with a fixed text per call
    let server = FakeServer::start(|_| Reply::status(500, "<html>Internal Server Error</html>")).await;
    let failures = [
        (osrm(&server).directions(START, DEST, &[]).await.unwrap_err(), GeoCall::Directions, "OSRM"),
        (osrm(&server).distance_matrix(&[START], &[DEST]).await.unwrap_err(), GeoCall::DistanceMatrix, "OSRM"),
        (nominatim(&server).autocomplete("fort", None, None).await.unwrap_err(), GeoCall::Autocomplete, "Nominatim"),
        (nominatim(&server).place("nominatim:W37823233").await.unwrap_err(), GeoCall::PlaceCoords, "Nominatim"),
        (photon(&server).reverse(DEST).await.unwrap_err(), GeoCall::Address, "Photon"),
        (google(&server).place("ChIJrTLr-GyuEmsRBfy61i59si0").await.unwrap_err(), GeoCall::PlaceCoords, "Google Maps"),
    ];
    for (error, call, service) in &failures {
        assert_eq!(error.to_string(), call.failure_text());
        assert_eq!(error.key().as_str(), "google_places_error");
        assert_eq!(*cause(error, *call), RemoteError::Status { service, status: 500 });
    }

    // An answer that is not the service's JSON is a failure too, not a panic.
    let server = FakeServer::start(|_| Reply::json("<html>captive portal</html>")).await;
    let error = photon(&server).autocomplete("fort", None, None).await.unwrap_err();
    assert!(matches!(cause(&error, GeoCall::Autocomplete), RemoteError::Unreadable { service: "Photon", .. }));
}

#[tokio::test]
async fn a_service_that_does_not_answer_in_time_is_a_failure_not_a_hang() {
    let server = FakeServer::start(|_| Reply::json(osrm_route_answer("")).after(Duration::from_secs(5))).await;
    let impatient = HttpClient::new(Duration::from_millis(200)).unwrap();
    let maps = Composed::new(Arc::new(Osrm::new(impatient, server.url.clone())), landmarks());
    let started = Instant::now();
    let error = maps.directions(START, DEST, &[]).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(*cause(&error, GeoCall::Directions), RemoteError::TimedOut { service: "OSRM" });
    assert_eq!(error.to_string(), "getDirectionsApi Call Error");
}

#[tokio::test]
async fn bad_input_is_refused_as_by_every_provider_without_asking_the_service() {
    let server = FakeServer::start(|_| Reply::status(500, "")).await;
    let maps = osrm(&server);
    let too_many = vec![VIA; MAX_WAYPOINTS + 1];
    let error = maps.directions(START, DEST, &too_many).await.unwrap_err();
    assert!(matches!(error, MapsError::TooManyWaypoints { given: 26, max: 25 }), "{error:?}");
    let off_earth = LatLng::new(91.0, 0.0);
    assert!(matches!(maps.directions(START, DEST, &[off_earth]).await, Err(MapsError::InvalidPoint)));
    assert!(matches!(maps.distance_matrix(&[START], &[off_earth]).await, Err(MapsError::InvalidPoint)));
    assert!(matches!(maps.reverse(LatLng::new(0.0, f64::NAN)).await, Err(MapsError::InvalidPoint)));
    let error = maps.distance_matrix(&vec![START; 26], &vec![DEST; 25]).await.unwrap_err();
    assert!(matches!(error, MapsError::MatrixTooLarge { given: 650, max: MAX_MATRIX_ELEMENTS }), "{error:?}");
    assert_eq!(maps.distance_matrix(&[], &[DEST]).await.unwrap(), DistanceMatrix::new());
    assert_eq!(maps.distance_matrix(&[START, VIA], &[]).await.unwrap(), vec![Vec::<Option<Leg>>::new(); 2]);
    let geocoders = [nominatim(&server), photon(&server), google(&server)];
    for geocoder in &geocoders {
        assert!(geocoder.autocomplete("  ,, ", None, None).await.unwrap().is_empty());
        assert!(matches!(geocoder.place(" ").await, Err(MapsError::UnknownPlace)));
    }
    assert!(server.seen().is_empty(), "{:#?}", server.seen());
}

const NOMINATIM_FORT: &str = r#"{"place_id":297263918,
    "licence":"Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
    "osm_type":"way","osm_id":37823233,"lat":"39.2630868","lon":"-76.5800407",
    "category":"tourism","type":"attraction","place_rank":30,"importance":0.4412,"addresstype":"tourism",
    "name":"Fort McHenry National Monument and Historic Shrine",
    "display_name":"Fort McHenry National Monument and Historic Shrine, 2400, East Fort Avenue, Locust Point, Baltimore, Maryland, 21230, United States",
    "boundingbox":["39.2598","39.2660","-76.5834","-76.5760"]}"#;

const NOMINATIM_STOP: &str = r#"{"place_id":297110072,
    "licence":"Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
    "osm_type":"node","osm_id":6204567811,"lat":"39.2770","lon":"-76.5900",
    "category":"highway","type":"bus_stop","place_rank":30,"importance":0.00001,"addresstype":"highway",
    "name":"",
    "display_name":"Fort Avenue & Lawrence Street, Locust Point, Baltimore, Maryland, 21230, United States",
    "boundingbox":["39.2769","39.2771","-76.5901","-76.5899"]}"#;

#[tokio::test]
async fn nominatim_autocomplete_passes_country_and_focus_and_its_place_ids_round_trip() {
    // spec §7 googleapis-autocomplete restricted to restrictCountry, then getcoords
    let server = FakeServer::start(|seen| match seen.path.as_str() {
        "/search" => Reply::json(format!("[{NOMINATIM_FORT},{NOMINATIM_STOP}]")),
        "/lookup" if seen.param("osm_ids") == Some("W37823233") => Reply::json(format!("[{NOMINATIM_FORT}]")),
        _ => Reply::json("[]"),
    })
    .await;
    let maps = nominatim(&server);
    let suggestions = maps.autocomplete(" fort mc ", Some(START), Some(" US ")).await.unwrap();

    let search = server.only_request();
    assert_eq!(search.path, "/search");
    assert_eq!(search.param("format"), Some("jsonv2"));
    assert_eq!(search.param("q"), Some("fort mc"));
    assert_eq!(search.param("countrycodes"), Some("us"));
    assert_eq!(search.param("limit"), Some("10"));
    let viewbox: Vec<f64> = search.param("viewbox").unwrap().split(',').map(|number| number.parse().unwrap()).collect();
    let expected = [START.lng - 0.5, START.lat - 0.5, START.lng + 0.5, START.lat + 0.5];
    assert!(viewbox.iter().zip(expected).all(|(got, want)| (got - want).abs() < 1e-9), "{viewbox:?}");
    assert_eq!(search.param("bounded"), None, "the box biases, it does not bound");

    assert_eq!(suggestions.len(), 2);
    assert_eq!(suggestions[0].place_id, "nominatim:W37823233");
    assert_eq!(suggestions[0].main_text, "Fort McHenry National Monument and Historic Shrine");
    assert_eq!(
        suggestions[0].secondary_text,
        "2400, East Fort Avenue, Locust Point, Baltimore, Maryland, 21230, United States"
    );
    assert!(suggestions[0].description.starts_with("Fort McHenry National Monument and Historic Shrine, 2400"));
    // No name: the first part of the address reads as one.
    assert_eq!(suggestions[1].place_id, "nominatim:N6204567811");
    assert_eq!(suggestions[1].main_text, "Fort Avenue & Lawrence Street");
    assert_eq!(suggestions[1].secondary_text, "Locust Point, Baltimore, Maryland, 21230, United States");

    let details = maps.place(&suggestions[0].place_id).await.unwrap();
    let lookup = server.seen().pop().unwrap();
    assert_eq!(lookup.path, "/lookup");
    assert_eq!(lookup.param("format"), Some("jsonv2"));
    assert_eq!(details.place_id, "nominatim:W37823233");
    assert_eq!((details.lat, details.lng), (39.2630868, -76.5800407));
    assert_eq!(details.address, suggestions[0].description);

    // spec §8 place_to_coords_error: an id Nominatim no longer has, one that
    // is not ours, one that is not well formed.
    assert!(matches!(maps.place("nominatim:W1").await, Err(MapsError::UnknownPlace)));
    let asked = server.seen().len();
    for foreign in ["bmore:fort-mchenry", "nominatim:X12", "nominatim:W", "nominatim:W12&osm_ids=N1"] {
        let error = maps.place(foreign).await.unwrap_err();
        assert_eq!(error.key().as_str(), "place_to_coords_error", "{foreign}");
    }
    assert_eq!(server.seen().len(), asked, "ids that are not Nominatim's are not sent");
}

#[tokio::test]
async fn nominatim_reverse_answers_the_address_or_the_coordinates_where_there_is_none() {
    // spec §7 googleapis-getaddress
    let server = FakeServer::start(|seen| {
        if seen.param("lat") == Some("39.2631") {
            Reply::json(NOMINATIM_FORT)
        } else {
            Reply::json(r#"{"error":"Unable to geocode"}"#)
        }
    })
    .await;
    let maps = nominatim(&server);
    let address = maps.reverse(DEST).await.unwrap();
    assert!(address.starts_with("Fort McHenry National Monument and Historic Shrine, 2400, East Fort"), "{address}");
    let seen = server.only_request();
    assert_eq!(seen.path, "/reverse");
    assert_eq!((seen.param("format"), seen.param("lon")), (Some("jsonv2"), Some("-76.5797")));
    let atlantic = LatLng::new(30.0, -40.0);
    assert_eq!(maps.reverse(atlantic).await.unwrap(), "30.00000, -40.00000");
}

const PHOTON_ANSWER: &str = r#"{"features":[
    {"geometry":{"coordinates":[-76.5800407,39.2630868],"type":"Point"},"type":"Feature",
     "properties":{"osm_type":"W","osm_id":37823233,"extent":[-76.5834,39.266,-76.576,39.2598],
       "country":"United States","osm_key":"tourism","housenumber":"2400","city":"Baltimore",
       "street":"East Fort Avenue","countrycode":"US","osm_value":"attraction","postcode":"21230",
       "name":"Fort McHenry National Monument and Historic Shrine","state":"Maryland","type":"house"}},
    {"geometry":{"coordinates":[-111.3790,56.7268],"type":"Point"},"type":"Feature",
     "properties":{"osm_type":"N","osm_id":29237412,"country":"Canada","osm_key":"place","countrycode":"CA",
       "osm_value":"city","name":"Fort McMurray","state":"Alberta","type":"city"}}],
  "type":"FeatureCollection"}"#;

#[tokio::test]
async fn photon_autocomplete_focuses_on_near_keeps_the_country_and_its_ids_round_trip() {
    let server = FakeServer::start(|_| Reply::json(PHOTON_ANSWER)).await;
    let maps = photon(&server);
    let suggestions = maps.autocomplete("fort mc", Some(START), Some("us")).await.unwrap();

    let seen = server.only_request();
    assert_eq!(seen.path, "/api");
    assert_eq!(seen.param("q"), Some("fort mc"));
    assert_eq!((seen.param("lat"), seen.param("lon")), (Some("39.2858"), Some("-76.6131")));
    assert_eq!(seen.param("countrycode"), Some("US"));
    assert_eq!(seen.param("limit"), Some("10"));
    // Fort McMurray, Canada, is dropped even by a server that ignores the country.
    assert_eq!(suggestions.len(), 1, "{suggestions:#?}");
    let fort = &suggestions[0];
    let description = "Fort McHenry National Monument and Historic Shrine, 2400 East Fort Avenue, Baltimore, Maryland 21230, United States";
    assert_eq!(fort.description, description);
    assert_eq!(fort.main_text, "Fort McHenry National Monument and Historic Shrine");
    assert_eq!(fort.secondary_text, "2400 East Fort Avenue, Baltimore, Maryland 21230, United States");
    assert_eq!(fort.place_id, format!("photon:39.2630868,-76.5800407,{description}"));

    let details = maps.place(&fort.place_id).await.unwrap();
    assert_eq!(
        details,
        PlaceDetails {
            place_id: fort.place_id.clone(),
            lat: 39.2630868,
            lng: -76.5800407,
            address: description.into()
        }
    );
    assert_eq!(server.seen().len(), 1, "the id holds the place; Photon is not asked again");
    for broken in ["photon:39.26,-76.58", "photon:91,0,North of the pole", "photon:a,b,c", "nominatim:W1"] {
        assert!(matches!(maps.place(broken).await, Err(MapsError::UnknownPlace)), "{broken}");
    }

    // Without a country or a focus, none is sent.
    maps.autocomplete("fort mc", None, Some("")).await.unwrap();
    let seen = server.seen().pop().unwrap();
    assert!(seen.param("countrycode").is_none() && seen.param("lat").is_none(), "{seen:?}");
}

#[tokio::test]
async fn photon_reverse_writes_the_street_address_or_answers_the_coordinates() {
    let server = FakeServer::start(|seen| {
        if seen.param("lat") == Some("39.2766") {
            Reply::json(
                r#"{"features":[{"geometry":{"coordinates":[-76.5951,39.2766],"type":"Point"},"type":"Feature",
                    "properties":{"osm_type":"N","osm_id":5540781031,"country":"United States","osm_key":"building",
                      "housenumber":"1400","city":"Baltimore","street":"Key Highway","countrycode":"US",
                      "osm_value":"yes","postcode":"21230","state":"Maryland","type":"house"}}],
                  "type":"FeatureCollection"}"#,
            )
        } else {
            Reply::json(r#"{"features":[],"type":"FeatureCollection"}"#)
        }
    })
    .await;
    let maps = photon(&server);
    assert_eq!(maps.reverse(VIA).await.unwrap(), "1400 Key Highway, Baltimore, Maryland 21230, United States");
    let seen = server.only_request();
    assert_eq!(seen.path, "/reverse");
    assert_eq!((seen.param("lon"), seen.param("limit")), (Some("-76.5951"), Some("1")));
    assert_eq!(maps.reverse(LatLng::new(30.0, -40.0)).await.unwrap(), "30.00000, -40.00000");
}

#[tokio::test]
async fn google_autocomplete_sends_the_key_country_and_focus_and_details_resolve_its_place_id() {
    let server = FakeServer::start(|seen| match seen.path.as_str() {
        "/maps/api/place/autocomplete/json" => Reply::json(
            r#"{"predictions":[{
                "description":"Fort McHenry National Monument and Historic Shrine, East Fort Avenue, Baltimore, MD, USA",
                "matched_substrings":[{"length":7,"offset":0}],
                "place_id":"ChIJrTLr-GyuEmsRBfy61i59si0","reference":"ChIJrTLr-GyuEmsRBfy61i59si0",
                "structured_formatting":{"main_text":"Fort McHenry National Monument and Historic Shrine",
                  "main_text_matched_substrings":[{"length":7,"offset":0}],
                  "secondary_text":"East Fort Avenue, Baltimore, MD, USA"},
                "terms":[{"offset":0,"value":"Fort McHenry National Monument and Historic Shrine"},
                         {"offset":52,"value":"East Fort Avenue"}],
                "types":["tourist_attraction","point_of_interest","establishment"]}],
              "status":"OK"}"#,
        ),
        "/maps/api/place/details/json" if seen.param("place_id") == Some("ChIJrTLr-GyuEmsRBfy61i59si0") => {
            Reply::json(
                r#"{"html_attributions":[],"result":{
                    "formatted_address":"2400 E Fort Ave, Baltimore, MD 21230, USA",
                    "geometry":{"location":{"lat":39.2630868,"lng":-76.5800407},
                      "viewport":{"northeast":{"lat":39.266,"lng":-76.576},"southwest":{"lat":39.2598,"lng":-76.5834}}},
                    "name":"Fort McHenry National Monument and Historic Shrine"},
                  "status":"OK"}"#,
            )
        }
        _ => Reply::json(r#"{"html_attributions":[],"status":"NOT_FOUND"}"#),
    })
    .await;
    let maps = google(&server);
    let suggestions = maps.autocomplete("fort mc", Some(START), Some("US")).await.unwrap();
    let seen = server.only_request();
    assert_eq!(seen.param("key"), Some(GOOGLE_KEY));
    assert_eq!(seen.param("input"), Some("fort mc"));
    assert_eq!(seen.param("components"), Some("country:us"));
    assert_eq!((seen.param("location"), seen.param("radius")), (Some("39.2858,-76.6131"), Some("50000")));
    assert_eq!(suggestions.len(), 1);
    assert_eq!(suggestions[0].main_text, "Fort McHenry National Monument and Historic Shrine");
    assert_eq!(suggestions[0].secondary_text, "East Fort Avenue, Baltimore, MD, USA");

    let details = maps.place(&suggestions[0].place_id).await.unwrap();
    let seen = server.seen().pop().unwrap();
    assert_eq!(seen.path, "/maps/api/place/details/json");
    assert_eq!(seen.param("key"), Some(GOOGLE_KEY));
    assert_eq!(details.place_id, "ChIJrTLr-GyuEmsRBfy61i59si0");
    assert_eq!((details.lat, details.lng), (39.2630868, -76.5800407));
    assert_eq!(details.address, "2400 E Fort Ave, Baltimore, MD 21230, USA");
    let error = maps.place("ChIJgone").await.unwrap_err();
    assert_eq!(error.key().as_str(), "place_to_coords_error");
}

#[tokio::test]
async fn google_reverse_answers_the_first_formatted_address() {
    let server = FakeServer::start(|seen| {
        if seen.param("latlng") == Some("39.2766,-76.5951") {
            Reply::json(
                r#"{"plus_code":{"compound_code":"7CGF+J2 Baltimore, MD, USA","global_code":"87F57CGF+J2"},
                  "results":[{"address_components":[],"formatted_address":"1400 Key Hwy, Baltimore, MD 21230, USA",
                    "geometry":{"location":{"lat":39.2766,"lng":-76.5951},"location_type":"ROOFTOP"},
                    "place_id":"ChIJ2eUgeAK6j4ARbn5u_wAGqWA","types":["street_address"]},
                   {"address_components":[],"formatted_address":"Locust Point, Baltimore, MD, USA",
                    "geometry":{"location":{"lat":39.27,"lng":-76.59},"location_type":"APPROXIMATE"},
                    "place_id":"ChIJLocustPoint","types":["neighborhood"]}],
                  "status":"OK"}"#,
            )
        } else {
            Reply::json(r#"{"results":[],"status":"ZERO_RESULTS"}"#)
        }
    })
    .await;
    let maps = google(&server);
    assert_eq!(maps.reverse(VIA).await.unwrap(), "1400 Key Hwy, Baltimore, MD 21230, USA");
    let seen = server.only_request();
    assert_eq!((seen.path.as_str(), seen.param("key")), ("/maps/api/geocode/json", Some(GOOGLE_KEY)));
    assert_eq!(maps.reverse(LatLng::new(30.0, -40.0)).await.unwrap(), "30.00000, -40.00000");
}

#[tokio::test]
async fn google_directions_go_through_the_waypoint_and_add_up_the_legs() {
    let line = crate::polyline::encode(&[START, VIA, DEST]);
    let answer = format!(
        r#"{{"geocoded_waypoints":[{{"geocoder_status":"OK","place_id":"a","types":["street_address"]}}],
          "routes":[{{"bounds":{{}},"copyrights":"Map data ©2025 Google",
            "legs":[{{"distance":{{"text":"2.3 km","value":2310}},"duration":{{"text":"5 mins","value":301}},
                      "end_address":"1400 Key Hwy","start_address":"E Pratt St","steps":[],"via_waypoint":[]}},
                    {{"distance":{{"text":"2.5 km","value":2451}},"duration":{{"text":"5 mins","value":311}},
                      "end_address":"2400 E Fort Ave","start_address":"1400 Key Hwy","steps":[],"via_waypoint":[]}}],
            "overview_polyline":{{"points":"{line}"}},"summary":"Key Hwy","warnings":[],"waypoint_order":[0]}}],
          "status":"OK"}}"#
    );
    let server = FakeServer::start(move |seen| {
        if seen.param("destination") == Some("39.2631,-76.5797") {
            Reply::json(answer.clone())
        } else {
            Reply::json(r#"{"geocoded_waypoints":[],"routes":[],"status":"ZERO_RESULTS"}"#)
        }
    })
    .await;
    let maps = google(&server);
    let route = maps.directions(START, DEST, &[VIA]).await.unwrap();
    let seen = server.only_request();
    assert_eq!(seen.path, "/maps/api/directions/json");
    assert_eq!(seen.param("origin"), Some("39.2858,-76.6131"));
    assert_eq!(seen.param("waypoints"), Some("39.2766,-76.5951"));
    assert_eq!((seen.param("mode"), seen.param("key")), (Some("driving"), Some(GOOGLE_KEY)));
    assert!((route.distance_km - 4.761).abs() < 1e-9, "{}", route.distance_km);
    assert_eq!(route.time_secs, 612);
    assert_eq!(route.coords, coords(&[START, VIA, DEST]));

    // spec §8 'No Route Found'
    let error = maps.directions(START, LatLng::new(21.3, -157.8), &[]).await.unwrap_err();
    assert!(matches!(error, MapsError::NoRoute), "{error:?}");
}

#[tokio::test]
async fn a_google_matrix_keeps_an_element_without_a_route_as_none() {
    let server = FakeServer::start(|_| {
        Reply::json(
            r#"{"destination_addresses":["2400 E Fort Ave, Baltimore, MD 21230, USA","Honolulu, HI, USA"],
              "origin_addresses":["E Pratt St, Baltimore, MD, USA"],
              "rows":[{"elements":[
                {"distance":{"text":"4.8 km","value":4761},"duration":{"text":"10 mins","value":612},"status":"OK"},
                {"status":"ZERO_RESULTS"}]}],
              "status":"OK"}"#,
        )
    })
    .await;
    let honolulu = LatLng::new(21.3, -157.8);
    let matrix = google(&server).distance_matrix(&[START], &[DEST, honolulu]).await.unwrap();
    let seen = server.only_request();
    assert_eq!(seen.path, "/maps/api/distancematrix/json");
    assert_eq!(seen.param("destinations"), Some("39.2631,-76.5797|21.3,-157.8"));
    assert_eq!(matrix, [[Some(Leg { distance_km: 4.761, time_secs: 612 }), None]]);
}

#[tokio::test]
async fn a_google_refusal_keeps_googles_reason_for_the_logs_and_never_the_key() {
    let server = FakeServer::start(|_| {
        Reply::json(
            r#"{"error_message":"The provided API key is invalid. ","predictions":[],"status":"REQUEST_DENIED"}"#,
        )
    })
    .await;
    let error = google(&server).autocomplete("fort", None, None).await.unwrap_err();
    assert_eq!(error.to_string(), "fetchPlacesAutocomplete Call Error");
    assert_eq!(
        *cause(&error, GeoCall::Autocomplete),
        RemoteError::Refused {
            service: "Google Maps",
            status: "REQUEST_DENIED".into(),
            message: "The provided API key is invalid. ".into()
        }
    );

    // Nothing listens on a port just released: reqwest's own error would
    // name the URL, key included.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let google = Google::new(http(), Url::parse(&format!("http://{closed}")).unwrap(), GOOGLE_KEY);
    assert!(!format!("{google:?}").contains(GOOGLE_KEY));
    let maps = Composed::new(Arc::new(google.clone()), Arc::new(google));
    for error in [
        maps.directions(START, DEST, &[]).await.unwrap_err(),
        maps.autocomplete("2400 E Fort Ave", None, None).await.unwrap_err(),
    ] {
        let text = whole_text(&error);
        assert!(text.contains("Google Maps could not be reached"), "{text}");
        assert!(!text.contains(GOOGLE_KEY) && !text.contains("Fort Ave"), "{text}");
    }
}

#[tokio::test]
async fn the_configuration_composes_osrm_routes_with_a_nominatim_geocoder() {
    let line = crate::polyline::encode(&[START, DEST]);
    let route = osrm_route_answer(&line);
    let server = FakeServer::start(move |seen| {
        if seen.path.starts_with("/route/") {
            Reply::json(route.clone())
        } else {
            Reply::json(format!("[{NOMINATIM_FORT}]"))
        }
    })
    .await;
    let url = server.url.to_string();
    let config = MapsConfig {
        provider: Some(ProviderKind::Osrm),
        osrm_url: Some(url.clone()),
        geocoder: Some(GeocoderKind::Nominatim),
        geocoder_url: Some(url.clone()),
        ..MapsConfig::default()
    };
    let maps = provider_from(&config, Path::new("/nonexistent")).unwrap();
    assert_eq!(maps.directions(START, DEST, &[]).await.unwrap().time_secs, 612);
    let suggestions = maps.autocomplete("fort mc", None, None).await.unwrap();
    assert_eq!(suggestions[0].place_id, "nominatim:W37823233");
    let paths: Vec<String> = server.seen().into_iter().map(|seen| seen.path).collect();
    assert_eq!(paths, ["/route/v1/driving/-76.6131,39.2858;-76.5797,39.2631", "/search"]);
    assert!(maps.tiles().is_none() && maps.match_track(&[START, DEST]).is_none(), "no map of its own");

    // Without a geocoder, OSRM's places are the built-in landmarks.
    let config = MapsConfig { geocoder: None, geocoder_url: None, ..config };
    let maps = provider_from(&config, Path::new("/nonexistent")).unwrap();
    let suggestions = maps.autocomplete("fort mc", None, Some("us")).await.unwrap();
    assert_eq!(suggestions[0].place_id, "bmore:fort-mchenry");
    assert_eq!(server.seen().len(), 2, "the landmarks are searched here");
}

#[tokio::test]
async fn the_configuration_composes_google_routes_with_a_photon_geocoder() {
    let server = FakeServer::start(|seen| match seen.path.as_str() {
        "/api" => Reply::json(PHOTON_ANSWER),
        _ => Reply::json(r#"{"geocoded_waypoints":[],"routes":[],"status":"ZERO_RESULTS"}"#),
    })
    .await;
    let url = server.url.to_string();
    let config: MapsConfig = serde_json::from_value(serde_json::json!({
        "provider": "google",
        "google_api_key": GOOGLE_KEY,
        "google_base_url": url,
        "geocoder": "photon",
        "geocoder_url": url,
    }))
    .unwrap();
    let maps = provider_from(&config, Path::new("/nonexistent")).unwrap();
    assert!(matches!(maps.directions(START, DEST, &[]).await, Err(MapsError::NoRoute)));
    let suggestions = maps.autocomplete("fort mc", None, None).await.unwrap();
    assert!(suggestions[0].place_id.starts_with("photon:"), "{suggestions:?}");
    let seen = server.seen();
    assert_eq!((seen[0].path.as_str(), seen[0].param("key")), ("/maps/api/directions/json", Some(GOOGLE_KEY)));
    assert_eq!((seen[1].path.as_str(), seen[1].param("key")), ("/api", None), "Photon is not sent Google's key");
}
