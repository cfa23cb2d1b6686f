//! The connections between processes, made here rather than by timely (whose own set-up
//! retries forever and reports on standard output, where process 0 writes its result): each
//! process connects to the lower-numbered ones and accepts the higher-numbered ones, all
//! within one deadline (`--timeout`). Every link is first secured with the cluster key
//! ([`super::secure`]), if there is one; then both sides exchange a hello (program version,
//! process index, process and worker counts, and the [`Agreement`]) and each checks the
//! other's.
//!
//! Each accepted connection runs its handshake on a thread of its own, under a deadline for
//! the whole handshake (at most `HANDSHAKE`, never past the set-up's): when it passes, the
//! connection is shut down, so a stranger that trickles its bytes cannot hold up the accept
//! loop or outlast the set-up. A connection that is not a member of this run — a port scan, a
//! stranger, a peer with another key or of another version — is dropped and reported, and the
//! set-up goes on; a member that disagrees stops the run on both sides with one line.
//!
//! Once the run is under way, each link notes in the run's [`Health`] the first peer whose
//! stream ended or failed, and how (closed, reset, altered in transit): the error a worker
//! reports names that process and that cause.

use super::agreement::Agreement;
use super::secure::{ClusterKey, SecureLink};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// "disguise cluster", protocol 3 (3: the `Through` message): a peer of another program or
/// protocol is refused.
const MAGIC: &str = "disguise cluster 3";

/// How every hello's body begins (serde writes the fields in order, `magic` first): a
/// connection that sends anything else is dropped after these few bytes.
const HELLO_START: &str = "{\"magic\":\"disguise cluster 3\"";

/// How long to sleep between attempts to connect, and between looks at the listener.
const POLL: Duration = Duration::from_millis(20);

/// The longest one accepted connection may take to complete its whole handshake (key
/// exchange and hello), however it spreads its bytes: then it is shut down and dropped.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The largest hello accepted (its listings hold a line per part). Read as it arrives, never
/// allocated ahead from the length a peer announces.
const MAX_HELLO: usize = 64 << 20;

/// The most handshakes under way at once; further connections wait in the listen backlog.
const MAX_IN_FLIGHT: usize = 64;

/// Where a message to report a dropped connection goes.
pub(super) type Warn<'a> = &'a (dyn Fn(&str) + Sync);

/// How a link ended, as its stream saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The peer closed its end (it ended, died or was killed).
    Closed,
    /// The connection was reset (the peer died or was killed with data unread, or the
    /// network cut it).
    Reset,
    /// A frame failed authentication: the link was altered in transit.
    Altered,
    /// Another failure of the connection.
    Failed(String),
}

impl Ending {
    /// How a link ended that failed with `e` (`secure`: a keyed link's).
    fn of(e: &std::io::Error, secure: bool) -> Ending {
        use std::io::ErrorKind::*;
        match e.kind() {
            UnexpectedEof | BrokenPipe => Ending::Closed,
            ConnectionReset | ConnectionAborted => Ending::Reset,
            InvalidData if secure => Ending::Altered,
            _ => Ending::Failed(e.to_string()),
        }
    }
}

/// How the links of a run are faring: which peers' streams ended or failed, in order, and
/// how; how many streams timely's network threads still hold, and the first link whose
/// thread failed. Shared by every link of a run.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// Whether a peer's stream has ended: read at every step of a waiting worker, so an atomic.
    ended: AtomicBool,
    /// Each peer whose stream ended or failed, with how, in the order they did.
    endings: Mutex<Vec<(usize, Ending)>>,
    /// Streams held by timely's network threads (one to send, one to receive per link).
    threads: AtomicUsize,
    /// The first peer whose network thread dropped its stream while panicking: its link failed
    /// (it ended without the end of its stream, or broke), and joining that thread would
    /// re-raise its panic.
    broken: Mutex<Option<usize>>,
    /// Whether `broken` is set (read at every step of a worker finishing its run).
    failed: AtomicBool,
}

