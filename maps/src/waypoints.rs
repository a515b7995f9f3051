//! Spec §7: "at most about 25 waypoints per directions request; longer tracks
//! are thinned by step".

/// At most `max` points of `points`, evenly spaced by index, in their order,
/// keeping the first and the last (when `max` is at least 2). A track that
/// already fits comes back whole.
pub fn thin_waypoints<T: Clone>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max {
        return points.to_vec();
    }
    match max {
        0 => Vec::new(),
        1 => points[..1].to_vec(),
        _ => {
            // Index i of max picks point i × (n−1)/(max−1), rounded down: the
            // step is more than one point, so no point is picked twice, and
            // i = max−1 lands exactly on the last point.
            let last_index = points.len() - 1;
            let last_pick = max - 1;
            (0..max).map(|pick| points[pick * last_index / last_pick].clone()).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_track_that_fits_comes_back_whole() {
        let track = [1, 2, 3];
        assert_eq!(thin_waypoints(&track, 3), track);
        assert_eq!(thin_waypoints(&track, 25), track);
        assert_eq!(thin_waypoints::<i32>(&[], 25), Vec::<i32>::new());
    }

    #[test]
    fn a_long_track_is_thinned_by_an_even_step_keeping_both_ends() {
        // spec §7: longer tracks are thinned by step
        let track: Vec<usize> = (0..=100).collect();
        assert_eq!(thin_waypoints(&track, 5), [0, 25, 50, 75, 100]);
        assert_eq!(thin_waypoints(&track, 2), [0, 100]);
        assert_eq!(thin_waypoints(&track, 1), [0]);
        assert_eq!(thin_waypoints(&track, 0), Vec::<usize>::new());
    }

    proptest! {
        #[test]
        fn thinning_keeps_the_ends_the_order_and_at_most_max_points(length in 0_usize..400, max in 2_usize..40) {
            let track: Vec<usize> = (0..length).collect();
            let thinned = thin_waypoints(&track, max);
            prop_assert_eq!(thinned.len(), length.min(max));
            prop_assert_eq!(thinned.first(), track.first());
            prop_assert_eq!(thinned.last(), track.last());
            prop_assert!(thinned.windows(2).all(|pair| pair[0] < pair[1]), "in order, no repeats: {:?}", thinned);
        }
    }
}
