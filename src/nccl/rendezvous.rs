//! The rendezvous of [`init_from_env`]: how the processes of a job started by `torchrun`
//! (or any launcher that sets its `env://` variables) find each other and share one NCCL
//! [`Id`], over plain TCP.
//!
//! - Every process reads `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR` and
//!   `MASTER_PORT` ([`EnvConfig::from_env`]); all five are required.
//! - Rank 0 makes the id, listens on `MASTER_PORT` (every interface), hands the id to
//!   each of the other `WORLD_SIZE - 1` ranks once, then closes the port. It waits up to
//!   the timeout for all of them.
//! - Every other rank connects to `MASTER_ADDR:MASTER_PORT`, trying again every
//!   [`tuning::rendezvous_retry`] until rank 0 answers or the timeout passes (ranks may
//!   start in any order).
//! - Then every rank joins the communicator (`ncclCommInitRank`) on device `LOCAL_RANK`.
//!
//! The timeout is [`tuning::rendezvous_timeout`] (`CUARRAY_RENDEZVOUS_TIMEOUT`, 300 s by
//! default). The exchange itself ([`exchange`]) needs no GPU and no NCCL: it moves
//! [`ID_BYTES`] bytes.
//!
//! On the wire a rank sends 16 bytes (a magic tag, its `WORLD_SIZE` and `RANK` as
//! little-endian `u32`s) and rank 0 answers with the tag, its `WORLD_SIZE` and the id. A
//! connection that does not start with the tag (a port scanner, a stray client) is
//! dropped and not counted; the same rank twice, a rank out of range or another
//! `WORLD_SIZE` is an error on both sides.

use super::{Comm, Id, ID_BYTES};
use crate::{tuning, Device, Error, Result};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The first bytes of every message, both ways.
const MAGIC: [u8; 8] = *b"cuaNCCL1";
/// A rank's greeting: the tag, its world size and its rank.
const HELLO_BYTES: usize = MAGIC.len() + 8;
/// Rank 0's answer: the tag, its world size and the id.
const REPLY_BYTES: usize = MAGIC.len() + 4 + ID_BYTES;
/// How long rank 0 waits for the greeting of a connection before dropping it as stray.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// The `env://` variables of one process, as `torchrun` sets them: its rank, the number
/// of ranks, its device on this host, and where rank 0 listens.
///
/// ```
/// use cuarray::nccl::rendezvous::EnvConfig;
/// let vars = [("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "1"),
///             ("MASTER_ADDR", "10.0.0.5"), ("MASTER_PORT", "29500")];
/// let cfg = EnvConfig::from_vars(|k| {
///     vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
/// })?;
/// assert_eq!((cfg.rank, cfg.world_size, cfg.local_rank), (1, 2, 1));
/// assert_eq!(cfg.address(), "10.0.0.5:29500");
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvConfig {
    /// `RANK`: this process's rank, below `world_size`.
    pub rank: usize,
    /// `WORLD_SIZE`: the number of ranks, at least 1.
    pub world_size: usize,
    /// `LOCAL_RANK`: the ordinal of this process's GPU on its host.
    pub local_rank: usize,
    /// `MASTER_ADDR`: the host name or IP address of rank 0.
    pub master_addr: String,
    /// `MASTER_PORT`: the TCP port rank 0 listens on for the rendezvous.
    pub master_port: u16,
}

/// The operation named by errors of the environment.
const OP: &str = "nccl::init_from_env";

