use super::*;
use crate::dispatch::fixtures::{NOW, PICKUP, batch_booking, driver, north_of, policy};
use crate::model::DispatchPolicy;

/// Bookings by id, as a caller's handles read them.
type Bookings = BTreeMap<BookingId, Booking>;

fn batch() -> Settings {
    Settings { dispatchBatchSeconds: 30, dispatchOfferSeconds: 20, ..policy(DispatchPolicy::Batch) }
}

fn index_with(drivers: &[(u128, f64)]) -> DriverIndex {
    let mut index = DriverIndex::new();
    for (number, km) in drivers {
        index.upsert(driver(*number), "Sedan", north_of(PICKUP, *km), true);
    }
    index
}

/// Asks for `booking` with its id as the handle; the wake it arms, if any.
fn ask(window: &mut DispatchWindow<BookingId>, booking: &Booking, index: &DriverIndex, now: Millis) -> Option<Wake> {
    match window.ask(booking, booking.id, index, &batch(), now) {
        Asked::Waits { wake } => wake,
        other => panic!("expected a wait, got {other:?}"),
    }
}

/// Closes window `wake` with the waiting bookings.
fn close(
    window: &mut DispatchWindow<BookingId>,
    wake: Wake,
    settings: &Settings,
    bookings: &Bookings,
    index: &DriverIndex,
) -> (Closed<BookingId>, Vec<(BookingId, DispatchLog)>) {
    let waiting: Vec<&Booking> = window.waiting().map(|id| &bookings[id]).collect();
    window.close(wake.window, &waiting, index, settings, wake.at)
}

/// Runs window `wake` to its offers in straight lines.
fn run(
    window: &mut DispatchWindow<BookingId>,
    wake: Wake,
    bookings: &Bookings,
    index: &DriverIndex,
) -> Matched<BookingId> {
    let (closed, _) = close(window, wake, &batch(), bookings, index);
    let Closed::Time(problem) = closed else { panic!("expected a problem, got {closed:?}") };
    let mut times = straight_line_times(&problem);
    assert!(window.timed(wake.window, &problem, &mut times, |_| true));
    let offers = problem.solve(&times, &batch(), wake.at);
    window.matched(wake.window, offers, |_| true, &batch(), wake.at).expect("current window")
}

#[test]
fn the_first_booking_to_wait_arms_one_window_the_batch_seconds_ahead() {
    let index = index_with(&[(1, 1.0)]);
    let mut window = DispatchWindow::new();
    let first = batch_booking(1, PICKUP);
    let second = batch_booking(2, north_of(PICKUP, 0.5));
    assert_eq!(ask(&mut window, &first, &index, NOW), Some(Wake { window: 1, at: NOW + 30_000 }));
    assert_eq!(ask(&mut window, &second, &index, NOW + 5_000), None, "one window at a time");
    assert_eq!(window.waiting_len(), 2);
}

