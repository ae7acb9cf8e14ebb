//! A load test of `tavlei serve` on loopback: 50 games at once (against `random`, so what is timed
//! is the server, not an agent's thinking), each client playing, asking for the reply, reading
//! its game back and now and then undoing, for 30 s. No request may fail and no game may be lost
//! or differ from what its client played. Prints the requests per second and the latency of a
//! move (50th, 99th percentile, worst) and writes them as JSON where TAVLEI_LOAD_OUT says.
//! `make load-test` runs it; TAVLEI_LOAD_GAMES and TAVLEI_LOAD_SECONDS change its size.
//!
//! Its second test plays the same games beside hostile clients: 1,000 games created at once
//! (alpha-beta agents, whose tables must not be made before they search), clients posting
//! 3 MiB bodies, and clients that open connections and send their heads a byte at a time. It
//! reports the server's memory before, after the 1,000 games and at the end, the hostile
//! clients' outcomes, and the honest clients' latency beside them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "common/server.rs"]
mod server;
use server::Server;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Client {
    requests: u64,
    move_latencies: Vec<Duration>,
    failures: Vec<String>,
}

fn play_for(s: &Server, index: u64, until: Instant) -> Client {
    let mut c = Client {
        requests: 0,
        move_latencies: Vec::new(),
        failures: Vec::new(),
    };
    let mut fail = |what: String| c.failures.push(what);
    let (status, g) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "random", "seed": index})),
    );
    c.requests += 1;
    if status != 200 {
        fail(format!("new game: {status} {g}"));
        return c;
    }
    let id = g["id"].as_u64().expect("id");
    let mut expected: Vec<Value> = Vec::new();
    let mut state = index.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut game = g;
    while Instant::now() < until {
        if !game["end"].is_null() {
            let (status, g) = s.post(
                "/api/games",
                Some(json!({"variant": "brandubh", "agent": "random", "seed": state})),
            );
            c.requests += 1;
            if status != 200 {
                fail(format!("new game: {status} {g}"));
                break;
            }
            expected.clear();
            game = g;
            continue;
        }
        let id = game["id"].as_u64().unwrap_or(id);
        let legal = game["legal"].as_array().cloned().unwrap_or_default();
        if legal.is_empty() {
            fail(format!("game {id}: no legal move offered: {game}"));
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mv = legal[(state % legal.len() as u64) as usize]["name"].clone();
        let started = Instant::now();
        let (status, g) = s.post(&format!("/api/games/{id}/move"), Some(json!({"move": mv})));
        c.move_latencies.push(started.elapsed());
        c.requests += 1;
        if status != 200 {
            fail(format!("game {id} move {mv}: {status} {g}"));
            break;
        }
        let (status, g) = s.post(&format!("/api/games/{id}/reply"), None);
        c.requests += 1;
        if status != 200 {
            fail(format!("game {id} reply: {status} {g}"));
            break;
        }
        expected = g["plies"].as_array().cloned().unwrap_or_default();
        if state.is_multiple_of(5) && expected.len() >= 2 && g["end"].is_null() {
            let (status, u) = s.post(&format!("/api/games/{id}/undo"), None);
            c.requests += 1;
            if status != 200 {
                fail(format!("game {id} undo: {status} {u}"));
                break;
            }
            expected = u["plies"].as_array().cloned().unwrap_or_default();
            game = u;
        } else {
            game = g;
        }
        // the game as the server keeps it is the game as this client played it
        let (status, back) = s.get(&format!("/api/games/{id}"));
        c.requests += 1;
        if status != 200 || back["plies"].as_array() != Some(&expected) {
            fail(format!("game {id} read back differs: {status}"));
            break;
        }
    }
    c
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// Honest clients playing `games` games until `until`, each on a thread of its own.
fn play_all(s: &Server, games: u64, until: Instant) -> Vec<Client> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..games)
            .map(|i| scope.spawn(move || play_for(s, i + 1, until)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client"))
            .collect()
    })
}

/// What the honest clients did, as the report's JSON; the failures and the moves for the checks.
fn summary(clients: &[Client], games: u64, elapsed: f64) -> (Value, Vec<String>, usize) {
    let requests: u64 = clients.iter().map(|c| c.requests).sum();
    let failures: Vec<String> = clients.iter().flat_map(|c| c.failures.clone()).collect();
    let mut latencies: Vec<Duration> = clients
        .iter()
        .flat_map(|c| c.move_latencies.iter().copied())
        .collect();
    latencies.sort();
    let report = json!({
        "games_at_once": games,
        "seconds": elapsed,
        "requests": requests,
        "requests_per_second": requests as f64 / elapsed,
        "moves": latencies.len(),
        "move_latency_ms": {
            "p50": percentile(&latencies, 0.5),
            "p99": percentile(&latencies, 0.99),
            "max": percentile(&latencies, 1.0),
        },
        "failures": failures.len(),
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
    });
    (report, failures, latencies.len())
}

