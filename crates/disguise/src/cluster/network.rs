//! The connections between processes, made here rather than by timely (whose own set-up
//! retries forever and reports on standard output, where process 0 writes its result): each
//! process connects to the lower-numbered ones and accepts the higher-numbered ones, with a
//! deadline. Every link is first secured with the cluster key ([`super::secure`]), if there is
//! one; then both sides exchange a hello (program version, process index, process and worker
//! counts, and the [`Agreement`]) and each checks the other's. A connection that fails the
//! handshake (a port scan, a stranger, a peer with another key) is dropped and reported, and
//! the set-up goes on; a member that disagrees stops the run on both sides with one line.

use super::agreement::Agreement;
use super::secure::{ClusterKey, SecureLink};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// "disguise cluster", protocol 2: a peer of another program or protocol is refused.
const MAGIC: &str = "disguise cluster 2";

/// How long to sleep between attempts to connect or accept.
const POLL: Duration = Duration::from_millis(20);

/// The longest a connection may take to complete its handshake before it is dropped, so that
/// a silent stranger cannot hold up the set-up.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The largest hello accepted (its listings hold a line per part).
const MAX_HELLO: usize = 64 << 20;

/// Where a message to report a dropped connection goes.
pub(super) type Warn<'a> = &'a (dyn Fn(&str) + Sync);

/// A link to another process: in the clear (loopback only) or encrypted with the key.
pub(crate) struct PeerStream {
    kind: Kind,
    /// The peer's process index, and where to note (as index + 1) the first peer whose
    /// stream ended: a worker waiting on an exchange then fails at once instead of waiting
    /// for the timeout.
    peer: usize,
    closed: Arc<AtomicUsize>,
}

enum Kind {
    Plain(TcpStream),
    Secure(SecureLink),
}

impl PeerStream {
    fn tcp(&self) -> &TcpStream {
        match &self.kind {
            Kind::Plain(t) => t,
            Kind::Secure(s) => s.tcp(),
        }
    }
}

impl Read for PeerStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let got = match &mut self.kind {
            Kind::Plain(t) => t.read(buf),
            Kind::Secure(s) => s.read(buf),
        };
        if matches!(got, Ok(0) | Err(_)) && !buf.is_empty() {
            let _ =
                self.closed
                    .compare_exchange(0, self.peer + 1, Ordering::SeqCst, Ordering::SeqCst);
        }
        got
    }
}

impl Write for PeerStream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.kind {
            Kind::Plain(t) => t.write(buf),
            Kind::Secure(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.kind {
            Kind::Plain(t) => t.flush(),
            Kind::Secure(s) => s.flush(),
        }
    }
}

impl timely::communication::allocator::zero_copy::stream::Stream for PeerStream {
    fn try_clone(&self) -> std::io::Result<Self> {
        Ok(PeerStream {
            kind: match &self.kind {
                Kind::Plain(t) => Kind::Plain(t.try_clone()?),
                Kind::Secure(s) => Kind::Secure(s.try_clone()?),
            },
            peer: self.peer,
            closed: Arc::clone(&self.closed),
        })
    }
    fn set_nonblocking(&self, nonblocking: bool) -> std::io::Result<()> {
        self.tcp().set_nonblocking(nonblocking)
    }
    fn shutdown(&self, how: Shutdown) -> std::io::Result<()> {
        self.tcp().shutdown(how)
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
    /// Where a stream notes the first peer whose stream ended (index + 1; 0 while none).
    pub closed: &'a Arc<AtomicUsize>,
}

/// Why a connection did not become a link.
enum Refused {
    /// Not a member (a scan, a stranger, another key): dropped, reported, the set-up goes on.
    Drop(String),
    /// A member that disagrees, or a failure of this process: the run stops.
    Fatal(Error),
}

impl Setup<'_> {
    fn stream(&self, kind: Kind, peer: usize) -> PeerStream {
        PeerStream {
            kind,
            peer,
            closed: Arc::new(AtomicUsize::new(0)),
        }
    }

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

