//! Faults of a distributed run, each made on purpose: a stranger that trickles its bytes into
//! the set-up. The run goes on, and the stranger is dropped with a warning.

use super::{generate, hosts, select_args, start};
use crate::common::{dir_with, disguise, words};
use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a test waits for what takes a second on an idle machine.
const PATIENCE: Duration = Duration::from_secs(120);

/// Connects to `address` once something listens there.
fn connect_when_listening(address: &str) -> TcpStream {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match TcpStream::connect(address) {
            Ok(s) => return s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("nothing listened at {address}: {e}"),
        }
    }
}

/// The first line of a host file: process 0's address.
fn first_host(host_file: &Path) -> String {
    let text = std::fs::read_to_string(host_file).expect("host file");
    text.lines().next().expect("a line").to_string()
}

/// A stranger that connects to process 0, announces a frame and then sends one byte every
/// half second — in the clear or on a keyed port — holds up neither the set-up nor the run:
/// the run gives the keyless result, and the stranger is dropped with a warning.
#[test]
fn a_slow_stranger_does_not_hold_up_the_set_up() {
    let dir = dir_with("trickle", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    disguise(&dir)
        .args(words("cluster key --out k.key"))
        .assert()
        .success();
    let expected = disguise(&dir)
        .args(select_args("csv/points", ""))
        .output()
        .expect("one process");
    assert!(expected.status.success());
    for keyed in [false, true] {
        let host_file = hosts(&dir, 2);
        let address = first_host(&host_file);
        let extra = if keyed { "--cluster-key k.key" } else { "" };
        let args = select_args("csv/points", extra);
        let lead = start(&dir, &args, &host_file, 0, 1);
        // The stranger: a length (8 bytes in the clear, 2 on a keyed port), then a trickle.
        let mut stranger = connect_when_listening(&address);
        let length: &[u8] = if keyed {
            &[0x03, 0xe8]
        } else {
            &[0xe8, 3, 0, 0, 0, 0, 0, 0]
        };
        stranger.write_all(length).expect("length");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = std::sync::Arc::clone(&stop);
        let trickle = std::thread::spawn(move || {
            while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
                if stranger.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        });
        let peer = start(&dir, &args, &host_file, 1, 1)
            .wait_with_output()
            .expect("process 1");
        let lead = lead.wait_with_output().expect("process 0");
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        trickle.join().expect("stranger");
        let what = if keyed { "keyed" } else { "in the clear" };
        let stderr = String::from_utf8_lossy(&lead.stderr);
        assert!(
            peer.status.success(),
            "{what}: process 1: {}",
            String::from_utf8_lossy(&peer.stderr)
        );
        assert!(lead.status.success(), "{what}: process 0: {stderr}");
        assert_eq!(lead.stdout, expected.stdout, "{what}");
        assert!(
            stderr.contains("warning: dropped a connection from"),
            "{what}: {stderr}"
        );
    }
}