impl Health {
    fn note(&self, peer: usize, how: Ending) {
        let mut endings = self.endings.lock().unwrap_or_else(|e| e.into_inner());
        if !endings.iter().any(|(p, _)| *p == peer) {
            endings.push((peer, how));
            self.ended.store(true, Ordering::SeqCst);
        }
    }

    fn break_link(&self, peer: usize) {
        let mut broken = self.broken.lock().unwrap_or_else(|e| e.into_inner());
        broken.get_or_insert(peer);
        self.failed.store(true, Ordering::SeqCst);
    }

    /// Whether a peer's stream has ended or failed (cleanly or not).
    pub(crate) fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// Whether one of timely's network threads failed (its link is broken).
    pub(crate) fn broken(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// The error naming the peer whose link failed first — else the first whose stream ended
    /// — and how; `None` while every link is up. (A process that fails because another did
    /// ends its own streams cleanly, after the other's broke.)
    pub(crate) fn failure(&self) -> Option<Error> {
        let endings = self
            .endings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let broken = *self.broken.lock().unwrap_or_else(|e| e.into_inner());
        let (peer, how) = match broken {
            Some(b) => endings
                .into_iter()
                .find(|(p, _)| *p == b)
                .unwrap_or((b, Ending::Closed)),
            None => endings.into_iter().next()?,
        };
        let what = match how {
            Ending::Closed => {
                format!("process {peer} closed its connection (it ended, died or was killed)")
            }
            Ending::Reset => format!(
                "process {peer} reset its connection (it died or was killed, or the network cut \
                 the link)"
            ),
            Ending::Altered => format!(
                "a frame from process {peer} failed authentication: the link was altered in \
                 transit"
            ),
            Ending::Failed(e) => format!("the link with process {peer} failed: {e}"),
        };
        Some(Error::Cluster(format!("{what}; nothing was released")))
    }

    /// Waits until timely's network threads have all let go of their streams (they ended),
    /// or `until`: whether they all did.
    pub(crate) fn wait_threads(&self, until: Instant) -> bool {
        while self.threads.load(Ordering::SeqCst) > 0 {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }
}

/// A link to another process: in the clear (loopback only) or encrypted with the key.
pub(crate) struct PeerStream {
    kind: Kind,
    /// The peer's process index, for [`Health`] to name when this stream ends.
    peer: usize,
    health: Arc<Health>,
    /// Whether one of timely's network threads holds this stream (a clone): counted in
    /// [`Health`] while it lives.
    thread: bool,
}

enum Kind {
    Plain(TcpStream),
    Secure(SecureLink),
}

impl PeerStream {
    fn new(kind: Kind, peer: usize) -> Self {
        PeerStream {
            kind,
            peer,
            health: Arc::default(),
            thread: false,
        }
    }

    fn tcp(&self) -> &TcpStream {
        match &self.kind {
            Kind::Plain(t) => t,
            Kind::Secure(s) => s.tcp(),
        }
    }

    fn secure(&self) -> bool {
        matches!(self.kind, Kind::Secure(_))
    }
}

impl Read for PeerStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let got = match &mut self.kind {
            Kind::Plain(t) => t.read(buf),
            Kind::Secure(s) => s.read(buf),
        };
        match &got {
            Ok(0) if !buf.is_empty() => self.health.note(self.peer, Ending::Closed),
            Err(e) => self.health.note(self.peer, Ending::of(e, self.secure())),
            _ => {}
        }
        got
    }
}

impl Write for PeerStream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let put = match &mut self.kind {
            Kind::Plain(t) => t.write(buf),
            Kind::Secure(s) => s.write(buf),
        };
        // A reset is reported once, to whichever of the link's threads meets it first.
        if let Err(e) = &put {
            self.health.note(self.peer, Ending::of(e, self.secure()));
        }
        put
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.kind {
            Kind::Plain(t) => t.flush(),
            Kind::Secure(s) => s.flush(),
        }
    }
}