    /// Sockets to every other process, in process order, `None` at `me`.
    pub(super) fn connect(&self) -> Result<Vec<Option<PeerStream>>> {
        let deadline = Instant::now() + self.timeout;
        let (hosts, me) = (self.hosts, self.me);
        let processes = hosts.len();
        let addresses = resolve(hosts, self.key.is_some())?;
        // Listen first, so that the higher-numbered processes find us as soon as possible.
        let listener = if me + 1 < processes {
            let l = TcpListener::bind(&addresses[me][..]).map_err(|e| {
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
        let mut links: Vec<Option<PeerStream>> = (0..processes).map(|_| None).collect();
        for peer in 0..me {
            links[peer] = Some(self.connect_to(peer, &addresses[peer], deadline)?);
        }
        if let Some(listener) = listener {
            let mut missing = processes - me - 1;
            while missing > 0 {
                match listener.accept() {
                    Ok((stream, from)) => match self.accept(stream, deadline) {
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
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() >= deadline {
                            let absent: Vec<String> = (me + 1..processes)
                                .filter(|&p| links[p].is_none())
                                .map(|p| format!("{p} ({})", hosts[p]))
                                .collect();
                            return Err(Error::Cluster(format!(
                                "process {} did not connect within {} s",
                                absent.join(", "),
                                self.timeout.as_secs_f64()
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
        for link in links.iter_mut().flatten() {
            link.closed = Arc::clone(self.closed);
            link.tcp()
                .set_read_timeout(None)
                .map_err(|e| Error::Cluster(format!("cannot configure a link: {e}")))?;
        }
        Ok(links)
    }

    /// Connects to the lower-numbered `peer`, retrying until the deadline while nobody
    /// listens there.
    fn connect_to(
        &self,
        peer: usize,
        address: &[SocketAddr],
        deadline: Instant,
    ) -> Result<PeerStream> {
        let host = &self.hosts[peer];
        let stream = loop {
            match TcpStream::connect(address) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(Error::Cluster(format!(
                        "process {peer} at {host} could not be reached within {} s: {e}",
                        self.timeout.as_secs_f64()
                    )));
                }
                Err(_) => std::thread::sleep(POLL),
            }
        };
        let wire = |e: std::io::Error| {
            Error::Cluster(format!(
                "the handshake with process {peer} at {host} failed ({e}): does every process \
                 have the same --cluster-key (or none, on one machine)?"
            ))
        };
        let left = deadline.saturating_duration_since(Instant::now());
        stream.set_nodelay(true).map_err(wire)?;
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(100))))
            .map_err(wire)?;
        let kind = match self.key {
            Some(key) => Kind::Secure(SecureLink::handshake(stream, key, true).map_err(wire)?),
            None => Kind::Plain(stream),
        };
        let mut link = self.stream(kind, peer);
        send_hello(&mut link, &self.hello()).map_err(wire)?;
        let theirs = read_hello(&mut link).map_err(wire)?;
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

    /// Runs the handshake of an accepted connection.
    fn accept(
        &self,
        stream: TcpStream,
        deadline: Instant,
    ) -> std::result::Result<(usize, PeerStream), Refused> {
        let drop = |e: std::io::Error| Refused::Drop(e.to_string());
        stream.set_nonblocking(false).map_err(drop)?;
        stream.set_nodelay(true).map_err(drop)?;
        let left = deadline.saturating_duration_since(Instant::now());
        stream
            .set_read_timeout(Some(left.clamp(Duration::from_millis(100), HANDSHAKE)))
            .map_err(drop)?;
        let kind = match self.key {
            Some(key) => Kind::Secure(SecureLink::handshake(stream, key, false).map_err(drop)?),
            None => Kind::Plain(stream),
        };
        // The peer's index is known after its hello; until then a closed stream notes nobody.
        let mut link = self.stream(kind, usize::MAX - 1);
        let theirs = read_hello(&mut link).map_err(drop)?;
        if theirs.magic != MAGIC {
            return Err(Refused::Drop(
                "not a disguise process of this protocol".into(),
            ));
        }
        // A member: from here on, a disagreement stops the run. Answer first, so that the
        // peer sees the same disagreement and stops too.
        send_hello(&mut link, &self.hello()).map_err(|e| {
            Refused::Fatal(Error::Cluster(format!(
                "the handshake with process {} failed: {e}",
                theirs.process
            )))
        })?;
        self.check(&theirs).map_err(Refused::Fatal)?;
        if theirs.process <= self.me || theirs.process >= self.hosts.len() {
            return Err(Refused::Fatal(Error::Cluster(format!(
                "a peer says it is process {}, which should not connect to process {}: is \
                 --process the line of each host?",
                theirs.process, self.me
            ))));
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

fn send_hello(link: &mut PeerStream, hello: &Hello) -> std::io::Result<()> {
    let body = serde_json::to_vec(hello).map_err(std::io::Error::other)?;
    link.write_all(&(body.len() as u64).to_le_bytes())?;
    link.write_all(&body)?;
    link.flush()
}

fn read_hello(link: &mut PeerStream) -> std::io::Result<Hello> {
    let mut len = [0u8; 8];
    link.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_HELLO as u64 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a disguise process of this protocol",
        ));
    }
    let mut body = vec![0u8; len as usize];
    link.read_exact(&mut body)?;
    serde_json::from_slice(&body).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a disguise process of this protocol",
        )
    })
}
