//! The cluster key and the encrypted, mutually authenticated links it makes.
//!
//! Every link of a keyed cluster runs the Noise protocol `Noise_NNpsk0_25519_ChaChaPoly_BLAKE2s`
//! (Perrin, *The Noise Protocol Framework*, revision 34, §9: pre-shared symmetric keys; the
//! `snow` crate): an ephemeral X25519 exchange mixed with the cluster's 32-byte pre-shared key
//! at the first token. The first handshake message is already encrypted and authenticated
//! under a key derived from the pre-shared key, so a peer without it is refused before it
//! can send a byte of its own (Noise §9.3: "psk0" authenticates the initiator to the
//! responder with the first message, the responder to the initiator with the second); every
//! later frame is ChaCha20-Poly1305 with a per-direction counter nonce, so it cannot be read,
//! altered, dropped or replayed without the receiver failing the run. The ephemeral exchange
//! gives forward secrecy: a key stolen later does not decrypt a recorded run.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The Noise protocol of every keyed link.
const PROTOCOL: &str = "Noise_NNpsk0_25519_ChaChaPoly_BLAKE2s";
/// Binds the handshake to this program and protocol version.
const PROLOGUE: &[u8] = b"disguise cluster link 2";
/// The largest Noise message, and the authentication tag of each.
const MAX_MESSAGE: usize = 65_535;
const TAG: usize = 16;
/// The largest plaintext one frame carries.
const MAX_PLAIN: usize = MAX_MESSAGE - TAG;

/// A cluster's pre-shared key: 32 bytes from the operating system's generator, kept in a file
/// of 64 hexadecimal digits that only its owner may read.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// use disguise::cluster::ClusterKey;
/// let path = dir.path().join("cluster.key");
/// ClusterKey::generate()?.write_new(&path)?;
/// let key = ClusterKey::read(&path)?;
/// assert!(ClusterKey::generate()?.write_new(&path).is_err()); // never overwritten
/// # let _ = key;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct ClusterKey([u8; 32]);

impl std::fmt::Debug for ClusterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterKey(…)")
    }
}

impl ClusterKey {
    /// A fresh key from the operating system's generator.
    ///
    /// # Errors
    /// If the operating system's generator fails.
    pub fn generate() -> Result<Self> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)
            .map_err(|e| Error::Cluster(format!("the system's random generator failed: {e}")))?;
        Ok(ClusterKey(key))
    }

    /// Writes the key to a new file `path` (64 hexadecimal digits and a newline), readable by
    /// its owner alone, atomically (a temporary file beside it, then a rename that never
    /// replaces an existing file).
    ///
    /// # Errors
    /// If `path` exists or cannot be written.
    pub fn write_new(&self, path: &Path) -> Result<()> {
        let text: String = self
            .0
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            + "\n";
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let io = |e: std::io::Error| {
            Error::io_with(
                format!("cannot write the cluster key {}", path.display()),
                e,
            )
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".cluster-key")
            .tempfile_in(dir)
            .map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(io)?;
        }
        tmp.write_all(text.as_bytes()).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                Error::io(format!(
                    "{} exists: a cluster key is never overwritten (remove it first to \
                     replace it, on every machine)",
                    path.display()
                ))
            } else {
                io(e.error)
            }
        })?;
        Ok(())
    }

    /// Reads a key written by [`ClusterKey::write_new`] (`disguise cluster key`).
    ///
    /// # Errors
    /// If the file cannot be read, is not 64 hexadecimal digits, or (on Unix) others than
    /// its owner may read it.
    pub fn read(path: &Path) -> Result<Self> {
        let name = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io_with(format!("cannot read the cluster key {name}"), e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)
                .map_err(|e| Error::io_with(format!("cannot read the cluster key {name}"), e))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(Error::param(
                    "cluster-key",
                    format!(
                        "{name} may be read by others than its owner (mode {:o}): \
                         `chmod 600 {name}`",
                        mode & 0o777
                    ),
                ));
            }
        }
        let hex = text.trim();
        let bad = || {
            Error::param(
                "cluster-key",
                format!(
                    "{name} is not a cluster key (64 hexadecimal digits): make one with \
                     `disguise cluster key --out {name}`"
                ),
            )
        };
        if hex.len() != 64 || !hex.is_ascii() {
            return Err(bad());
        }
        let mut key = [0u8; 32];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(ClusterKey(key))
    }

    fn builder(&self) -> snow::Builder<'_> {
        let params = PROTOCOL.parse().expect("a valid Noise protocol name");
        snow::Builder::new(params)
            .psk(0, &self.0)
            .and_then(|b| b.prologue(PROLOGUE))
            .expect("a 32-byte key and a prologue are accepted")
    }
}