impl Drop for PeerStream {
    fn drop(&mut self) {
        if self.thread {
            if std::thread::panicking() {
                self.health.break_link(self.peer);
            }
            self.health.threads.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl timely::communication::allocator::zero_copy::stream::Stream for PeerStream {
    fn try_clone(&self) -> std::io::Result<Self> {
        let kind = match &self.kind {
            Kind::Plain(t) => Kind::Plain(t.try_clone()?),
            Kind::Secure(s) => Kind::Secure(s.try_clone()?),
        };
        // Timely clones each link once for its sending thread and once for its receiving one.
        self.health.threads.fetch_add(1, Ordering::SeqCst);
        Ok(PeerStream {
            kind,
            peer: self.peer,
            health: Arc::clone(&self.health),
            thread: true,
        })
    }
    fn set_nonblocking(&self, nonblocking: bool) -> std::io::Result<()> {
        self.tcp().set_nonblocking(nonblocking)
    }
    fn shutdown(&self, how: Shutdown) -> std::io::Result<()> {
        self.tcp().shutdown(how)
    }
}

/// The connections of a set-up still in their handshake, each with its deadline: shut down
/// when it passes, and all of them when the set-up ends, so that no read of the set-up can
/// outlast its deadline however slowly the other side sends.
#[derive(Default)]
struct Watch {
    open: Mutex<Vec<Watching>>,
    next: AtomicU64,
    over: AtomicBool,
}

struct Watching {
    id: u64,
    deadline: Instant,
    tcp: TcpStream,
    expired: Arc<AtomicBool>,
}

/// One watched connection; dropping it stops the watch.
struct Watched<'w> {
    watch: &'w Watch,
    id: u64,
    expired: Arc<AtomicBool>,
}

impl Watch {
    fn watch(&self, tcp: &TcpStream, deadline: Instant) -> std::io::Result<Watched<'_>> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let expired = Arc::new(AtomicBool::new(false));
        let tcp = tcp.try_clone()?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if self.over.load(Ordering::SeqCst) {
            expired.store(true, Ordering::SeqCst);
            let _ = tcp.shutdown(Shutdown::Both);
        } else {
            open.push(Watching {
                id,
                deadline,
                tcp,
                expired: Arc::clone(&expired),
            });
        }
        Ok(Watched {
            watch: self,
            id,
            expired,
        })
    }

    /// Shuts down every connection past its deadline (every one, once the set-up is over).
    fn sweep(&self) {
        let now = Instant::now();
        let over = self.over.load(Ordering::SeqCst);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|w| {
            if over || now >= w.deadline {
                w.expired.store(true, Ordering::SeqCst);
                let _ = w.tcp.shutdown(Shutdown::Both);
                false
            } else {
                true
            }
        });
    }

    /// The set-up is over: the handshakes still under way are cut.
    fn end(&self) {
        self.over.store(true, Ordering::SeqCst);
        self.sweep();
    }
}

impl Watched<'_> {
    /// Whether the deadline passed (the connection was shut down).
    fn expired(&self) -> bool {
        self.expired.load(Ordering::SeqCst)
    }

    /// Stops watching a connection whose handshake is complete: whether it is intact (the
    /// deadline had not passed).
    fn keep(self) -> bool {
        let mut open = self.watch.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|w| w.id != self.id);
        !self.expired()
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        let mut open = self.watch.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|w| w.id != self.id);
    }
}

/// What each side says first.
#[derive(Debug, Serialize, Deserialize)]
struct Hello {
    magic: String,
    version: String,
    process: usize,
    processes: usize,
    workers: usize,
    agreement: Agreement,
}

/// The resolved addresses of every host, refused at once if a name does not resolve, or —
/// without a key — if a host is not this machine.
pub(super) fn resolve(hosts: &[String], keyed: bool) -> Result<Vec<Vec<SocketAddr>>> {
    let mut out = Vec::with_capacity(hosts.len());
    for (i, host) in hosts.iter().enumerate() {
        let addrs: Vec<SocketAddr> = host
            .to_socket_addrs()
            .map_err(|e| {
                Error::Cluster(format!(
                    "cannot resolve {host} (process {i}'s line of the host file): {e}"
                ))
            })?
            .collect();
        if addrs.is_empty() {
            return Err(Error::Cluster(format!(
                "cannot resolve {host} (process {i}'s line of the host file): no address"
            )));
        }
        if !keyed && !addrs.iter().all(|a| a.ip().is_loopback()) {
            return Err(Error::Cluster(format!(
                "{host} (process {i}) is not this machine, and links between machines need a \
                 key: make one with `disguise cluster key --out cluster.key`, copy it to every \
                 machine and pass --cluster-key cluster.key (or set DISGUISE_CLUSTER_KEY)"
            )));
        }
        out.push(addrs);
    }
    Ok(out)
}