impl EnvConfig {
    /// The five variables from the process environment.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the variable that is missing, empty or malformed,
    /// or `RANK` when it is not below `WORLD_SIZE`.
    ///
    /// ```no_run
    /// # cuarray::testing::single_rank_env(); // alone: a job of one rank
    /// let cfg = cuarray::nccl::rendezvous::EnvConfig::from_env()?;
    /// println!("rank {} of {}", cfg.rank, cfg.world_size);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_env() -> Result<EnvConfig> {
        EnvConfig::from_vars(|k| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned()))
    }

    /// The five variables as `get` gives them (`None`: unset), e.g. from a launcher's
    /// own table; surrounding blanks are ignored.
    ///
    /// # Errors
    /// As [`from_env`](EnvConfig::from_env).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<EnvConfig> {
        let var = |name: &'static str| -> Result<String> {
            let v = get(name).ok_or_else(|| {
                Error::invalid(
                    OP,
                    format!(
                        "{name} is not set (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and \
                         MASTER_PORT are all required, as torchrun sets them)"
                    ),
                )
            })?;
            let v = v.trim().to_string();
            if v.is_empty() {
                return Err(Error::invalid(OP, format!("{name} is empty")));
            }
            Ok(v)
        };
        let number = |name: &'static str| -> Result<usize> {
            let v = var(name)?;
            v.parse().map_err(|_| {
                Error::invalid(OP, format!("{name} = {v:?} is not a non-negative integer"))
            })
        };
        let rank = number("RANK")?;
        let world_size = number("WORLD_SIZE")?;
        let local_rank = number("LOCAL_RANK")?;
        let master_addr = var("MASTER_ADDR")?;
        if master_addr.contains(char::is_whitespace) {
            return Err(Error::invalid(
                OP,
                format!("MASTER_ADDR = {master_addr:?} is not a host name or address"),
            ));
        }
        let port = var("MASTER_PORT")?;
        let master_port = port.parse::<u16>().ok().filter(|&p| p > 0).ok_or_else(|| {
            Error::invalid(
                OP,
                format!("MASTER_PORT = {port:?} is not a TCP port (1 to 65535)"),
            )
        })?;
        let cfg = EnvConfig {
            rank,
            world_size,
            local_rank,
            master_addr,
            master_port,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Rank 0's address as `host:port` (an IPv6 address in brackets), as errors name it.
    pub fn address(&self) -> String {
        let host = self.host();
        if host.contains(':') {
            format!("[{host}]:{}", self.master_port)
        } else {
            format!("{host}:{}", self.master_port)
        }
    }

    /// `MASTER_ADDR` without the brackets an IPv6 address may come in.
    fn host(&self) -> &str {
        self.master_addr
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&self.master_addr)
    }

    /// At least one rank, `rank` below it, a port.
    fn validate(&self) -> Result<()> {
        if self.world_size == 0 {
            return Err(Error::invalid(
                OP,
                "WORLD_SIZE = 0: a job has at least one rank",
            ));
        }
        if self.rank >= self.world_size {
            return Err(Error::invalid(
                OP,
                format!(
                    "RANK = {} is not below WORLD_SIZE = {}",
                    self.rank, self.world_size
                ),
            ));
        }
        if self.world_size > i32::MAX as usize {
            return Err(Error::invalid(
                OP,
                format!(
                    "WORLD_SIZE = {} is too large (NCCL counts ranks in a C int)",
                    self.world_size
                ),
            ));
        }
        if self.master_port == 0 {
            return Err(Error::invalid(OP, "MASTER_PORT = 0 is not a TCP port"));
        }
        Ok(())
    }

    fn error(&self, msg: impl Into<String>) -> Error {
        Error::Rendezvous {
            addr: self.address(),
            msg: msg.into(),
        }
    }
}

/// Joins the communicator of the job `torchrun` (or another launcher setting its
/// `env://` variables) started: reads `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`
/// and `MASTER_PORT` ([`EnvConfig::from_env`]), shares one NCCL id over TCP (rank 0
/// serves it on `MASTER_PORT`, see the [module docs](self)) and returns this rank of a
/// communicator of `WORLD_SIZE` ranks on device `LOCAL_RANK` (its default stream).
/// Every rank calls it; it returns once all have joined.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the variable that is missing or malformed, or
/// `RANK` when it is not below `WORLD_SIZE`, or `LOCAL_RANK` when this host has no such
/// GPU; [`Error::Rendezvous`] naming `MASTER_ADDR:MASTER_PORT` when the ranks do not
/// meet within [`tuning::rendezvous_timeout`]; as [`Comm::from_id`] otherwise.
///
/// ```no_run
/// // RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 ./train &
/// // RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 ./train
/// # cuarray::testing::single_rank_env(); // alone: a job of one rank
/// use cuarray::nccl::{self, ReduceOp};
/// use cuarray::DeviceArray;
/// let comm = nccl::init_from_env()?;
/// let mut g = DeviceArray::<f32>::full(comm.device(), &[4], comm.rank() as f32)?;
/// comm.all_reduce(&mut g, ReduceOp::Sum)?;
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn init_from_env() -> Result<Comm> {
    init(&EnvConfig::from_env()?)
}

