//! `wayfare simulate` (issue #16): dispatch simulations on the production
//! engine. This first part reads a scenario's inputs (`input`); the
//! discrete-event run, the behaviour models and the report follow
//! (docs/simulations.md).

pub mod input;
