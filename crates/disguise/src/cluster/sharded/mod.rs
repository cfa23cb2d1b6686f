//! The objective of a distributed run: a [`SetFunction`](crate::objective::SetFunction) on
//! worker 0 whose every question is answered by all workers together, over timely dataflow.
//!
//! One concept a file, from the wire up:
//!
//! * `protocol` — the messages ([`Msg`]) and how worker 0 adds the workers' answers up,
//!   exactly;
//! * `comm` — the timely dataflow that carries them between workers, and [`Comm`], a
//!   worker's collective exchanges;
//! * `link` — worker 0's algorithm thread talking to its timely thread ([`Link`]);
//! * `objective` — [`Sharded`], the objective worker 0's algorithm sees, and the server
//!   that answers its questions on every worker from the worker's [`Summable`] shard;
//! * `worker` — one worker's loop: build its [`Serve`] part, then answer commands;
//! * `driver` — [`Cluster::maximize`](super::Cluster::maximize),
//!   [`Cluster::sum_counts`](super::Cluster::sum_counts) and the crate's `Cluster::serve`:
//!   connecting, starting the workers, running the algorithm and joining.

mod comm;
mod driver;
mod link;
mod objective;
mod protocol;
mod worker;

pub use comm::Comm;
pub use driver::SynthInput;
pub(crate) use link::Link;
pub use objective::{Aggregate, Sharded, ShardedState, Summable};
pub(crate) use protocol::{Msg, Refinement};
pub(crate) use worker::Serve;
