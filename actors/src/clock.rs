//! Where the runtime reads the time and waits for it. The engine never does;
//! the actors pass `now` in and the scheduler sleeps through the clock.
//!
//! Tests use [`ManualClock`]: time moves only when the test advances it, and
//! the scheduler wakes exactly then. (tokio's paused time is no substitute
//! here: it jumps to the next timer whenever the runtime idles, including
//! while storage works on another thread, so timers would fire mid-query.)

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;
use wayfare_engine::Millis;

pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Millis;
    /// Completes once the clock reads `at` or later.
    fn sleep_until(&self, at: Millis) -> Sleep;
}

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Millis {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|elapsed| elapsed.as_millis() as Millis).unwrap_or_default()
    }

    fn sleep_until(&self, at: Millis) -> Sleep {
        let delay = Duration::from_millis((at - self.now()).max(0) as u64);
        Box::pin(tokio::time::sleep(delay))
    }
}

/// A virtual clock for tests and simulations: it stands still until
/// [`ManualClock::advance`] or [`ManualClock::set`] moves it.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<watch::Sender<Millis>>,
}

impl ManualClock {
    pub fn starting_at(now: Millis) -> Self {
        ManualClock { now: Arc::new(watch::Sender::new(now)) }
    }

    pub fn advance(&self, by: Duration) {
        self.now.send_modify(|now| *now += by.as_millis() as Millis);
    }

    /// Moves the clock to `at`; never backwards.
    pub fn set(&self, at: Millis) {
        self.now.send_modify(|now| *now = (*now).max(at));
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Millis {
        *self.now.borrow()
    }

    fn sleep_until(&self, at: Millis) -> Sleep {
        let mut receiver = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as the clock; a dropped clock ends the wait.
            let _ = receiver.wait_for(|now| *now >= at).await;
        })
    }
}
