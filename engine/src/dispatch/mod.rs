//! Auto-dispatch as data and pure functions: who is an eligible driver
//! (spec §5), the spatial index of online drivers, and the planners that pick
//! whom to offer a NEW booking next under the broadcast or waves policy
//! (DESIGN.md "Server behaviours the spec leaves open").
//!
//! It does not send offers, keep time or remember anything between calls: the
//! booking actor owns the booking and its timers, the spatial-index actor owns
//! the [`DriverIndex`], and both call in here with `now` as a parameter. Nothing
//! here checks who may assign a driver by hand; that is the permissions' job.

mod eligibility;
#[cfg(test)]
pub(crate) mod fixtures;
mod index;
mod log;
mod matching;
mod policy;
mod window;

pub use eligibility::{is_eligible, is_eligible_for};
pub use index::{Candidate, DriverIndex, IndexedDriver};
pub use log::{DispatchEntry, DispatchLog, round_km};
pub use matching::{CostMatrix, Matching, min_cost_matching, min_cost_matching_pairs};
pub use policy::{
    BATCH_CANDIDATES_PER_BOOKING, BROADCAST_MAX_DRIVERS, BatchOffer, BatchProblem, DispatchPlan,
    MANUAL_ASSIGN_RADIUS_FACTOR, batch_problem, candidates_for, manual_candidates, more_offers_to_come, plan,
    plan_batch, wave_radius_km,
};
pub use window::{
    Asked, Closed, DispatchWindow, Matched, PickupTimes, STRAIGHT_LINE_KMH, Wake, straight_line_secs,
    straight_line_times,
};