fn write_report(report: &Value, name: &str) {
    println!("{}", serde_json::to_string_pretty(report).expect("json"));
    if let Ok(out) = std::env::var(name) {
        std::fs::write(
            &out,
            serde_json::to_string_pretty(report).expect("json") + "\n",
        )
        .expect("report written");
    }
}

#[test]
#[ignore = "a 30-second load test: make load-test"]
fn fifty_games_at_once_lose_nothing() {
    let games = env_or("TAVLEI_LOAD_GAMES", 50);
    let seconds = env_or("TAVLEI_LOAD_SECONDS", 30);
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    let clients = play_all(&s, games, until);
    let elapsed = start.elapsed().as_secs_f64();
    let (report, failures, moves) = summary(&clients, games, elapsed);
    write_report(&report, "TAVLEI_LOAD_OUT");
    assert!(failures.is_empty(), "{failures:?}");
    assert!(moves as u64 >= games, "every client moved");
}

/// Posts 3 MiB bodies until `until`: how many were refused with 413, and any other answer.
fn post_huge_bodies(s: &Server, until: Instant) -> (u64, Vec<String>) {
    let huge = format!("{{\"variant\": \"{}\"}}", "x".repeat(3 << 20));
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json",
        s.address()
    );
    let (mut refused, mut other) = (0, Vec::new());
    while Instant::now() < until {
        match s.raw(&head, &huge) {
            (413, _) => refused += 1,
            (status, body) => other.push(format!("{status} {body}")),
        }
    }
    (refused, other)
}

/// Opens a connection and sends a request's head a byte a second: the seconds until the server
/// closed it (`None`: still open at `until`).
fn send_slowly(s: &Server, until: Instant) -> Option<f64> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(s.address()).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_millis(1000)))
        .ok()?;
    let head = format!("GET /api/variants HTTP/1.1\r\nHost: {}\r\n", s.address());
    for byte in head.bytes().cycle() {
        if Instant::now() >= until {
            return None;
        }
        if stream.write_all(&[byte]).is_err() {
            break;
        }
        let mut answer = [0u8; 64];
        match stream.read(&mut answer) {
            // closed (0 bytes, or an answer such as 408 before the close)
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break,
        }
    }
    Some(started.elapsed().as_secs_f64())
}

#[test]
#[ignore = "a 30-second load test beside hostile clients: make load-test"]
fn fifty_games_beside_hostile_clients_lose_nothing() {
    let games = env_or("TAVLEI_LOAD_GAMES", 50);
    let seconds = env_or("TAVLEI_LOAD_SECONDS", 30);
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start_with(dir.path(), &["--send-timeout", "2s"]);
    let idle_kib = s.resident_kib();

    // 1,000 alpha-beta games created at once, by 50 clients of 20 each
    let created = Instant::now();
    let made: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|_| {
                let s = &s;
                scope.spawn(move || {
                    (0..20)
                        .filter(|_| {
                            let new = json!({"variant": "copenhagen", "agent": "ab:t=1s"});
                            s.post("/api/games", Some(new)).0 == 200
                        })
                        .count() as u64
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client"))
            .collect()
    });
    let made: u64 = made.iter().sum();
    let creation_seconds = created.elapsed().as_secs_f64();
    let thousand_kib = s.resident_kib();

    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    let (clients, (refused, other), slow) = std::thread::scope(|scope| {
        let huge = scope.spawn(|| post_huge_bodies(&s, until));
        let slow: Vec<_> = (0..100)
            .map(|_| scope.spawn(|| send_slowly(&s, until)))
            .collect();
        let clients = play_all(&s, games, until);
        let slow: Vec<Option<f64>> = slow
            .into_iter()
            .map(|h| h.join().expect("a slow client"))
            .collect();
        (clients, huge.join().expect("the huge bodies"), slow)
    });
    let elapsed = start.elapsed().as_secs_f64();
    let end_kib = s.resident_kib();
    let (mut report, failures, moves) = summary(&clients, games, elapsed);
    let closed: Vec<f64> = slow.iter().flatten().copied().collect();
    report["hostile"] = json!({
        "games_created_at_once": made,
        "creation_seconds": creation_seconds,
        "resident_mib": {
            "idle": idle_kib.map(|k| k as f64 / 1024.0),
            "after_1000_games": thousand_kib.map(|k| k as f64 / 1024.0),
            "end": end_kib.map(|k| k as f64 / 1024.0),
        },
        "huge_bodies_refused_413": refused,
        "huge_bodies_otherwise": other.len(),
        "slow_clients": slow.len(),
        "slow_clients_cut_off": closed.len(),
        "slow_client_seconds_max": closed.iter().copied().fold(0.0, f64::max),
        "send_timeout_seconds": 2,
    });
    write_report(&report, "TAVLEI_LOAD_HOSTILE_OUT");
    assert!(failures.is_empty(), "{failures:?}");
    assert!(moves as u64 >= games, "every client moved");
    assert_eq!(made, 1000, "every game was made");
    assert!(refused > 0 && other.is_empty(), "{other:?}");
    assert_eq!(closed.len(), slow.len(), "every slow client was cut off");
}
