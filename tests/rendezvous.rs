//! The TCP rendezvous of `nccl::init_from_env` (`nccl::rendezvous::exchange`), which needs
//! no GPU: three processes on this host share an id, and every failure (no rank 0, a rank
//! that never comes, a foreign or short answer, mismatched world sizes, a busy port) is a
//! timely error naming `MASTER_ADDR:MASTER_PORT`.
//!
//! The multi-process test runs this same binary again, once per rank, selecting the test
//! `child_rank` with `CUARRAY_TEST_RENDEZVOUS_CHILD=1` and the torchrun variables set.

use cuarray::nccl::rendezvous::{exchange, EnvConfig};
use cuarray::nccl::ID_BYTES;
use cuarray::Error;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A TCP port free a moment ago on this host.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn config(rank: usize, world_size: usize, port: u16) -> EnvConfig {
    EnvConfig {
        rank,
        world_size,
        local_rank: rank,
        master_addr: "127.0.0.1".into(),
        master_port: port,
    }
}

/// The id rank 0 hands out in these tests: a pattern that depends on the port.
fn test_id(port: u16) -> [u8; ID_BYTES] {
    std::array::from_fn(|i| (i as u16).wrapping_mul(31).wrapping_add(port) as u8)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The message of a `Rendezvous` error (anything else fails the test).
fn rendezvous_message<T: std::fmt::Debug>(r: cuarray::Result<T>) -> String {
    match r {
        Err(e @ Error::Rendezvous { .. }) => e.to_string(),
        other => panic!("expected a rendezvous error, got {other:?}"),
    }
}

/// One rank in a process of its own (only when started by `three_processes_share_one_id`):
/// the variables from the environment, the id printed on stdout.
#[test]
fn child_rank() {
    if std::env::var_os("CUARRAY_TEST_RENDEZVOUS_CHILD").is_none() {
        return;
    }
    let cfg = EnvConfig::from_env().unwrap();
    let id = exchange(
        &cfg,
        || Ok(test_id(cfg.master_port)),
        cuarray::tuning::rendezvous_timeout(),
    );
    match id {
        Ok(id) => println!("RENDEZVOUS-ID {} {}", cfg.rank, hex(&id)),
        Err(e) => panic!("rank {}: {e}", cfg.rank),
    }
}

#[test]
fn three_processes_share_one_id() {
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    // The others start first: they must wait for rank 0 and retry.
    let children: Vec<_> = [2usize, 1, 0]
        .into_iter()
        .map(|rank| {
            if rank == 0 {
                std::thread::sleep(Duration::from_millis(300));
            }
            let child = Command::new(&exe)
                .args(["child_rank", "--exact", "--nocapture", "--test-threads=1"])
                .env("CUARRAY_TEST_RENDEZVOUS_CHILD", "1")
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", "3")
                .env("LOCAL_RANK", rank.to_string())
                .env("MASTER_ADDR", "localhost")
                .env("MASTER_PORT", port.to_string())
                .env("CUARRAY_RENDEZVOUS_TIMEOUT", "30")
                .env("CUARRAY_RENDEZVOUS_RETRY_MS", "20")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (rank, child)
        })
        .collect();
    let want = hex(&test_id(port));
    for (rank, child) in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "rank {rank} failed: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout
            .lines()
            // The harness may print "test child_rank ... " on the same line.
            .find_map(|l| l.split_once("RENDEZVOUS-ID ").map(|(_, id)| id))
            .unwrap_or_else(|| panic!("rank {rank} printed no id:\n{stdout}"));
        assert_eq!(line, format!("{rank} {want}"), "rank {rank}");
    }
}

