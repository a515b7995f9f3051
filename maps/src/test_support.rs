//! Helpers for the tests of this crate.

use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs a future that must finish on its first poll. The straight-line
/// provider never waits on anything, so its tests need no runtime, and they
/// fail here if it ever starts to.
pub fn at_once<T>(future: impl Future<Output = T>) -> T {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future waited; the straight-line provider never should"),
    }
}