/// One encrypted link: a TCP stream and the Noise transport state of both directions. Clones
/// share the state (timely reads and writes a link from two threads, one clone each).
pub(super) struct SecureLink {
    tcp: TcpStream,
    transport: Arc<Mutex<snow::TransportState>>,
    /// Plaintext decrypted and not yet read, and how much of it was read.
    pending: Arc<Mutex<(Vec<u8>, usize)>>,
    /// Held while a frame is encrypted and sent, so that frames go out in nonce order; the
    /// transport state itself is held only to encrypt or decrypt, never across a blocking
    /// read or write (a writer blocked on a full socket must not stop its reader).
    sending: Arc<Mutex<()>>,
}

impl SecureLink {
    /// Runs the handshake on `tcp` as the connecting (`initiator`) or accepting side.
    ///
    /// # Errors
    /// If the peer does not know the key, closes the connection or sends garbage.
    pub(super) fn handshake(
        mut tcp: TcpStream,
        key: &ClusterKey,
        initiator: bool,
    ) -> std::io::Result<Self> {
        let snow = |e: snow::Error| {
            std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("the handshake failed ({e}): not a member of this cluster"),
            )
        };
        let mut state = if initiator {
            key.builder().build_initiator()
        } else {
            key.builder().build_responder()
        }
        .map_err(snow)?;
        let mut message = vec![0u8; MAX_MESSAGE];
        let mut payload = vec![0u8; MAX_MESSAGE];
        while !state.is_handshake_finished() {
            if state.is_my_turn() {
                let n = state.write_message(&[], &mut message).map_err(snow)?;
                write_frame(&mut tcp, &message[..n])?;
            } else {
                let frame = read_frame(&mut tcp)?.ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the peer closed the connection during the handshake",
                    )
                })?;
                state.read_message(&frame, &mut payload).map_err(snow)?;
            }
        }
        Ok(SecureLink {
            tcp,
            transport: Arc::new(Mutex::new(state.into_transport_mode().map_err(snow)?)),
            pending: Arc::new(Mutex::new((Vec::new(), 0))),
            sending: Arc::new(Mutex::new(())),
        })
    }

    pub(super) fn tcp(&self) -> &TcpStream {
        &self.tcp
    }

    pub(super) fn try_clone(&self) -> std::io::Result<Self> {
        Ok(SecureLink {
            tcp: self.tcp.try_clone()?,
            transport: Arc::clone(&self.transport),
            pending: Arc::clone(&self.pending),
            sending: Arc::clone(&self.sending),
        })
    }
}

fn tampered(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("a frame failed authentication ({e}): the link was altered"),
    )
}

impl Read for SecureLink {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if pending.1 == pending.0.len() {
            let Some(frame) = read_frame(&mut self.tcp)? else {
                return Ok(0);
            };
            let mut plain = vec![0u8; frame.len()];
            let n = self
                .transport
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .read_message(&frame, &mut plain)
                .map_err(tampered)?;
            plain.truncate(n);
            *pending = (plain, 0);
        }
        let (plain, at) = &mut *pending;
        let n = buf.len().min(plain.len() - *at);
        buf[..n].copy_from_slice(&plain[*at..*at + n]);
        *at += n;
        Ok(n)
    }
}

impl Write for SecureLink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let chunk = &buf[..buf.len().min(MAX_PLAIN)];
        let mut frame = vec![0u8; chunk.len() + TAG];
        let _sending = self.sending.lock().unwrap_or_else(|p| p.into_inner());
        let n = self
            .transport
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .write_message(chunk, &mut frame)
            .map_err(tampered)?;
        write_frame(&mut self.tcp, &frame[..n])?;
        Ok(chunk.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tcp.flush()
    }
}

/// Writes one frame: its length (2 bytes, big-endian, as Noise messages are at most 65,535
/// bytes), then the message.
pub(super) fn write_frame(tcp: &mut TcpStream, message: &[u8]) -> std::io::Result<()> {
    let len = u16::try_from(message.len()).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame above 65,535 bytes")
    })?;
    let mut out = Vec::with_capacity(2 + message.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(message);
    tcp.write_all(&out)
}