/// [`init_from_env`] with the variables given (e.g. from [`EnvConfig::from_vars`]).
///
/// # Errors
/// As [`init_from_env`].
pub fn init(cfg: &EnvConfig) -> Result<Comm> {
    cfg.validate()?;
    let device = Device::new(cfg.local_rank).map_err(|e| match e {
        Error::DeviceOutOfRange { ordinal, count } => Error::invalid(
            OP,
            format!("LOCAL_RANK = {ordinal}, but this host has {count} GPU(s)"),
        ),
        e => e,
    })?;
    let id = exchange(
        cfg,
        || Id::new().map(|id| *id.as_bytes()),
        tuning::rendezvous_timeout(),
    )?;
    Comm::from_id(&Id::from_bytes(&id)?, cfg.rank, cfg.world_size, &device)
}

/// The TCP part of the rendezvous: rank 0 calls `make_id`, serves its bytes to the other
/// `world_size - 1` ranks and returns them; every other rank fetches them from
/// `MASTER_ADDR:MASTER_PORT`. Each waits at most `timeout`. With one rank nothing is
/// sent or opened. No GPU or NCCL is needed (`make_id` is called on rank 0 only).
///
/// # Errors
/// [`Error::InvalidArgument`] for a configuration [`EnvConfig::from_vars`] would refuse;
/// the error of `make_id`; [`Error::Rendezvous`] when rank 0 cannot listen on the port
/// or not every rank came in time, when another rank cannot reach rank 0 in time, or
/// when what answered is not rank 0 of the same job (another `WORLD_SIZE`, a short
/// or foreign answer).
///
/// ```
/// use cuarray::nccl::{rendezvous::{exchange, EnvConfig}, ID_BYTES};
/// let one = EnvConfig {
///     rank: 0, world_size: 1, local_rank: 0,
///     master_addr: "127.0.0.1".into(), master_port: 29500,
/// };
/// let id = exchange(&one, || Ok([7; ID_BYTES]), std::time::Duration::from_secs(1))?;
/// assert_eq!(id, [7; ID_BYTES]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn exchange(
    cfg: &EnvConfig,
    make_id: impl FnOnce() -> Result<[u8; ID_BYTES]>,
    timeout: Duration,
) -> Result<[u8; ID_BYTES]> {
    cfg.validate()?;
    if cfg.rank == 0 {
        let id = make_id()?;
        if cfg.world_size > 1 {
            serve(cfg, &id, timeout)?;
        }
        Ok(id)
    } else {
        fetch(cfg, timeout)
    }
}

/// The time left until `deadline`, zero once passed.
fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// The address rank 0 listens on: every interface, IPv6 where `MASTER_ADDR` names
/// only IPv6 addresses.
fn listen_addr(cfg: &EnvConfig) -> SocketAddr {
    let v6_only = (cfg.host(), cfg.master_port)
        .to_socket_addrs()
        .map(|it| {
            let all: Vec<SocketAddr> = it.collect();
            !all.is_empty() && all.iter().all(SocketAddr::is_ipv6)
        })
        .unwrap_or(false);
    if v6_only {
        (Ipv6Addr::UNSPECIFIED, cfg.master_port).into()
    } else {
        (Ipv4Addr::UNSPECIFIED, cfg.master_port).into()
    }
}

