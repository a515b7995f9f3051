//! The realtime dispatch runtime of Wayfare, on ractor.
//!
//! One `BookingActor` per active booking and one `DriverActor` per online
//! driver, each a thin shell around the engine; a `SpatialIndexActor` owning
//! the engine's driver index, planning dispatch waves and running the `batch`
//! policy's windows; a `SchedulerActor` for Book Later, retries, auto-cancel
//! and offer deadlines; a `Supervisor` that restarts failed actors from
//! storage. Every booking change goes engine → one storage transaction →
//! events → reply. [`Runtime`] starts it all from a `Storage` and is the only
//! door in. This crate holds no rule of its own and knows nothing of HTTP or
//! sockets: the edge subscribes to its events.
//!
//! The actors talk in the messages of `protocol` and import it, never each
//! other; each is handed the peers it talks to when it starts (the
//! supervisor gets the index and the scheduler, and passes them on). Cluster
//! mode lives in `cluster/`, behind the one optional `Shared::cluster`.

mod batch;
mod booking;
mod clock;
mod cluster;
mod dispatch_log;
mod driver;
mod error;
mod events;
mod index;
mod protocol;
mod runtime;
mod scheduler;
mod shared;
mod supervisor;

pub use batch::BatchRoads;
pub use clock::{Clock, ManualClock, Sleep, SystemClock};
pub use cluster::{BOOKING as BOOKING_LEASE, ClusterOptions, Forward};
pub use error::{ActorError, ActorResult};
pub use events::{DispatchEntry, DispatchLog, Event, EventBus};
pub use protocol::{
    BookingMsg, BookingReply, DriverFact, DriverPosition, DriverView, IndexCounts, LocationUpdate, SupervisorCounts,
};
pub use runtime::{Runtime, RuntimeCounts};
pub use shared::{Catalog, RuntimeOptions};
pub use wayfare_engine::console::DriverState;
