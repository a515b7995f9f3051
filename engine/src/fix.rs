//! A device's position fix: whether it is good enough to dispatch and track
//! on, which time it stands for, and when a driver's last one is too old to
//! be shown as where they are.
//!
//! A phone reports fixes with their own time and accuracy. A fix sent late
//! (queued while the network was down) keeps its own time, so the trip's
//! track has the points where they were driven, in order; a vague one (a
//! tunnel, a phone on a desk indoors) is not used at all, since placing a
//! driver 300 m off would offer them the wrong pickups and draw a zigzag on
//! the rider's map.

use crate::Millis;

/// Fixes less precise than this (metres, the device's own estimate) are not
/// used for dispatch, the track or the stored position.
pub const MAX_ACCURACY_M: f64 = 100.0;

/// A driver with no usable fix for this long is shown as lost, not where
/// they were.
pub const STALE_AFTER_MS: Millis = 30_000;

/// A queued fix older than this is a leftover, not a late report: it is not
/// put on the track.
pub const MAX_LATE_MS: Millis = 30 * 60_000;

/// Whether a fix is precise enough to use. A fix without an accuracy (a
/// script, an older app) is taken as it is.
pub fn is_usable(accuracy: Option<f64>) -> bool {
    match accuracy {
        None => true,
        Some(metres) => (0.0..=MAX_ACCURACY_M).contains(&metres),
    }
}

/// The time a fix stands for on the track: the device's own when it is
/// believable, else `now`. `None` when the fix must not go on the track: too
/// old, or not after the last point already there (tracks only move forward).
pub fn track_time(reported: Option<Millis>, now: Millis, last_tracked: Option<Millis>) -> Option<Millis> {
    let at = match reported {
        // A device clock ahead of ours: the fix is as new as can be.
        Some(at) if at > now => now,
        Some(at) if at < now - MAX_LATE_MS => return None,
        Some(at) => at,
        None => now,
    };
    match last_tracked {
        Some(last) if at <= last => None,
        _ => Some(at),
    }
}

/// Whether a driver last heard of at `seen` is shown as lost at `now`.
pub fn is_stale(seen: Millis, now: Millis) -> bool {
    now - seen > STALE_AFTER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_767_225_600_000;

    #[test]
    fn a_fix_worse_than_a_hundred_metres_is_not_used() {
        assert!(is_usable(Some(5.0)));
        assert!(is_usable(Some(100.0)));
        assert!(!is_usable(Some(100.5)));
        assert!(!is_usable(Some(f64::NAN)));
        assert!(!is_usable(Some(-1.0)));
        assert!(is_usable(None), "a fix that does not say is taken");
    }

    #[test]
    fn a_late_fix_keeps_its_own_time() {
        assert_eq!(track_time(Some(NOW - 12_000), NOW, Some(NOW - 20_000)), Some(NOW - 12_000));
        assert_eq!(track_time(None, NOW, None), Some(NOW));
    }

    #[test]
    fn a_fix_from_a_clock_ahead_counts_as_now() {
        assert_eq!(track_time(Some(NOW + 2_000), NOW, None), Some(NOW));
        assert_eq!(track_time(Some(NOW + 3_600_000), NOW, None), Some(NOW));
    }

    #[test]
    fn the_track_only_moves_forward() {
        assert_eq!(track_time(Some(NOW - 5_000), NOW, Some(NOW - 5_000)), None);
        assert_eq!(track_time(Some(NOW - 9_000), NOW, Some(NOW - 5_000)), None);
        assert_eq!(track_time(Some(NOW - MAX_LATE_MS - 1), NOW, None), None, "a leftover is not a late report");
    }

    #[test]
    fn a_driver_is_lost_after_thirty_silent_seconds() {
        assert!(!is_stale(NOW - STALE_AFTER_MS, NOW));
        assert!(is_stale(NOW - STALE_AFTER_MS - 1, NOW));
    }
}