/// The set-up of one process: who it is, what it agrees to, how it secures its links.
pub(super) struct Setup<'a> {
    pub hosts: &'a [String],
    pub me: usize,
    pub workers: usize,
    pub timeout: Duration,
    pub key: Option<&'a ClusterKey>,
    pub agreement: &'a Agreement,
    pub warn: Warn<'a>,
    /// The run's links' health, which every link notes its end in once the set-up is done.
    pub health: &'a Arc<Health>,
}

/// Why a connection did not become a link.
enum Refused {
    /// Not a member (a scan, a stranger, another key or version): dropped, reported, the
    /// set-up goes on.
    Drop(String),
    /// A member that disagrees, or a failure of this process: the run stops.
    Fatal(Error),
}

/// What the threads of a set-up report to it.
enum Event {
    /// The link to a lower-numbered process, or why there is none.
    Connected(usize, Result<PeerStream>),
    /// An accepted connection's handshake: a link to a higher-numbered process, or why not.
    Accepted(
        SocketAddr,
        std::result::Result<(usize, PeerStream), Refused>,
    ),
}

impl Setup<'_> {
    fn hello(&self) -> Hello {
        Hello {
            magic: MAGIC.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            process: self.me,
            processes: self.hosts.len(),
            workers: self.workers,
            agreement: self.agreement.clone(),
        }
    }

    /// Sockets to every other process, in process order, `None` at `me`: all within one
    /// deadline, `timeout` from now.
    pub(super) fn connect(&self) -> Result<Vec<Option<PeerStream>>> {
        let deadline = Instant::now() + self.timeout;
        let (hosts, me) = (self.hosts, self.me);
        let processes = hosts.len();
        let addresses = resolve(hosts, self.key.is_some())?;
        // Listen first, so that the higher-numbered processes find us as soon as possible.
        let listener = if me + 1 < processes {
            let l = TcpListener::bind(&addresses[me][..]).map_err(|e| {
                let why = if e.kind() == std::io::ErrorKind::AddrInUse {
                    "address in use (another program, or another run, holds that port)".into()
                } else {
                    e.to_string()
                };
                Error::Cluster(format!(
                    "process {me} could not listen on {} (its line of the host file): {why}",
                    hosts[me]
                ))
            })?;
            l.set_nonblocking(true)
                .map_err(|e| Error::Cluster(format!("cannot poll {}: {e}", hosts[me])))?;
            Some(l)
        } else {
            None
        };
        let watch = Watch::default();
        let mut links: Vec<Option<PeerStream>> = (0..processes).map(|_| None).collect();
        let (events, inbox) = mpsc::channel::<Event>();
        std::thread::scope(|scope| {
            // The lower-numbered processes, one after the other, on a thread of their own
            // while this one accepts the higher-numbered ones.
            if me > 0 {
                let (events, watch, addresses) = (events.clone(), &watch, &addresses);
                scope.spawn(move || {
                    for (peer, address) in addresses.iter().enumerate().take(me) {
                        let link = self.connect_to(peer, address, deadline, watch);
                        let failed = link.is_err();
                        if events.send(Event::Connected(peer, link)).is_err() || failed {
                            return;
                        }
                    }
                });
            }
            let outcome = self.gather(
                scope,
                listener.as_ref(),
                &events,
                &inbox,
                &watch,
                deadline,
                &mut links,
            );
            // Handshakes still under way (strangers) are cut, and their threads end.
            watch.end();
            outcome
        })?;
        // The strangers cut as the set-up ended.
        for event in inbox.try_iter() {
            if let Event::Accepted(from, Err(Refused::Drop(why))) = event {
                (self.warn)(&format!("dropped a connection from {from}: {why}"));
            }
        }
        for link in links.iter_mut().flatten() {
            link.health = Arc::clone(self.health);
            link.tcp()
                .set_read_timeout(None)
                .map_err(|e| Error::Cluster(format!("cannot configure a link: {e}")))?;
        }
        Ok(links)
    }

    /// Accepts connections (each handshake on a thread of its own) and gathers the links
    /// until every peer has one, a member stops the run, or the deadline passes.
    #[allow(clippy::too_many_arguments)]
    fn gather<'scope, 'env: 'scope>(
        &'env self,
        scope: &'scope std::thread::Scope<'scope, 'env>,
        listener: Option<&TcpListener>,
        events: &mpsc::Sender<Event>,
        inbox: &mpsc::Receiver<Event>,
        watch: &'env Watch,
        deadline: Instant,
        links: &mut [Option<PeerStream>],
    ) -> Result<()> {
        let (hosts, me) = (self.hosts, self.me);
        let mut missing = hosts.len() - 1;
        let mut in_flight = 0usize;
        while missing > 0 {
            let now = Instant::now();
            // The lower-numbered processes are the connecting thread's to report (it gives up
            // at the deadline, naming the cause): only a slack past it, should it not.
            let slack = if links[..me].iter().any(Option::is_none) {
                POLL * 100
            } else {
                Duration::ZERO
            };
            if now >= deadline + slack {
                let absent: Vec<String> = (0..hosts.len())
                    .filter(|&p| p != me && links[p].is_none())
                    .map(|p| format!("{p} ({})", hosts[p]))
                    .collect();
                return Err(Error::Cluster(format!(
                    "process {} did not connect within {} s",
                    absent.join(", "),
                    self.timeout.as_secs_f64()
                )));
            }
            while let Some(listener) = listener.filter(|_| in_flight < MAX_IN_FLIGHT) {
                match listener.accept() {
                    Ok((stream, from)) => {
                        in_flight += 1;
                        let events = events.clone();
                        let until = deadline.min(Instant::now() + HANDSHAKE);
                        scope.spawn(move || {
                            let _ = events
                                .send(Event::Accepted(from, self.accept(stream, until, watch)));
                        });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        return Err(Error::Cluster(format!(
                            "accepting peers on {}: {e}",
                            hosts[me]
                        )));
                    }
                }
            }
            watch.sweep();
            let event = match inbox.recv_timeout(POLL) {
                Ok(event) => event,
                Err(_) => continue,
            };
            match event {
                Event::Connected(peer, link) => {
                    links[peer] = Some(link?);
                    missing -= 1;
                }
                Event::Accepted(from, outcome) => {
                    in_flight -= 1;
                    match outcome {
                        Ok((peer, link)) => {
                            if links[peer].is_some() {
                                return Err(Error::Cluster(format!(
                                    "two members claim to be process {peer} (the second from \
                                     {from}): is --process the line of each host?"
                                )));
                            }
                            links[peer] = Some(link);
                            missing -= 1;
                        }
                        Err(Refused::Drop(why)) => {
                            (self.warn)(&format!("dropped a connection from {from}: {why}"));
                        }
                        Err(Refused::Fatal(e)) => return Err(e),
                    }
                }
            }
        }
        Ok(())
    }

    /// Connects to the lower-numbered `peer`, retrying until the deadline while nobody
    /// listens there, and runs the handshake, all before the deadline.
    fn connect_to(
        &self,
        peer: usize,
        address: &[SocketAddr],
        deadline: Instant,
        watch: &Watch,
    ) -> Result<PeerStream> {
        let host = &self.hosts[peer];
        let seconds = self.timeout.as_secs_f64();
        let unreachable = |why: String| {
            Error::Cluster(format!("could not reach process {peer} at {host}: {why}"))
        };
        let stream = 'connected: loop {
            let mut last = None;
            for a in address {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                // In short attempts, so that a set-up that ends early is not held up.
                match TcpStream::connect_timeout(a, left.min(Duration::from_secs(2))) {
                    Ok(s) => break 'connected s,
                    Err(e) => last = Some(e),
                }
            }
            if Instant::now() >= deadline || watch.over.load(Ordering::SeqCst) {
                let why = match last {
                    Some(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => format!(
                        "nothing listened there within {seconds} s (is process {peer} started, \
                         with this host file?)"
                    ),
                    Some(e) => format!("{e} (within {seconds} s)"),
                    None => format!("no connection within {seconds} s"),
                };
                return Err(unreachable(why));
            }
            std::thread::sleep(POLL);
        };
        let watched = watch
            .watch(&stream, deadline)
            .map_err(|e| unreachable(e.to_string()))?;
        let expired = Arc::clone(&watched.expired);
        // What went wrong in the handshake, as this side can tell.
        let failed = |stage: Stage, e: std::io::Error| -> Error {
            use std::io::ErrorKind::*;
            if expired.load(Ordering::SeqCst) {
                return unreachable(format!(
                    "nothing answered the handshake within {seconds} s (is another program \
                     listening on that port?)"
                ));
            }
            let closed = matches!(
                e.kind(),
                UnexpectedEof | ConnectionReset | ConnectionAborted | BrokenPipe
            );
            match (stage, self.key.is_some()) {
                (Stage::Key, _) if closed => Error::Cluster(format!(
                    "process {peer} at {host} refused the handshake (it closed the connection): \
                     does every process have the same --cluster-key?"
                )),
                (Stage::Key, _) if e.kind() == PermissionDenied => Error::Cluster(format!(
                    "the program at {host} (process {peer}'s line) is not a member of this \
                     cluster: does every process have the same --cluster-key?"
                )),
                (_, _) if e.kind() == InvalidData => unreachable(
                    "the program there is not a disguise process of this protocol (another \
                     program on that port?)"
                        .into(),
                ),
                (Stage::Hello, false) if closed => unreachable(format!(
                    "the program there closed the connection during the handshake (a disguise \
                     process of another version, or another program on that port? see \
                     process {peer}'s warnings)"
                )),
                (Stage::Hello, true) if closed => unreachable(format!(
                    "process {peer} closed the connection during the handshake (another version \
                     of disguise? see its warnings)"
                )),
                _ => unreachable(format!("the handshake failed: {e}")),
            }
        };
        stream
            .set_nodelay(true)
            .map_err(|e| failed(Stage::Key, e))?;
        let kind = match self.key {
            Some(key) => Kind::Secure(
                SecureLink::handshake(stream, key, true).map_err(|e| failed(Stage::Key, e))?,
            ),
            None => Kind::Plain(stream),
        };
        let mut link = PeerStream::new(kind, peer);
        send_hello(&mut link, &self.hello()).map_err(|e| failed(Stage::Hello, e))?;
        let theirs = read_hello(&mut link).map_err(|e| failed(Stage::Hello, e))?;
        if !watched.keep() {
            return Err(failed(Stage::Hello, std::io::ErrorKind::TimedOut.into()));
        }
        if theirs.process != peer {
            return Err(Error::Cluster(format!(
                "the process at {host} says it is process {}, not {peer}: is --process the \
                 line of each host?",
                theirs.process
            )));
        }
        self.check(&theirs)?;
        Ok(link)
    }

    /// Runs the handshake of an accepted connection, all before `deadline`.
    fn accept(
        &self,
        stream: TcpStream,
        deadline: Instant,
        watch: &Watch,
    ) -> std::result::Result<(usize, PeerStream), Refused> {
        let watched = watch
            .watch(&stream, deadline)
            .map_err(|e| Refused::Drop(e.to_string()))?;
        let drop = |e: std::io::Error| {
            Refused::Drop(cut(&watched, watch).unwrap_or_else(|| e.to_string()))
        };
        stream.set_nonblocking(false).map_err(drop)?;
        stream.set_nodelay(true).map_err(drop)?;
        let kind = match self.key {
            Some(key) => Kind::Secure(SecureLink::handshake(stream, key, false).map_err(drop)?),
            None => Kind::Plain(stream),
        };
        // The peer's index is known after its hello.
        let mut link = PeerStream::new(kind, usize::MAX - 1);
        let theirs = read_hello(&mut link).map_err(drop)?;
        if theirs.magic != MAGIC {
            return Err(Refused::Drop(
                "not a disguise process of this protocol".into(),
            ));
        }
        if theirs.version != env!("CARGO_PKG_VERSION") {
            // A member must run this very version; anyone else may say anything here.
            let version: String = theirs.version.chars().take(40).collect();
            return Err(Refused::Drop(format!(
                "it says it runs disguise {version:?}, this process {:?}: every process must run \
                 one version",
                env!("CARGO_PKG_VERSION")
            )));
        }
        // A member of this version: answer, so that it sees what we see, then check. A peer
        // gone before the answer was no member of this run.
        send_hello(&mut link, &self.hello()).map_err(drop)?;
        self.check(&theirs).map_err(Refused::Fatal)?;
        if theirs.process <= self.me || theirs.process >= self.hosts.len() {
            return Err(Refused::Fatal(Error::Cluster(format!(
                "a peer says it is process {}, which should not connect to process {}: is \
                 --process the line of each host?",
                theirs.process, self.me
            ))));
        }
        if let Some(why) = cut(&watched, watch) {
            return Err(Refused::Drop(why));
        }
        if !watched.keep() {
            return Err(Refused::Drop("its handshake was cut".into()));
        }
        link.peer = theirs.process;
        Ok((theirs.process, link))
    }

    /// Checks a member's hello against ours: the same program, cluster shape and agreement.
    fn check(&self, theirs: &Hello) -> Result<()> {
        let (me, peer) = (self.me, theirs.process);
        if theirs.magic != MAGIC || theirs.version != env!("CARGO_PKG_VERSION") {
            return Err(Error::Cluster(format!(
                "process {peer} runs disguise {} and process {me} disguise {}: run one version \
                 everywhere",
                theirs.version,
                env!("CARGO_PKG_VERSION")
            )));
        }
        if theirs.processes != self.hosts.len() || theirs.workers != self.workers {
            return Err(Error::Cluster(format!(
                "process {peer} runs {} processes × {} workers, process {me} {} × {}: give \
                 every process the same host file and --workers",
                theirs.processes,
                theirs.workers,
                self.hosts.len(),
                self.workers
            )));
        }
        match self.agreement.differs(me, &theirs.agreement, peer) {
            Some(line) => Err(Error::Cluster(line)),
            None => Ok(()),
        }
    }
}

