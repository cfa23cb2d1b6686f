//! What the tests of distributed runs share — the library's (`mod support`) and the command
//! line's (`tests/common`, which includes this file with `#[path]`): ports reserved for the
//! processes of a run, and waits bounded by a patience that only a hang exhausts.
//!
//! A process of a run listens on its line of the host list, so the port must be free when it
//! starts, and nobody else may take it in the meantime. A port is reserved here by a lock
//! file (`flock`, released when the file is closed, so also when a test process dies) that
//! every test of this project takes before it may use that port — in this test binary, in
//! another, or in another copy of the suite running at the same time — and the port is
//! checked free once it is locked. The ports are taken below the system's ephemeral range, so
//! the system never hands one out on its own (for `:0` or as the source port of a
//! connection), and below 20 000, where none of this project's earlier test helpers walked.
// Each test binary uses only some of these helpers.
#![allow(dead_code)]

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a test waits for what takes a second or so on an idle machine: long enough that
/// only a hang exhausts it, however loaded the machine, and a bound on how long a test may
/// hang.
pub const PATIENCE: Duration = Duration::from_secs(300);

/// The ports reservations are taken from.
const FIRST: u16 = 10_000;
const END: u16 = 20_000;

/// Local ports reserved for one run, with the locks that hold them: the reservation lasts
/// until this value is dropped (after the run's processes have ended).
pub struct Ports {
    ports: Vec<u16>,
    _locks: Vec<File>,
}

impl Ports {
    /// `count` distinct free ports on 127.0.0.1, reserved until the value is dropped.
    pub fn reserve(count: usize) -> Ports {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let folder = std::env::temp_dir().join("disguise-test-ports");
        std::fs::create_dir_all(&folder).expect("the folder of port reservations");
        let end = END.min(ephemeral_start()).max(FIRST + 1_000);
        let span = u32::from(end - FIRST);
        // Each test process starts its walk elsewhere, so that concurrent ones seldom meet.
        let start = std::process::id().wrapping_mul(7919);
        let (mut ports, mut locks) = (Vec::new(), Vec::new());
        // Every port in use is held (locked, and bound while the others are sought), so no
        // two are the same.
        let mut held = Vec::new();
        for _ in 0..span {
            if ports.len() == count {
                break;
            }
            let step = NEXT.fetch_add(1, Ordering::Relaxed);
            let port = FIRST + (start.wrapping_add(step) % span) as u16;
            let Some(lock) = lock(folder.join(format!("{port}.lock"))) else {
                continue;
            };
            if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
                held.push(listener);
                ports.push(port);
                locks.push(lock);
            }
        }
        assert_eq!(ports.len(), count, "no {count} free ports below {end}");
        Ports {
            ports,
            _locks: locks,
        }
    }

    /// The reserved addresses, as lines of a host file (`127.0.0.1:port`).
    pub fn addresses(&self) -> Vec<String> {
        self.ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect()
    }
}

/// The lock of a port, if no other test holds it.
fn lock(path: PathBuf) -> Option<File> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    file.try_lock().ok().map(|()| file)
}

/// The first port of the system's ephemeral range (32 768 where it cannot be read).
fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// Connects to `address` once something listens there (within [`PATIENCE`]).
pub fn connect_when_listening(address: &str) -> TcpStream {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match TcpStream::connect(address) {
            Ok(s) => return s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("nothing listened at {address}: {e}"),
        }
    }
}

/// The header of the table the distributed releases are tested on: four predictors and the
/// binary target `sick`.
pub const TABLE_HEADER: &str = "age,colour,size,noise,sick\n";

/// Row `i` of that table (one line): `colour` is mostly blue when `sick`, so the target is
/// learnable.
pub fn table_row(i: usize) -> String {
    let colours = ["red", "green", "blue"];
    let sick = (i * 7919) % 13 < 5;
    let colour = if sick && !i.is_multiple_of(5) {
        2
    } else {
        i % 3
    };
    format!(
        "{},{},{},{},{}\n",
        (i * 37) % 100,
        colours[colour],
        ["s", "m", "l", "xl"][(i / 3) % 4],
        ["a", "b"][(i / 7) % 2],
        if sick { "yes" } else { "no" }
    )
}
