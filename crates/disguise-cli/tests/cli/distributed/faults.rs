//! Faults of a distributed run, each made on purpose: a stranger that trickles its bytes into
//! the set-up, a stranger of another version, a connection reset at the end of a run or in
//! its middle, a frame altered in transit, a port held by another program, a process killed.
//! Each ends with the one line that names the process and the cause — or, when nothing was
//! lost, with the result.
//!
//! A relay between processes 0 and 1 makes the faults of the wire: each process reads its
//! host list from standard input (`--hosts /dev/stdin`), so process 1 can be told that
//! process 0 listens at the relay. The processes are waited for by what they do, never by
//! a guessed sleep: a killed process is killed once its network threads run.

use super::{binary, generate, generate_with, hosts, select_args, start, wait_until_connected};
use crate::common::{dir_with, disguise, words};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a test waits for what takes a second on an idle machine.
const PATIENCE: Duration = Duration::from_secs(120);

/// Process `i` of a run whose host list comes on standard input (`--hosts /dev/stdin`), so
/// that each process may be given its own list. (The request compares a host file that is
/// not a regular file by its name, the same for every process.)
fn start_listing(dir: &Path, args: &[&str], listing: &str, i: usize) -> Child {
    let timeout: &[&str] = if args.contains(&"--timeout") {
        &[]
    } else {
        &["--timeout", "30"]
    };
    let mut child = Command::new(binary())
        .current_dir(dir)
        .args(args)
        .args(["--hosts", "/dev/stdin", "--process", &i.to_string()])
        .args(["--workers", "1"])
        .args(timeout)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start disguise");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(listing.as_bytes()).expect("host list");
    drop(stdin);
    child
}

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

/// What the relay does to the link between processes 1 and 0.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fault {
    /// Resets both connections as soon as either process ends its stream: the run's end.
    ResetAtEnd,
    /// Resets both connections at the first byte after the two hellos: mid-run.
    ResetMidRun,
    /// Flips a bit of the `n`th frame process 1 sends (frames of a keyed link: 2 bytes of
    /// length, then the message).
    Flip(usize),
}

/// A relay that process 1 connects to as to process 0, forwarding to process 0 at `to` and
/// making `fault`: its address, and its thread, which says what it did.
fn relay(to: String, fault: Fault) -> (SocketAddr, JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("relay");
    let address = listener.local_addr().expect("address");
    let thread = std::thread::spawn(move || {
        listener.set_nonblocking(true).expect("nonblocking");
        let deadline = Instant::now() + PATIENCE;
        let one = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(e) => return format!("process 1 never came: {e}"),
            }
        };
        one.set_nonblocking(false).expect("blocking");
        let zero = connect_when_listening(&to);
        pump([one, zero], fault)
    });
    (address, thread)
}

/// Ends both connections with a reset (SO_LINGER 0, then close).
fn reset(streams: [TcpStream; 2]) {
    for s in &streams {
        rustix::net::sockopt::set_socket_linger(s, Some(Duration::ZERO)).expect("linger");
    }
}

/// Forwards between process 1 (`streams[0]`) and process 0 (`streams[1]`) on one thread,
/// making `fault`.
fn pump(streams: [TcpStream; 2], fault: Fault) -> String {
    for s in &streams {
        s.set_read_timeout(Some(Duration::from_millis(2)))
            .expect("timeout");
        s.set_nodelay(true).expect("nodelay");
    }
    let mut open = [true, true];
    // Bytes passed from each side, and the first 8 (a keyless hello's length).
    let mut passed = [0u64; 2];
    let mut head: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    // Frames from process 1 not yet complete, and how many passed.
    let mut pending: Vec<u8> = Vec::new();
    let mut frames = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    let started = Instant::now();
    while open[0] || open[1] {
        if started.elapsed() > PATIENCE {
            return "the run did not end".into();
        }
        for from in 0..2 {
            if !open[from] {
                continue;
            }
            let to = 1 - from;
            let n = match (&streams[from]).read(&mut buf) {
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(_) => 0,
            };
            if n == 0 {
                if fault == Fault::ResetAtEnd {
                    reset(streams);
                    return format!("reset when process {} ended its stream", to);
                }
                open[from] = false;
                let _ = streams[to].shutdown(Shutdown::Write);
                continue;
            }
            let mut data = buf[..n].to_vec();
            match fault {
                Fault::ResetMidRun => {
                    let before = passed[from];
                    passed[from] += n as u64;
                    let take = (8 - head[from].len()).min(n);
                    head[from].extend_from_slice(&data[..take]);
                    let end = |side: usize| {
                        (head[side].len() == 8).then(|| {
                            8 + u64::from_le_bytes(head[side][..].try_into().expect("8 bytes"))
                        })
                    };
                    let done = |side: usize| end(side).is_some_and(|e| passed[side] >= e);
                    if let Some(mine) = end(from)
                        && passed[from] > mine
                        && done(to)
                    {
                        let keep = mine.saturating_sub(before) as usize;
                        let _ = (&streams[to]).write_all(&data[..keep]);
                        reset(streams);
                        return "reset mid-run".into();
                    }
                }
                Fault::Flip(k) if from == 0 => {
                    pending.extend_from_slice(&data);
                    data.clear();
                    while pending.len() >= 2 {
                        let len = u16::from_be_bytes([pending[0], pending[1]]) as usize;
                        if pending.len() < 2 + len {
                            break;
                        }
                        let mut frame: Vec<u8> = pending.drain(..2 + len).collect();
                        frames += 1;
                        if frames == k {
                            frame[2 + len / 2] ^= 1;
                        }
                        data.extend_from_slice(&frame);
                    }
                }
                _ => {}
            }
            if (&streams[to]).write_all(&data).is_err() {
                open[to] = false;
            }
        }
    }
    "no fault".into()
}

