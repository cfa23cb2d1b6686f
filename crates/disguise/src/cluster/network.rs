//! The connections between processes, made here rather than by timely (whose own set-up
//! retries forever and reports on standard output, where process 0 writes its result): each
//! process connects to the lower-numbered ones and accepts the higher-numbered ones, with a
//! deadline, and a handshake checks that both sides run the same cluster.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// "disguise cluster", protocol 1: a peer of another program or version is refused.
const MAGIC: [u8; 8] = *b"dsgclu01";

/// How long to sleep between attempts to connect or accept.
const POLL: Duration = Duration::from_millis(20);

/// The handshake: magic, the sender's process index, the process count and the workers per
/// process (both sides must agree on the last two).
fn hello(process: usize, processes: usize, workers: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[..8].copy_from_slice(&MAGIC);
    out[8..16].copy_from_slice(&(process as u64).to_le_bytes());
    out[16..24].copy_from_slice(&(processes as u64).to_le_bytes());
    out[24..].copy_from_slice(&(workers as u64).to_le_bytes());
    out
}

/// Sockets to every other process, in process order, `None` at `me`.
pub(super) fn connect(
    hosts: &[String],
    me: usize,
    workers: usize,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>> {
    let deadline = Instant::now() + timeout;
    let processes = hosts.len();
    // Listen first, so that the higher-numbered processes find us as soon as possible.
    let listener = if me + 1 < processes {
        let l = TcpListener::bind(&hosts[me]).map_err(|e| {
            Error::Cluster(format!(
                "process {me} cannot listen on {} (its line of the host file): {e}",
                hosts[me]
            ))
        })?;
        l.set_nonblocking(true)
            .map_err(|e| Error::Cluster(format!("cannot poll {}: {e}", hosts[me])))?;
        Some(l)
    } else {
        None
    };
    let mut sockets: Vec<Option<TcpStream>> = (0..processes).map(|_| None).collect();
    for (peer, address) in hosts.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(address) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(Error::Cluster(format!(
                        "process {peer} at {address} could not be reached within {} s: {e}",
                        timeout.as_secs_f64()
                    )));
                }
                Err(_) => std::thread::sleep(POLL),
            }
        };
        let wire = |e: std::io::Error| {
            Error::Cluster(format!("handshake with process {peer} at {address}: {e}"))
        };
        stream.set_nodelay(true).map_err(wire)?;
        stream
            .write_all(&hello(me, processes, workers))
            .map_err(wire)?;
        sockets[peer] = Some(stream);
    }
    if let Some(listener) = listener {
        let mut missing = processes - me - 1;
        while missing > 0 {
            match listener.accept() {
                Ok((mut stream, from)) => {
                    let wire = |e: std::io::Error| {
                        Error::Cluster(format!("handshake with a peer at {from}: {e}"))
                    };
                    stream.set_nonblocking(false).map_err(wire)?;
                    stream.set_nodelay(true).map_err(wire)?;
                    let left = deadline.saturating_duration_since(Instant::now());
                    stream
                        .set_read_timeout(Some(left.max(Duration::from_millis(100))))
                        .map_err(wire)?;
                    let mut got = [0u8; 32];
                    stream.read_exact(&mut got).map_err(wire)?;
                    stream.set_read_timeout(None).map_err(wire)?;
                    let peer = check_hello(&got, me, processes, workers, &from.to_string())?;
                    if sockets[peer].is_some() {
                        return Err(Error::Cluster(format!(
                            "two peers claim to be process {peer} (the second from {from})"
                        )));
                    }
                    sockets[peer] = Some(stream);
                    missing -= 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        let absent: Vec<String> = (me + 1..processes)
                            .filter(|&p| sockets[p].is_none())
                            .map(|p| format!("{p} ({})", hosts[p]))
                            .collect();
                        return Err(Error::Cluster(format!(
                            "process {} did not connect within {} s",
                            absent.join(", "),
                            timeout.as_secs_f64()
                        )));
                    }
                    std::thread::sleep(POLL);
                }
                Err(e) => {
                    return Err(Error::Cluster(format!(
                        "accepting peers on {}: {e}",
                        hosts[me]
                    )));
                }
            }
        }
    }
    Ok(sockets)
}

/// The sender's process index, after checking that it runs the same cluster as we do.
fn check_hello(
    got: &[u8; 32],
    me: usize,
    processes: usize,
    workers: usize,
    from: &str,
) -> Result<usize> {
    let word = |i: usize| u64::from_le_bytes(got[i..i + 8].try_into().expect("8 bytes"));
    if got[..8] != MAGIC {
        return Err(Error::Cluster(format!(
            "a connection from {from} is not a disguise process of this version"
        )));
    }
    let (peer, their_processes, their_workers) = (word(8), word(16), word(24));
    if their_processes != processes as u64 || their_workers != workers as u64 {
        return Err(Error::Cluster(format!(
            "the peer at {from} runs {their_processes} processes × {their_workers} workers, \
             this one {processes} × {workers}: give every process the same host file and \
             --workers"
        )));
    }
    if peer <= me as u64 || peer >= processes as u64 {
        return Err(Error::Cluster(format!(
            "the peer at {from} says it is process {peer}, which should not connect to \
             process {me}: is --process the line of each host?"
        )));
    }
    Ok(peer as usize)
}
