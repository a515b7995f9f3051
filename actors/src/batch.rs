//! The `batch` dispatch policy's IO (issue #16): timing a window's pickups
//! on the maps. The window itself (who waits, when it closes, what it
//! offers) is the engine's `dispatch::DispatchWindow`, which the spatial
//! index actor drives on the runtime's clock as the simulator does on its
//! own; timing happens off the actor, since the maps are IO.

use crate::protocol::BookingMsg;
use ractor::ActorRef;
use std::sync::Arc;
use std::time::Duration;
use tracing::warn;
use wayfare_engine::dispatch::{BatchProblem, PickupTimes, straight_line_secs, straight_line_times};
use wayfare_engine::{Booking, LatLng, Settings};
use wayfare_maps::MapsProvider;

/// The maps provider the `batch` policy may time pickups with.
#[derive(Clone)]
pub struct BatchRoads {
    pub maps: Arc<dyn MapsProvider>,
    /// The provider routes on a local extract (`osm`): cheap and offline, so
    /// its road times are used whatever `useDistanceMatrix` says. A web
    /// service (OSRM, Google) is asked only with `useDistanceMatrix` on,
    /// since every window would cost requests.
    pub local: bool,
}

impl std::fmt::Debug for BatchRoads {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("BatchRoads").field("local", &self.local).finish_non_exhaustive()
    }
}

impl BatchRoads {
    /// The provider to time a window with under `settings`, or `None` for
    /// straight lines.
    pub(crate) fn for_window(roads: Option<&BatchRoads>, settings: &Settings) -> Option<Arc<dyn MapsProvider>> {
        roads.filter(|roads| roads.local || settings.useDistanceMatrix).map(|roads| roads.maps.clone())
    }
}

/// A booking waiting for the next window: its latest copy (a new request
/// replaces it) and its actor.
pub(crate) struct Waiting {
    pub booking: Arc<Booking>,
    pub reply_to: ActorRef<BookingMsg>,
}

fn straight_line_row(origins: &[LatLng], pickup: LatLng) -> Vec<Option<u64>> {
    origins.iter().map(|origin| Some(straight_line_secs(*origin, pickup))).collect()
}

