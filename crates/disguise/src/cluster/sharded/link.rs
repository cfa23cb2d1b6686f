//! The link between worker 0's algorithm, which runs on the caller's thread, and worker 0's
//! timely thread, which relays its commands to every worker: [`Link`] is the caller's end,
//! [`Desk`] the timely thread's.

use super::protocol::Msg;
use crate::error::{Error, Result};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{Receiver, Sender};

/// Worker 0's algorithm thread talking to its timely thread. After a failure every call
/// answers at once (with nothing): the run then finishes quickly and its result is dropped.
#[derive(Debug)]
pub(crate) struct Link {
    pub(super) channel: Mutex<(Sender<Msg>, Receiver<Result<Msg>>)>,
    pub(super) failure: Mutex<Option<Error>>,
    pub(super) next_id: AtomicU64,
}

impl Link {
    /// Sends `msg` to every worker and waits for the combined answer; `None` once the run
    /// has failed (the failure is kept for the driver to report).
    pub(crate) fn call(&self, msg: Msg) -> Option<Msg> {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if failure.is_some() {
            return None;
        }
        let channel = self.channel.lock().unwrap_or_else(|e| e.into_inner());
        let answer = match channel.0.send(msg) {
            Ok(()) => channel
                .1
                .recv()
                .unwrap_or_else(|_| Err(Error::Cluster("the communication thread stopped".into()))),
            Err(_) => Err(Error::Cluster("the communication thread stopped".into())),
        };
        match answer {
            Ok(m) => Some(m),
            Err(e) => {
                *failure = Some(e);
                None
            }
        }
    }

    /// Marks the run as failed with `e`, unless it already failed.
    pub(crate) fn fail(&self, e: Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert(e);
    }

    /// Sends `msg` and returns the summed value it answers (0 once the run has failed).
    pub(super) fn total(&self, msg: Msg) -> i128 {
        match self.call(msg) {
            Some(Msg::Total(t)) => t as i128,
            Some(other) => {
                self.fail(Error::Cluster(format!("unexpected answer {other:?}")));
                0
            }
            None => 0,
        }
    }
}

/// Worker 0's end of the link to the caller's thread: commands in, summed answers out.
pub(super) type Desk = (Receiver<Msg>, Sender<Result<Msg>>);