/// Why an accepted connection's handshake was cut, if it was.
fn cut(watched: &Watched<'_>, watch: &Watch) -> Option<String> {
    watched.expired().then(|| {
        if watch.over.load(Ordering::SeqCst) {
            "its handshake was not complete when the set-up was".to_string()
        } else {
            format!(
                "its handshake was not complete in time (at most {} s per connection)",
                HANDSHAKE.as_secs()
            )
        }
    })
}

/// Where the connecting side's handshake failed: the key exchange or the hellos.
#[derive(Clone, Copy)]
enum Stage {
    Key,
    Hello,
}

fn send_hello(link: &mut PeerStream, hello: &Hello) -> std::io::Result<()> {
    let body = serde_json::to_vec(hello).map_err(std::io::Error::other)?;
    link.write_all(&(body.len() as u64).to_le_bytes())?;
    link.write_all(&body)?;
    link.flush()
}

/// Reads a hello: its length, then its body as it arrives, refusing at once a body that does
/// not begin as every hello does.
fn read_hello(link: &mut PeerStream) -> std::io::Result<Hello> {
    let foreign = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a disguise process of this protocol",
        )
    };
    let mut len = [0u8; 8];
    link.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_HELLO as u64 || len < HELLO_START.len() as u64 {
        return Err(foreign());
    }
    let mut body = vec![0u8; HELLO_START.len()];
    link.read_exact(&mut body)?;
    if body != HELLO_START.as_bytes() {
        return Err(foreign());
    }
    let rest = len - HELLO_START.len() as u64;
    let got = (&mut *link).take(rest).read_to_end(&mut body)?;
    if got as u64 != rest {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    serde_json::from_slice(&body).map_err(|_| foreign())
}