/// Rank 0: hands `id` to every other rank once, then closes the listener.
fn serve(cfg: &EnvConfig, id: &[u8; ID_BYTES], timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let listener = TcpListener::bind(listen_addr(cfg)).map_err(|e| {
        cfg.error(format!(
            "rank 0 cannot listen on port {}: {e}",
            cfg.master_port
        ))
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| cfg.error(format!("rank 0's listener: {e}")))?;
    // The ranks served, 0 included (a set: the world size may be large).
    let mut served = std::collections::BTreeSet::from([0usize]);
    let mut waiting = cfg.world_size - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((stream, peer)) => {
                if let Some(rank) = serve_one(cfg, stream, peer, id, deadline)? {
                    if !served.insert(rank) {
                        return Err(cfg.error(format!(
                            "rank {rank} connected twice (the second time from {peer})"
                        )));
                    }
                    waiting -= 1;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let rest = left(deadline);
                if rest.is_zero() {
                    let missing = (0..cfg.world_size).filter(|r| !served.contains(r));
                    return Err(cfg.error(format!(
                        "rank 0 waited {timeout:?} for the other ranks; {} of {} came, \
                         missing: {}",
                        cfg.world_size - 1 - waiting,
                        cfg.world_size - 1,
                        list(missing, waiting)
                    )));
                }
                std::thread::sleep(tuning::rendezvous_retry().min(rest));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(cfg.error(format!("rank 0's listener: {e}"))),
        }
    }
    Ok(())
}

/// The `count` ranks of `ranks` as `1, 2, 5` (the first 16, then how many more).
fn list(ranks: impl Iterator<Item = usize>, count: usize) -> String {
    let mut s = ranks
        .take(16)
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if count > 16 {
        s.push_str(&format!(" and {} more", count - 16));
    }
    s
}

/// Rank 0's side of one connection: the rank it served, or `None` for a stray
/// connection (no greeting in time, or not one of cuarray's).
fn serve_one(
    cfg: &EnvConfig,
    mut stream: TcpStream,
    peer: SocketAddr,
    id: &[u8; ID_BYTES],
    deadline: Instant,
) -> Result<Option<usize>> {
    let io = |e: std::io::Error| cfg.error(format!("rank 0, connection from {peer}: {e}"));
    // An accepted socket may inherit the listener's non-blocking mode.
    stream.set_nonblocking(false).map_err(io)?;
    let wait = HELLO_TIMEOUT
        .min(left(deadline))
        .max(Duration::from_millis(1));
    stream.set_read_timeout(Some(wait)).map_err(io)?;
    stream.set_write_timeout(Some(wait)).map_err(io)?;
    let mut hello = [0u8; HELLO_BYTES];
    if read_full(&mut stream, &mut hello).is_err() || hello[..MAGIC.len()] != MAGIC {
        return Ok(None);
    }
    let word = |i: usize| u32::from_le_bytes(hello[i..i + 4].try_into().unwrap()) as usize;
    let (world, rank) = (word(MAGIC.len()), word(MAGIC.len() + 4));
    let mut reply = [0u8; REPLY_BYTES];
    reply[..MAGIC.len()].copy_from_slice(&MAGIC);
    // `validate` keeps the world size within i32.
    reply[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(cfg.world_size as u32).to_le_bytes());
    reply[MAGIC.len() + 4..].copy_from_slice(id);
    // Answered even when the greeting is wrong, so that the other side sees why.
    stream.write_all(&reply).map_err(io)?;
    if world != cfg.world_size {
        return Err(cfg.error(format!(
            "rank {rank} (from {peer}) has WORLD_SIZE = {world}, rank 0 has {}",
            cfg.world_size
        )));
    }
    if rank == 0 || rank >= cfg.world_size {
        return Err(cfg.error(format!(
            "a process at {peer} calls itself rank {rank} of {world}"
        )));
    }
    Ok(Some(rank))
}

/// Fills `buf` from `stream`; on failure, the bytes read and the error (an early end of
/// stream is `UnexpectedEof`).
fn read_full(
    stream: &mut TcpStream,
    buf: &mut [u8],
) -> std::result::Result<(), (usize, std::io::Error)> {
    let mut got = 0;
    while got < buf.len() {
        match stream.read(&mut buf[got..]) {
            Ok(0) => return Err((got, std::io::ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err((got, e)),
        }
    }
    Ok(())
}

/// Ranks other than 0: the id from rank 0, connecting until it listens or `timeout`
/// passes.
fn fetch(cfg: &EnvConfig, timeout: Duration) -> Result<[u8; ID_BYTES]> {
    let deadline = Instant::now() + timeout;
    let mut stream = loop {
        let last = match connect(cfg, deadline) {
            Ok(s) => break s,
            Err(e) => e,
        };
        let rest = left(deadline);
        if rest.is_zero() {
            return Err(cfg.error(format!(
                "rank {} could not reach rank 0 within {timeout:?}: {last}",
                cfg.rank
            )));
        }
        std::thread::sleep(tuning::rendezvous_retry().min(rest));
    };
    let io = |e: std::io::Error| cfg.error(format!("rank {}: {e}", cfg.rank));
    let wait = left(deadline).max(Duration::from_millis(1));
    stream.set_read_timeout(Some(wait)).map_err(io)?;
    stream.set_write_timeout(Some(wait)).map_err(io)?;
    let mut hello = [0u8; HELLO_BYTES];
    hello[..MAGIC.len()].copy_from_slice(&MAGIC);
    // `validate` keeps both within i32.
    hello[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(cfg.world_size as u32).to_le_bytes());
    hello[MAGIC.len() + 4..].copy_from_slice(&(cfg.rank as u32).to_le_bytes());
    stream.write_all(&hello).map_err(io)?;
    let mut reply = [0u8; REPLY_BYTES];
    if let Err((got, e)) = read_full(&mut stream, &mut reply) {
        let what = if got >= MAGIC.len() && reply[..MAGIC.len()] != MAGIC {
            "; what answered is not a cuarray rendezvous"
        } else {
            ""
        };
        return Err(cfg.error(format!(
            "rank {} got {got} of the {REPLY_BYTES} bytes of rank 0's answer ({e}){what}",
            cfg.rank
        )));
    }
    if reply[..MAGIC.len()] != MAGIC {
        return Err(cfg.error(format!(
            "what answered is not a cuarray rendezvous (it sent {:02x?} first)",
            &reply[..MAGIC.len()]
        )));
    }
    let world = u32::from_le_bytes(reply[MAGIC.len()..MAGIC.len() + 4].try_into().unwrap());
    if world as usize != cfg.world_size {
        return Err(cfg.error(format!(
            "rank 0 has WORLD_SIZE = {world}, rank {} has {}",
            cfg.rank, cfg.world_size
        )));
    }
    let mut id = [0u8; ID_BYTES];
    id.copy_from_slice(&reply[MAGIC.len() + 4..]);
    Ok(id)
}

/// One attempt to connect to rank 0 (each address `MASTER_ADDR` resolves to); the
/// reason as a message when none answers.
fn connect(cfg: &EnvConfig, deadline: Instant) -> std::result::Result<TcpStream, String> {
    let addrs = (cfg.host(), cfg.master_port)
        .to_socket_addrs()
        .map_err(|e| format!("MASTER_ADDR {:?} does not resolve: {e}", cfg.master_addr))?;
    let mut last = format!("MASTER_ADDR {:?} resolves to no address", cfg.master_addr);
    for a in addrs {
        let wait = left(deadline).max(Duration::from_millis(1));
        match TcpStream::connect_timeout(&a, wait) {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("{a}: {e}"),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| owned.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    const GOOD: [(&str, &str); 5] = [
        ("RANK", "2"),
        ("WORLD_SIZE", "4"),
        ("LOCAL_RANK", "0"),
        ("MASTER_ADDR", "node-07"),
        ("MASTER_PORT", " 29500 "),
    ];

    /// `GOOD` with `name` set to `value` (`None`: removed).
    fn with(name: &str, value: Option<&str>) -> Result<EnvConfig> {
        let mut pairs: Vec<(&str, &str)> =
            GOOD.iter().filter(|(k, _)| *k != name).copied().collect();
        if let Some(v) = value {
            pairs.push((name, v));
        }
        EnvConfig::from_vars(vars(&pairs))
    }

    fn message(r: Result<EnvConfig>) -> String {
        match r {
            Err(e @ Error::InvalidArgument { .. }) => e.to_string(),
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn parses_torchrun_variables() {
        let cfg = EnvConfig::from_vars(vars(&GOOD)).unwrap();
        assert_eq!(
            cfg,
            EnvConfig {
                rank: 2,
                world_size: 4,
                local_rank: 0,
                master_addr: "node-07".into(),
                master_port: 29500,
            }
        );
        assert_eq!(cfg.address(), "node-07:29500");
        let one = with("WORLD_SIZE", Some("3")).unwrap();
        assert_eq!(one.world_size, 3);
        let v6 = with("MASTER_ADDR", Some("::1")).unwrap();
        assert_eq!(v6.address(), "[::1]:29500");
        let v6b = with("MASTER_ADDR", Some("[fe80::2]")).unwrap();
        assert_eq!(
            (v6b.host(), v6b.address().as_str()),
            ("fe80::2", "[fe80::2]:29500")
        );
    }

    #[test]
    fn a_missing_variable_is_named() {
        for (name, _) in GOOD {
            let m = message(with(name, None));
            assert!(m.contains(&format!("{name} is not set")), "{m}");
            assert!(m.starts_with("nccl::init_from_env"), "{m}");
            let m = message(with(name, Some("  ")));
            assert!(m.contains(&format!("{name} is empty")), "{m}");
        }
    }

    #[test]
    fn a_malformed_variable_is_named() {
        for (name, bad) in [
            ("RANK", "-1"),
            ("RANK", "two"),
            ("WORLD_SIZE", "4.0"),
            ("LOCAL_RANK", "0x1"),
            ("MASTER_PORT", "65536"),
            ("MASTER_PORT", "0"),
            ("MASTER_PORT", "http"),
            ("MASTER_ADDR", "node 07"),
        ] {
            let m = message(with(name, Some(bad)));
            assert!(
                m.contains(&format!("{name} = {bad:?}")),
                "{name}={bad}: {m}"
            );
        }
    }

    #[test]
    fn rank_must_be_below_world_size() {
        let m = message(with("RANK", Some("4")));
        assert!(m.contains("RANK = 4 is not below WORLD_SIZE = 4"), "{m}");
        let m = message(with("WORLD_SIZE", Some("0")));
        assert!(m.contains("WORLD_SIZE = 0"), "{m}");
        let m = message(with("WORLD_SIZE", Some("3000000000")));
        assert!(m.contains("WORLD_SIZE = 3000000000 is too large"), "{m}");
        // Fields set by hand are checked as well.
        let cfg = EnvConfig {
            rank: 1,
            world_size: 1,
            local_rank: 0,
            master_addr: "localhost".into(),
            master_port: 1,
        };
        assert!(matches!(
            exchange(&cfg, || Ok([0; ID_BYTES]), Duration::from_millis(10)),
            Err(Error::InvalidArgument { .. })
        ));
    }

    #[test]
    fn one_rank_opens_nothing() {
        // Port 1 is never listened on here: a single rank must not try.
        let cfg = EnvConfig {
            rank: 0,
            world_size: 1,
            local_rank: 0,
            master_addr: "127.0.0.1".into(),
            master_port: 1,
        };
        let id = exchange(&cfg, || Ok([9; ID_BYTES]), Duration::from_millis(10)).unwrap();
        assert_eq!(id, [9; ID_BYTES]);
        // The error of `make_id` comes back as it is.
        let e = exchange(
            &cfg,
            || Err(Error::invalid("make", "no id")),
            Duration::from_millis(10),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no id"), "{e}");
    }

    #[test]
    fn ranks_are_listed_briefly() {
        assert_eq!(list([1, 2, 5].into_iter(), 3), "1, 2, 5");
        assert!(list(1..=20, 20).ends_with("16 and 4 more"));
    }
}
