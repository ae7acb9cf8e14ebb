//! A load test of `tavlei serve` on loopback: 50 games at once (against `random`, so what is timed
//! is the server, not an agent's thinking), each client playing, asking for the reply, reading
//! its game back and now and then undoing, for 30 s. No request may fail and no game may be lost
//! or differ from what its client played. Prints the requests per second and the latency of a
//! move (50th, 99th percentile, worst) and writes them as JSON where TAVLEI_LOAD_OUT says.
//! `make load-test` runs it; TAVLEI_LOAD_GAMES and TAVLEI_LOAD_SECONDS change its size.

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

#[test]
#[ignore = "a 30-second load test: make load-test"]
fn fifty_games_at_once_lose_nothing() {
    let games = env_or("TAVLEI_LOAD_GAMES", 50);
    let seconds = env_or("TAVLEI_LOAD_SECONDS", 30);
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    let clients: Vec<Client> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..games)
            .map(|i| {
                let s = &s;
                scope.spawn(move || play_for(s, i + 1, until))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client"))
            .collect()
    });
    let elapsed = start.elapsed().as_secs_f64();
    let requests: u64 = clients.iter().map(|c| c.requests).sum();
    let failures: Vec<&String> = clients.iter().flat_map(|c| &c.failures).collect();
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
    println!("{}", serde_json::to_string_pretty(&report).expect("json"));
    if let Ok(out) = std::env::var("TAVLEI_LOAD_OUT") {
        std::fs::write(
            &out,
            serde_json::to_string_pretty(&report).expect("json") + "\n",
        )
        .expect("report written");
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert!(latencies.len() as u64 >= games, "every client moved");
}
