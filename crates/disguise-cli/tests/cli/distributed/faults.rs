//! Faults of a distributed run, each made on purpose: a stranger that trickles its bytes into
//! the set-up, a stranger of another version, a port held by another program, a process
//! killed or stopped mid-run. Each ends with the one line that names the process and the
//! cause — or, when nothing was lost, with the result. (The faults of the wire itself — a
//! connection reset, a frame altered — are made by a relay between two processes of the
//! library's tests, `disguise/tests/api/cluster_faults.rs`: through the command line every
//! process reads the same host file, so none can be pointed at a relay.)
//!
//! The processes are waited for by what they do, never by a guessed sleep: a process is
//! killed or stopped once its network threads run.

use super::{
    cluster_key, connected, end, generate, generate_with, hosts, join_process_1,
    resume_and_see_it_exit, select_args, set_up_failed, set_up_too_slow, signal, start,
    wait_until_connected, with_a_short_timeout,
};
use crate::common::cluster::{PATIENCE, connect_when_listening};
use crate::common::{dir_with, disguise, words};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Output};
use std::time::Duration;

/// The error lines of a process's standard error.
fn errors(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(String::from)
        .collect()
}

/// Exit code 2 and one error line holding every one of `needles`, nothing on stdout, no
/// internal error.
fn fails_naming(out: &Output, needles: &[&str], what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    let errors = errors(out);
    assert_eq!(errors.len(), 1, "{what}: {stderr}");
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "{what}: no {needle:?} in {stderr}"
        );
    }
    assert!(!stderr.contains("internal error"), "{what}: {stderr}");
    assert!(out.stdout.is_empty(), "{what}: printed");
}