/// Reads one frame; `None` at a clean end of the stream (before a frame starts).
pub(super) fn read_frame(tcp: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match tcp.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the peer closed the connection mid-frame",
                ));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let mut message = vec![0u8; u16::from_be_bytes(len) as usize];
    tcp.read_exact(&mut message)?;
    Ok(Some(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair(a: &ClusterKey, b: &ClusterKey) -> (std::io::Result<SecureLink>, SecureLink) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        let b = b.clone();
        let client = std::thread::spawn(move || {
            let tcp = TcpStream::connect(address).expect("connect");
            SecureLink::handshake(tcp, &b, true)
        });
        let (tcp, _) = listener.accept().expect("accept");
        let server = SecureLink::handshake(tcp, a, false);
        let client = client.join().expect("client thread");
        match (server, client) {
            (s, Ok(c)) => (s, c),
            (s, Err(e)) => {
                assert!(s.is_err(), "the server accepted a client that failed: {e}");
                panic!("client failed: {e}")
            }
        }
    }

    #[test]
    fn a_keyed_link_carries_bytes_both_ways_and_in_order() {
        let key = ClusterKey::generate().expect("key");
        let (server, mut client) = pair(&key, &key);
        let mut server = server.expect("server");
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let sent = big.clone();
        let writer = std::thread::spawn(move || {
            client.write_all(&sent).expect("write");
            client.flush().expect("flush");
            let mut back = [0u8; 5];
            client.read_exact(&mut back).expect("read back");
            back
        });
        let mut got = vec![0u8; big.len()];
        server.read_exact(&mut got).expect("read");
        assert_eq!(got, big);
        server.write_all(b"thank").expect("answer");
        assert_eq!(&writer.join().expect("writer"), b"thank");
    }

    #[test]
    fn a_peer_with_another_key_is_refused_by_both_sides() {
        let (ours, theirs) = (
            ClusterKey::generate().unwrap(),
            ClusterKey::generate().unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        let client = std::thread::spawn(move || {
            let tcp = TcpStream::connect(address).expect("connect");
            SecureLink::handshake(tcp, &theirs, true).map(|_| ())
        });
        let (tcp, _) = listener.accept().expect("accept");
        let server = SecureLink::handshake(tcp, &ours, false);
        let err = server.err().expect("the server refuses a stranger");
        assert!(err.to_string().contains("not a member"), "{err}");
        drop(listener);
        assert!(client.join().expect("client").is_err());
    }

    #[test]
    fn the_bytes_on_the_wire_are_not_the_plaintext_and_a_flipped_bit_fails() {
        // A link through a relay that records what passes and flips one bit of the second frame.
        let key = ClusterKey::generate().expect("key");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let relay = TcpListener::bind("127.0.0.1:0").expect("relay");
        let (server_at, relay_at) = (listener.local_addr().unwrap(), relay.local_addr().unwrap());
        let k = key.clone();
        let client = std::thread::spawn(move || {
            let mut c = SecureLink::handshake(TcpStream::connect(relay_at).unwrap(), &k, true)
                .expect("client handshake");
            c.write_all(b"count of cell 17 is 1").unwrap();
            c.write_all(b"count of cell 18 is 2").unwrap();
        });
        let (mut from_client, _) = relay.accept().unwrap();
        let mut to_server = TcpStream::connect(server_at).unwrap();
        let (tcp, _) = listener.accept().unwrap();
        let server = std::thread::spawn(move || SecureLink::handshake(tcp, &key, false));
        // Handshake: one frame each way, relayed untouched.
        let m1 = read_frame(&mut from_client).unwrap().unwrap();
        write_frame(&mut to_server, &m1).unwrap();
        let m2 = read_frame(&mut to_server).unwrap().unwrap();
        write_frame(&mut from_client, &m2).unwrap();
        let mut server = server.join().unwrap().expect("server handshake");
        let first = read_frame(&mut from_client).unwrap().unwrap();
        let mut second = read_frame(&mut from_client).unwrap().unwrap();
        client.join().unwrap();
        assert!(
            !first.windows(4).any(|w| w == b"cell"),
            "plaintext on the wire"
        );
        write_frame(&mut to_server, &first).unwrap();
        second[3] ^= 1;
        write_frame(&mut to_server, &second).unwrap();
        let mut got = [0u8; 21];
        server
            .read_exact(&mut got)
            .expect("the first frame is intact");
        assert_eq!(&got, b"count of cell 17 is 1");
        let err = server
            .read(&mut got)
            .expect_err("the altered frame is refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn key_files_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.key");
        std::fs::write(&bad, "not hex\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let err = ClusterKey::read(&bad).unwrap_err().to_string();
        assert!(
            err.contains("not a cluster key") && err.contains("disguise cluster key"),
            "{err}"
        );
        let good = dir.path().join("good.key");
        ClusterKey::generate().unwrap().write_new(&good).unwrap();
        assert_eq!(std::fs::read_to_string(&good).unwrap().trim().len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&good).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            std::fs::set_permissions(&good, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = ClusterKey::read(&good).unwrap_err().to_string();
            assert!(err.contains("chmod 600"), "{err}");
        }
        assert!(ClusterKey::read(&dir.path().join("absent")).is_err());
    }
}
