//! A sliding-window limit per key (client addresses asking for codes). Kept
//! in memory: it protects this process; the per-contact limit is counted in
//! storage, so it holds across processes.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use wayfare_engine::Millis;

#[derive(Debug, Default)]
pub struct Limiter {
    hits: Mutex<HashMap<String, VecDeque<Millis>>>,
}

impl Limiter {
    /// Records a hit at `now` unless `limit` hits already fell in the window;
    /// false means refused.
    pub fn allow(&self, key: &str, now: Millis, window_ms: Millis, limit: u32) -> bool {
        let mut hits = self.hits.lock().expect("limiter lock");
        if hits.len() > 100_000 {
            // Forget idle keys so the map cannot grow without bound.
            hits.retain(|_, times| times.back().is_some_and(|last| now - last < window_ms));
        }
        let times = hits.entry(key.to_string()).or_default();
        while times.front().is_some_and(|first| now - first >= window_ms) {
            times.pop_front();
        }
        if times.len() >= limit as usize {
            return false;
        }
        times.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_refused_past_the_limit_until_the_window_moves_on() {
        let limiter = Limiter::default();
        assert!(limiter.allow("1.2.3.4", 0, 1_000, 2));
        assert!(limiter.allow("1.2.3.4", 10, 1_000, 2));
        assert!(!limiter.allow("1.2.3.4", 20, 1_000, 2));
        assert!(limiter.allow("5.6.7.8", 20, 1_000, 2), "other keys are not affected");
        assert!(limiter.allow("1.2.3.4", 1_001, 1_000, 2));
    }
}