#[test]
fn threads_share_one_id_and_stray_connections_are_ignored() {
    let port = free_port();
    let server = std::thread::spawn(move || {
        exchange(
            &config(0, 3, port),
            || Ok(test_id(port)),
            Duration::from_secs(20),
        )
    });
    // A stray client that says nothing useful, before the ranks.
    let stray = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                let _ = s.write_all(b"GET / HTTP/1.1\r\n\r\n");
                return;
            }
            assert!(Instant::now() < deadline, "rank 0 never listened");
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    stray.join().unwrap();
    let clients: Vec<_> = [1, 2]
        .into_iter()
        .map(|r| {
            std::thread::spawn(move || {
                exchange(
                    &config(r, 3, port),
                    || unreachable!(),
                    Duration::from_secs(20),
                )
            })
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().unwrap().unwrap(), test_id(port));
    }
    assert_eq!(server.join().unwrap().unwrap(), test_id(port));
    // The listener is closed once every rank has the id.
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn no_rank_zero_is_an_error_within_the_timeout() {
    let port = free_port();
    let start = Instant::now();
    let m = rendezvous_message(exchange(
        &config(1, 2, port),
        || unreachable!(),
        Duration::from_millis(300),
    ));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(m.contains(&format!("127.0.0.1:{port}")), "{m}");
    assert!(m.contains("rank 1 could not reach rank 0 within"), "{m}");
}

#[test]
fn rank_zero_names_the_ranks_that_never_came() {
    let port = free_port();
    let start = Instant::now();
    let m = rendezvous_message(exchange(
        &config(0, 3, port),
        || Ok([1; ID_BYTES]),
        Duration::from_millis(300),
    ));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(
        m.contains(&format!("MASTER_ADDR:MASTER_PORT = 127.0.0.1:{port}")),
        "{m}"
    );
    assert!(m.contains("0 of 2 came, missing: 1, 2"), "{m}");
}

/// A server on a free port that reads a rank's 16-byte greeting, answers `reply` and
/// closes.
fn fake_server(reply: Vec<u8>) -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut hello = [0u8; 16];
        s.read_exact(&mut hello).unwrap();
        let _ = s.write_all(&reply);
    });
    (port, h)
}

#[test]
fn a_foreign_server_is_an_error() {
    // Enough bytes, the wrong ones.
    let (port, h) = fake_server(vec![b'x'; 300]);
    let m = rendezvous_message(exchange(
        &config(1, 2, port),
        || unreachable!(),
        Duration::from_secs(10),
    ));
    h.join().unwrap();
    assert!(m.contains(&format!("127.0.0.1:{port}")), "{m}");
    assert!(m.contains("not a cuarray rendezvous"), "{m}");
    // A short, foreign answer.
    let (port, h) = fake_server(b"HTTP/1.1 400 Bad Request\r\n\r\n".to_vec());
    let m = rendezvous_message(exchange(
        &config(1, 2, port),
        || unreachable!(),
        Duration::from_secs(10),
    ));
    h.join().unwrap();
    assert!(m.contains("not a cuarray rendezvous"), "{m}");
}

#[test]
fn a_short_answer_is_an_error() {
    let mut reply = b"cuaNCCL1".to_vec();
    reply.extend(2u32.to_le_bytes());
    reply.extend([0u8; 5]);
    let (port, h) = fake_server(reply);
    let m = rendezvous_message(exchange(
        &config(1, 2, port),
        || unreachable!(),
        Duration::from_secs(10),
    ));
    h.join().unwrap();
    assert!(m.contains(&format!("127.0.0.1:{port}")), "{m}");
    assert!(
        m.contains(&format!("got 17 of the {} bytes", 12 + ID_BYTES)),
        "{m}"
    );
}

#[test]
fn mismatched_world_sizes_are_errors_on_both_sides() {
    let port = free_port();
    let server = std::thread::spawn(move || {
        exchange(
            &config(0, 2, port),
            || Ok([3; ID_BYTES]),
            Duration::from_secs(10),
        )
    });
    let client = exchange(
        &config(1, 3, port),
        || unreachable!(),
        Duration::from_secs(10),
    );
    let m = rendezvous_message(client);
    assert!(m.contains("rank 0 has WORLD_SIZE = 2, rank 1 has 3"), "{m}");
    let m = rendezvous_message(server.join().unwrap());
    assert!(
        m.contains("rank 1") && m.contains("has WORLD_SIZE = 3, rank 0 has 2"),
        "{m}"
    );
}

#[test]
fn a_busy_port_is_an_error_on_rank_zero() {
    let blocker = TcpListener::bind("0.0.0.0:0").unwrap();
    let port = blocker.local_addr().unwrap().port();
    let m = rendezvous_message(exchange(
        &config(0, 2, port),
        || Ok([0; ID_BYTES]),
        Duration::from_millis(200),
    ));
    assert!(
        m.contains(&format!("rank 0 cannot listen on port {port}")),
        "{m}"
    );
    drop(blocker);
}