/// Processes 0 and 1 of `args` through a relay making `fault`: their outputs, and what the
/// relay did.
fn relayed(dir: &Path, args: &[&str], fault: Fault) -> (Output, Output, String) {
    let host_file = hosts(dir, 2);
    let text = std::fs::read_to_string(&host_file).expect("host file");
    let lines: Vec<&str> = text.lines().collect();
    let (through, relay) = relay(lines[0].to_string(), fault);
    let zero = start_listing(dir, args, &text, 0);
    let one = start_listing(dir, args, &format!("{through}\n{}\n", lines[1]), 1);
    let one = one.wait_with_output().expect("process 1");
    let zero = zero.wait_with_output().expect("process 0");
    (zero, one, relay.join().expect("relay"))
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
    let address = first_host(&host_file);
    let args = select_args("csv/points", "");
    let lead = start(&dir, &args, &host_file, 0, 1);
    let hello = br#"{"magic":"disguise cluster 2","version":"0.0.0-stranger","process":1,"processes":2,"workers":1,"agreement":{"request":[],"inputs":[]}}"#;
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
    let peer = start(&dir, &args, &host_file, 1, 1)
        .wait_with_output()
        .expect("process 1");
    let lead = lead.wait_with_output().expect("process 0");
    let stderr = String::from_utf8_lossy(&lead.stderr);
    assert!(lead.status.success(), "{stderr}");
    assert!(
        peer.status.success(),
        "{}",
        String::from_utf8_lossy(&peer.stderr)
    );
    assert_eq!(lead.stdout, expected.stdout);
    assert!(
        stderr.contains("warning: dropped a connection from") && stderr.contains("0.0.0-stranger"),
        "{stderr}"
    );
}

/// A connection reset as the run ends, after every result was received: process 0 prints its
/// result and both processes succeed. Reset mid-run: both fail with exit code 2 and one line
/// naming the other process — never an internal error.
#[test]
fn a_reset_connection_names_the_peer_or_loses_nothing() {
    let dir = dir_with("reset", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    let expected = disguise(&dir)
        .args(select_args("csv/points", ""))
        .output()
        .expect("one process");
    let args = select_args("csv/points", "");
    for _ in 0..3 {
        let (zero, one, relay) = relayed(&dir, &args, Fault::ResetAtEnd);
        let stderr = String::from_utf8_lossy(&zero.stderr);
        assert!(relay.starts_with("reset when"), "{relay}");
        assert!(zero.status.success(), "process 0 ({relay}): {stderr}");
        assert_eq!(zero.stdout, expected.stdout, "{relay}");
        assert!(
            one.status.success(),
            "process 1 ({relay}): {}",
            String::from_utf8_lossy(&one.stderr)
        );
    }
    let (zero, one, relay) = relayed(&dir, &args, Fault::ResetMidRun);
    assert_eq!(relay, "reset mid-run");
    fails_naming(&zero, &["process 1", "reset its connection"], "process 0");
    fails_naming(&one, &["process 0", "reset its connection"], "process 1");
}

/// A bit flipped in a frame of a keyed link fails the run, and the receiving process says
/// that a frame failed authentication — not that its peer closed its connection.
#[test]
fn an_altered_frame_is_named_as_such() {
    let dir = dir_with("altered", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    disguise(&dir)
        .args(words("cluster key --out k.key"))
        .assert()
        .success();
    let args = select_args("csv/points", "--cluster-key k.key");
    // Process 1's frames: the key exchange, the hello's length, the hello; then the run's.
    let (zero, one, _) = relayed(&dir, &args, Fault::Flip(4));
    fails_naming(
        &zero,
        &["a frame from process 1 failed authentication", "altered"],
        "process 0",
    );
    fails_naming(&one, &["process 0"], "process 1");
}

/// Process 0's port held by another program (which never answers): process 0 cannot listen
/// there and says so; process 1 cannot reach process 0 there and says so after the timeout —
/// neither blames the key.
#[test]
fn a_port_held_by_another_program_is_named() {
    let dir = dir_with("taken", &[]);
    generate(&dir, "csv", 100, 1, "csv");
    disguise(&dir)
        .args(words("cluster key --out k.key"))
        .assert()
        .success();
    for extra in ["--timeout 2", "--timeout 2 --cluster-key k.key"] {
        let host_file = hosts(&dir, 2);
        let address = first_host(&host_file);
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
        wait_until_connected(&mut children[victim]);
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