/// Each candidate's pickup time: on the roads of `maps` when given (`None`
/// where no road joins them), else in straight lines. A booking whose
/// matrix fails, or is not in by `budget`, is timed in straight lines: a
/// slow or broken maps service delays a window at most `budget`, and never
/// loses it.
pub(crate) async fn pickup_times(
    problem: &BatchProblem,
    maps: Option<Arc<dyn MapsProvider>>,
    budget: Duration,
) -> PickupTimes {
    let Some(maps) = maps else { return straight_line_times(problem) };
    let give_up_at = tokio::time::Instant::now() + budget;
    let mut fallbacks = 0usize;
    let mut last_failure = String::new();
    let mut times = Vec::with_capacity(problem.bookings.len());
    for ((_, pickup, _), candidates) in problem.bookings.iter().zip(&problem.candidates) {
        let origins: Vec<LatLng> = candidates.iter().map(|candidate| candidate.position).collect();
        let answer = tokio::time::timeout_at(give_up_at, maps.distance_matrix(&origins, &[*pickup])).await;
        let row = match answer {
            Ok(Ok(matrix)) if matrix.len() == origins.len() => {
                matrix.iter().map(|row| row.first().copied().flatten().map(|leg| leg.time_secs)).collect()
            }
            failed => {
                last_failure = match failed {
                    Ok(Ok(matrix)) => format!("{} rows for {} origins", matrix.len(), origins.len()),
                    Ok(Err(error)) => error.to_string(),
                    Err(_) => "out of time".to_string(),
                };
                fallbacks += 1;
                straight_line_row(&origins, *pickup)
            }
        };
        times.push(row);
    }
    if fallbacks > 0 {
        // The maps failed or were late for these bookings.
        warn!(bookings = fallbacks, error = %last_failure, "batch pickups timed in straight lines");
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use wayfare_engine::dispatch::Candidate;
    use wayfare_engine::{BookingId, UserId, geo, geo::EARTH_RADIUS_KM};
    use wayfare_maps::{DistanceMatrix, Leg, MapsError, PlaceDetails, Route, Suggestion};

    const PICKUP: LatLng = LatLng { lat: 39.29, lng: -76.61 };

    fn north_of(origin: LatLng, km: f64) -> LatLng {
        LatLng::new(origin.lat + km / EARTH_RADIUS_KM.to_radians(), origin.lng)
    }

    fn candidate(number: u128, position: LatLng) -> Candidate {
        Candidate { driver: UserId::from_u128(number), position, distance_km: geo::distance_km(position, PICKUP) }
    }

    /// Two bookings at the pickup and 2 km north; drivers 1 km and 3 km north.
    fn problem() -> BatchProblem {
        let drivers = vec![candidate(1, north_of(PICKUP, 1.0)), candidate(2, north_of(PICKUP, 3.0))];
        BatchProblem {
            bookings: vec![(BookingId::from_u128(1), PICKUP, 1), (BookingId::from_u128(2), north_of(PICKUP, 2.0), 1)],
            candidates: vec![drivers.clone(), drivers],
        }
    }

    enum Answer {
        /// Ten seconds per origin, by row; no road from the second origin.
        Roads,
        Fails,
        Never,
    }

    struct Maps(Answer);

    #[async_trait]
    impl MapsProvider for Maps {
        async fn autocomplete(
            &self,
            _: &str,
            _: Option<LatLng>,
            _: Option<&str>,
        ) -> Result<Vec<Suggestion>, MapsError> {
            Err(MapsError::NoRoute)
        }
        async fn place(&self, _: &str) -> Result<PlaceDetails, MapsError> {
            Err(MapsError::UnknownPlace)
        }
        async fn reverse(&self, _: LatLng) -> Result<String, MapsError> {
            Err(MapsError::NoRoute)
        }
        async fn directions(&self, _: LatLng, _: LatLng, _: &[LatLng]) -> Result<Route, MapsError> {
            Err(MapsError::NoRoute)
        }
        async fn distance_matrix(
            &self,
            origins: &[LatLng],
            destinations: &[LatLng],
        ) -> Result<DistanceMatrix, MapsError> {
            assert_eq!(destinations.len(), 1, "one pickup per matrix");
            match self.0 {
                Answer::Roads => Ok((0..origins.len())
                    .map(|row| vec![(row == 0).then_some(Leg { distance_km: 1.0, time_secs: 10 })])
                    .collect()),
                Answer::Fails => Err(MapsError::InvalidPoint),
                Answer::Never => std::future::pending().await,
            }
        }
    }

    fn roads(answer: Answer, local: bool) -> BatchRoads {
        BatchRoads { maps: Arc::new(Maps(answer)), local }
    }

    #[test]
    fn a_local_router_is_always_asked_a_web_service_only_with_use_distance_matrix() {
        let off = Settings { useDistanceMatrix: false, ..Settings::default() };
        let on = Settings { useDistanceMatrix: true, ..Settings::default() };
        let local = roads(Answer::Roads, true);
        let remote = roads(Answer::Roads, false);
        assert!(BatchRoads::for_window(Some(&local), &off).is_some());
        assert!(BatchRoads::for_window(Some(&local), &on).is_some());
        assert!(BatchRoads::for_window(Some(&remote), &off).is_none());
        assert!(BatchRoads::for_window(Some(&remote), &on).is_some());
        assert!(BatchRoads::for_window(None, &on).is_none());
    }

    #[tokio::test]
    async fn road_times_come_from_the_maps_with_unroutable_pairs_left_out() {
        let times = pickup_times(&problem(), Some(roads(Answer::Roads, true).maps), Duration::from_secs(5)).await;
        assert_eq!(times, vec![vec![Some(10), None], vec![Some(10), None]]);
    }

    #[tokio::test]
    async fn a_failing_maps_service_falls_back_to_straight_lines() {
        let times = pickup_times(&problem(), Some(roads(Answer::Fails, false).maps), Duration::from_secs(5)).await;
        assert_eq!(times, straight_line_times(&problem()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_maps_service_that_never_answers_costs_the_window_its_budget_only() {
        let started = tokio::time::Instant::now();
        let times = pickup_times(&problem(), Some(roads(Answer::Never, false).maps), Duration::from_secs(5)).await;
        assert_eq!(times, straight_line_times(&problem()));
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }
}