#[test]
fn a_window_offers_the_matching_and_arms_the_next_while_bookings_wait() {
    let index = index_with(&[(1, 0.4)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings =
        [batch_booking(1, PICKUP), batch_booking(2, north_of(PICKUP, 3.0))].into_iter().map(|b| (b.id, b)).collect();
    let wake = bookings.values().fold(None, |wake, booking| wake.or(ask(&mut window, booking, &index, NOW)));
    let matched = run(&mut window, wake.expect("armed"), &bookings, &index);
    // One driver, two bookings: the nearer pickup wins, the other waits.
    assert_eq!(matched.offers.len(), 1);
    let (handle, offer) = &matched.offers[0];
    assert_eq!((*handle, offer.driver.driver, offer.deadline), (BookingId::from_u128(1), driver(1), NOW + 50_000));
    assert_eq!(matched.wake, Some(Wake { window: 2, at: NOW + 60_000 }));
    assert!(window.is_waiting(BookingId::from_u128(2)));
}

#[test]
fn no_booking_waiting_no_window() {
    let index = index_with(&[(1, 0.4)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings = [batch_booking(1, PICKUP)].into_iter().map(|b| (b.id, b)).collect();
    let wake = ask(&mut window, &bookings[&BookingId::from_u128(1)], &index, NOW).expect("armed");
    let matched = run(&mut window, wake, &bookings, &index);
    assert_eq!(matched.offers.len(), 1);
    assert_eq!(matched.wake, None);
    assert_eq!(window.waiting_len(), 0);
}

#[test]
fn steps_of_another_window_are_stale() {
    let index = index_with(&[(1, 0.4)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings = [batch_booking(1, PICKUP)].into_iter().map(|b| (b.id, b)).collect();
    let wake = ask(&mut window, &bookings[&BookingId::from_u128(1)], &index, NOW).expect("armed");
    let (closed, _) = close(&mut window, Wake { window: wake.window + 1, ..wake }, &batch(), &bookings, &index);
    assert!(matches!(closed, Closed::Stale));
    assert!(window.matched(wake.window + 1, Vec::new(), |_| true, &batch(), wake.at).is_none());
    let mut times = Vec::new();
    assert!(!window.timed(
        wake.window + 1,
        &BatchProblem { bookings: Vec::new(), candidates: Vec::new() },
        &mut times,
        |_| true
    ));
}

#[test]
fn a_driver_gone_while_the_window_was_timed_or_solved_is_not_offered() {
    let index = index_with(&[(1, 0.4), (2, 2.0)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings = [batch_booking(1, PICKUP)].into_iter().map(|b| (b.id, b)).collect();
    let wake = ask(&mut window, &bookings[&BookingId::from_u128(1)], &index, NOW).expect("armed");
    let (Closed::Time(problem), _) = close(&mut window, wake, &batch(), &bookings, &index) else {
        panic!("expected a problem")
    };
    let mut times = straight_line_times(&problem);
    // Driver 1 went busy while the pickups were timed: driver 2 is matched.
    assert!(window.timed(wake.window, &problem, &mut times, |id| id != driver(1)));
    let offers = problem.solve(&times, &batch(), wake.at);
    assert_eq!(offers[0].driver.driver, driver(2));
    // Driver 2 went busy while it was solved: nobody is offered, the booking waits.
    let matched = window.matched(wake.window, offers, |id| id != driver(2), &batch(), wake.at).expect("current");
    assert!(matched.offers.is_empty());
    assert_eq!(matched.wake, Some(Wake { window: 2, at: wake.at + 30_000 }));
}

#[test]
fn nobody_in_range_is_logged_once_per_request_and_the_booking_keeps_waiting() {
    let index = index_with(&[(1, 50.0)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings = [batch_booking(1, PICKUP)].into_iter().map(|b| (b.id, b)).collect();
    let mut wake = ask(&mut window, &bookings[&BookingId::from_u128(1)], &index, NOW).expect("armed");
    let mut logged = Vec::new();
    for _ in 0..3 {
        let (closed, logs) = close(&mut window, wake, &batch(), &bookings, &index);
        logged.extend(logs);
        let Closed::Done { wake: Some(next) } = closed else { panic!("expected the next window, got {closed:?}") };
        wake = next;
    }
    assert_eq!(logged, vec![(BookingId::from_u128(1), DispatchLog::NoCandidates { wave: 1 })]);
    assert!(window.is_waiting(BookingId::from_u128(1)));
}

#[test]
fn a_policy_changed_while_bookings_waited_hands_them_back_to_be_asked_afresh() {
    let index = index_with(&[(1, 0.4)]);
    let mut window = DispatchWindow::new();
    let bookings: Bookings = [batch_booking(1, PICKUP)].into_iter().map(|b| (b.id, b)).collect();
    let wake = ask(&mut window, &bookings[&BookingId::from_u128(1)], &index, NOW).expect("armed");
    let waves = Settings { dispatchPolicy: DispatchPolicy::Waves, ..batch() };
    let (closed, _) = close(&mut window, wake, &waves, &bookings, &index);
    assert!(matches!(closed, Closed::Replan(ref handles) if handles == &[BookingId::from_u128(1)]));
    let asked = window.ask(&bookings[&BookingId::from_u128(1)], BookingId::from_u128(1), &index, &waves, wake.at);
    assert!(matches!(asked, Asked::Offer { ref drivers, wave: 1, .. } if drivers[0].driver == driver(1)));
    assert_eq!(window.waiting_len(), 0);
}

#[test]
fn a_booking_that_left_new_stops_waiting_and_one_not_dispatchable_is_dropped() {
    let index = index_with(&[(1, 0.4)]);
    let mut window = DispatchWindow::new();
    let booking = batch_booking(1, PICKUP);
    ask(&mut window, &booking, &index, NOW);
    assert_eq!(window.leave(booking.id), Some(booking.id));
    assert!(!window.is_waiting(booking.id));
    ask(&mut window, &booking, &index, NOW);
    let accepted = Booking { status: crate::model::BookingStatus::Accepted, ..booking.clone() };
    assert!(matches!(window.ask(&accepted, accepted.id, &index, &batch(), NOW), Asked::Nothing { log: None, .. }));
    assert!(!window.is_waiting(booking.id));
}

#[test]
fn straight_lines_run_at_the_city_average() {
    // 1 km at 30 km/h is two minutes.
    assert_eq!(straight_line_secs(PICKUP, north_of(PICKUP, 1.0)), 120);
}