/// A stranger that connects to process 0, announces a frame and then sends one byte every
/// half second — in the clear or on a keyed port — holds up neither the set-up nor the run:
/// the run gives the keyless result, and the stranger is dropped with a warning.
#[test]
fn a_slow_stranger_does_not_hold_up_the_set_up() {
    let dir = dir_with("trickle", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    cluster_key(&dir, "k.key");
    let expected = disguise(&dir)
        .args(select_args("csv/points", ""))
        .output()
        .expect("one process");
    assert!(expected.status.success());
    for keyed in [false, true] {
        let host_file = hosts(&dir, 2);
        let address = host_file.first();
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
        let lead = join_process_1(&dir, &args, &host_file, lead);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        trickle.join().expect("stranger");
        let what = if keyed { "keyed" } else { "in the clear" };
        let stderr = String::from_utf8_lossy(&lead.stderr);
        assert_eq!(lead.stdout, expected.stdout, "{what}");
        assert!(
            stderr.contains("warning: dropped a connection from"),
            "{what}: {stderr}"
        );
    }
}

/// Without a key, a local stranger that sends a hello of this protocol but of another
/// version is dropped with a warning, as a stranger is on a keyed port: the run goes on.
#[test]
fn a_stranger_of_another_version_is_dropped_without_a_key() {
    let dir = dir_with("version", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    let expected = disguise(&dir)
        .args(select_args("csv/points", ""))
        .output()
        .expect("one process");
    let host_file = hosts(&dir, 2);
    let address = host_file.first();
    let args = select_args("csv/points", "");
    let lead = start(&dir, &args, &host_file, 0, 1);
    let hello = br#"{"magic":"disguise cluster 3","version":"0.0.0-stranger","process":1,"processes":2,"workers":1,"agreement":{"request":[],"inputs":[]}}"#;
    let mut stranger = connect_when_listening(&address);
    stranger
        .write_all(&(hello.len() as u64).to_le_bytes())
        .expect("length");
    stranger.write_all(hello).expect("hello");
    // Process 0 drops the stranger (and answers nothing): its end of the connection closes.
    stranger
        .set_read_timeout(Some(PATIENCE))
        .expect("read timeout");
    let mut answer = Vec::new();
    let _ = stranger.read_to_end(&mut answer);
    assert!(answer.is_empty(), "process 0 answered a stranger");
    let lead = join_process_1(&dir, &args, &host_file, lead);
    let stderr = String::from_utf8_lossy(&lead.stderr);
    assert_eq!(lead.stdout, expected.stdout);
    assert!(
        stderr.contains("warning: dropped a connection from") && stderr.contains("0.0.0-stranger"),
        "{stderr}"
    );
}

/// Process 0's port held by another program (which never answers): process 0 cannot listen
/// there and says so; process 1 cannot reach process 0 there and says so after the timeout —
/// neither blames the key.
#[test]
fn a_port_held_by_another_program_is_named() {
    let dir = dir_with("taken", &[]);
    generate(&dir, "csv", 100, 1, "csv");
    cluster_key(&dir, "k.key");
    for extra in ["--timeout 2", "--timeout 2 --cluster-key k.key"] {
        let host_file = hosts(&dir, 2);
        let address = host_file.first();
        let squatter = TcpListener::bind(&address).expect("the other program's port");
        let args = select_args("csv/points", extra);
        let zero = start(&dir, &args, &host_file, 0, 1);
        let one = start(&dir, &args, &host_file, 1, 1);
        let zero = zero.wait_with_output().expect("process 0");
        let one = one.wait_with_output().expect("process 1");
        drop(squatter);
        let listen = format!("process 0 could not listen on {address}");
        fails_naming(&zero, &[&listen, "address in use"], extra);
        let reach = format!("could not reach process 0 at {address}");
        fails_naming(&one, &[&reach], extra);
        assert!(
            !errors(&one)[0].contains("cluster-key"),
            "{extra}: {}",
            errors(&one)[0]
        );
    }
}

/// The arguments of a run long enough to be stopped or killed mid-run: a million points in
/// `parts` Parquet parts, 100 candidates, k = 40.
fn long_run(dir: &Path, parts: u64) -> Vec<String> {
    generate_with(dir, "big", 1_000_000, parts, "parquet", 100);
    words(
        "select --points big/points --candidates big/candidates.csv --x x --y y --k 40 \
         --epsilon 1 --format json",
    )
    .into_iter()
    .map(String::from)
    .collect()
}

/// A process killed mid-run (kill -9), of 2 or of 3: every other process fails with one line
/// naming it.
#[test]
fn a_killed_process_is_named_by_the_others() {
    let dir = dir_with("killed-named", &[]);
    let args = long_run(&dir, 6);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for (processes, victim) in [(2, 1), (3, 1), (3, 2)] {
        let host_file = hosts(&dir, processes);
        let mut children: Vec<Child> = (0..processes)
            .map(|i| start(&dir, &args, &host_file, i, 1))
            .collect();
        wait_until_connected(&mut children, victim);
        let mut killed = children.remove(victim);
        killed.kill().expect("kill");
        let _ = killed.wait();
        let name = format!("process {victim}");
        for (i, child) in children.into_iter().enumerate() {
            let i = if i >= victim { i + 1 } else { i };
            let out = child.wait_with_output().expect("survivor");
            let what = format!("{processes} processes, {victim} killed: process {i}");
            fails_naming(&out, &[&name], &what);
            let line = &errors(&out)[0];
            assert!(
                line.contains("closed its connection") || line.contains("reset its connection"),
                "{what}: {line}"
            );
        }
    }
}

/// A process stopped mid-run (SIGSTOP), of 3: each other process names it — process 0 after
/// its timeout, process 1 as well (from what process 0 said as it gave up, or after its own
/// timeout) — never an innocent process, never "another worker". Resumed, the stopped
/// process exits at once.
///
/// An innocent process is named only if it was slower than the timeout before the stop (each
/// process computes its share of a round before the round's exchange): the machine was too
/// slow for that timeout, and the run is made again with a longer one.
#[test]
fn a_stopped_process_is_named_by_every_other() {
    let dir = dir_with("stopped-named", &[]);
    let args = long_run(&dir, 6);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for victim in [2, 1] {
        with_a_short_timeout(|timeout| {
            let mut args = args.clone();
            args.extend(["--timeout", timeout]);
            let host_file = hosts(&dir, 3);
            let mut children: Vec<Child> = (0..3)
                .map(|i| start(&dir, &args, &host_file, i, 1))
                .collect();
            if !connected(&mut children, victim) {
                return set_up_failed(children);
            }
            let stopped = children.remove(victim);
            signal("-STOP", &stopped);
            let survivors: Vec<(usize, Output)> = (children.into_iter().enumerate())
                .map(|(i, child)| {
                    let i = if i >= victim { i + 1 } else { i };
                    (i, child.wait_with_output().expect("survivor"))
                })
                .collect();
            let said: String = (survivors.iter())
                .map(|(_, out)| String::from_utf8_lossy(&out.stderr).into_owned())
                .collect();
            let innocent = (0..3)
                .filter(|&p| p != victim)
                .any(|p| said.contains(&format!("heard nothing from process {p}")));
            if innocent || set_up_too_slow(&said) {
                end(vec![stopped]);
                return None;
            }
            let name = format!("heard nothing from process {victim}");
            for (i, out) in &survivors {
                let what = format!("process {victim} stopped: process {i}");
                fails_naming(out, &[&name], &what);
            }
            resume_and_see_it_exit(stopped);
            Some(())
        });
    }
}
