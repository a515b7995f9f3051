//! `wayfare import …`: bringing an operator's data from elsewhere. The rules
//! of each source live in the engine (`wayfare_engine::exicube` for the
//! original product); this module reads the files, hands them to the
//! engine, copies the uploaded files and writes through storage's
//! [`Import`](wayfare_storage::Import) part, with a progress bar and a
//! summary.

mod copy_files;
pub mod exicube;
mod gateways;
pub mod progress;
mod summary;
