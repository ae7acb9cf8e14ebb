//! `tavlei serve` against clients that mean harm or behave badly, over raw TCP so that every
//! header is the test's own: foreign hosts (DNS rebinding) and origins (cross-site posts), paths
//! smuggled into a study's query, huge and slow bodies, slow heads, searches that ask for hours.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server::{self, Server};

#[test]
fn foreign_hosts_and_pages_are_refused_and_the_servers_own_page_is_served() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let own = s.address().to_string();
    let port = own.rsplit(':').next().expect("a port").to_string();
    let new_game = json!({"variant": "brandubh", "agent": "random"}).to_string();
    let post = |host: &str, origin: Option<&str>| {
        let origin = origin.map_or(String::new(), |o| format!("\r\nOrigin: {o}"));
        let head = format!(
            "POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json{origin}"
        );
        s.raw(&head, &new_game)
    };
    // a page whose own name resolves to 127.0.0.1 reads nothing
    let (status, body) = s.raw(
        &format!("GET /api/variants HTTP/1.1\r\nHost: rebound.example:{port}"),
        "",
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("--allow-host rebound.example"), "{body}");
    // another site's page cannot start a game, nor another page on this machine
    for origin in ["https://evil.example", "http://localhost:1"] {
        let (status, body) = post(&own, Some(origin));
        assert_eq!(status, 403, "{origin}: {body}");
        assert!(body.contains("--allow-origin"), "{body}");
    }
    assert_eq!(s.get("/api/games/1").0, 404, "no game was made");
    // the server's own page, under each loopback name, and a tool without an origin
    for (host, origin) in [
        (own.clone(), Some(format!("http://{own}"))),
        (
            format!("localhost:{port}"),
            Some(format!("http://localhost:{port}")),
        ),
        (own.clone(), None),
    ] {
        let (status, body) = post(&host, origin.as_deref());
        assert_eq!(status, 200, "{host} {origin:?}: {body}");
    }

    // allowed by name, for a server behind a public name or a proxy
    let public = Server::start_with(
        dir.path(),
        &[
            "--allow-host",
            "tafl.example.org",
            "--allow-origin",
            "https://tafl.example.org",
        ],
    );
    let (status, body) = public.raw(
        "POST /api/games HTTP/1.1\r\nHost: tafl.example.org\r\nOrigin: https://tafl.example.org\r\nContent-Type: application/json",
        &new_game,
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_study_query_never_names_a_file_and_a_studys_own_variant_is_served() {
    let dir = tempfile::tempdir().expect("temp dir");
    let study = server::tiny_study(dir.path());
    // a study of a variant file of the user's own (Brandubh under another name)
    let rules = std::fs::read_to_string("configs/variants/brandubh.toml")
        .expect("the preset's file")
        .replace("name = \"brandubh\"", "name = \"my_brandubh\"");
    let file = dir.path().join("mine.toml");
    std::fs::write(&file, rules).expect("written");
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args([
            "balance", "--agent", "random", "--games", "2", "--seed", "2",
        ])
        .arg("--variant")
        .arg(&file)
        .arg("--out")
        .arg(dir.path().join("mine"))
        .output()
        .expect("balance runs");
    assert!(made.status.success(), "{made:?}");
    let s = Server::start(dir.path());
    let q = |text: &str| text.replace('/', "%2F");
    let game = |dir: &str, variant: &str| {
        s.get(&format!(
            "/api/studies/game?dir={}&variant={}&agent=random&game=0",
            q(dir),
            q(variant)
        ))
    };
    let name = study.display().to_string();
    // a file that exists, one that does not, one without end, a path out of the study: one
    // answer, which says nothing of any file
    let answers: Vec<(u16, Value)> = ["/etc/passwd", "/etc/nonexistent", "/dev/zero", "../../x"]
        .iter()
        .map(|path| game(&name, path))
        .collect();
    for (status, body) in &answers {
        assert_eq!(*status, 404, "{body}");
        let error = body["error"].as_str().expect("an error");
        assert!(error.contains("has no cell"), "{error}");
        assert!(
            !error.contains("line 1") && !error.contains("No such file"),
            "{error}"
        );
    }
    let (status, served) = game(
        &dir.path().join("mine").display().to_string(),
        "my_brandubh",
    );
    assert_eq!(status, 200, "{served}");
    assert_eq!(served["board"]["size"], 7);
    assert_eq!(game(&name, "brandubh").0, 200);
}

#[test]
fn huge_bodies_slow_clients_and_endless_searches_are_cut_off() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start_with(
        dir.path(),
        &["--send-timeout", "1s", "--max-move-time", "1s"],
    );
    let own = s.address().to_string();
    // a body over the cap (1 MiB) is refused before any handler reads it
    let huge = format!("{{\"variant\": \"{}\"}}", "x".repeat(3 << 20));
    let (status, body) = s.raw(
        &format!("POST /api/games HTTP/1.1\r\nHost: {own}\r\nContent-Type: application/json"),
        &huge,
    );
    assert_eq!(status, 413, "{body}");

    // a body that never arrives in full: answered 408 after the send timeout
    let mut slow_body = TcpStream::connect(&own).expect("connects");
    slow_body
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    let started = Instant::now();
    write!(
        slow_body,
        "POST /api/games HTTP/1.1\r\nHost: {own}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"vari"
    )
    .expect("sends");
    let mut answer = String::new();
    let _ = slow_body.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(15));

    // a head that never ends: the connection is closed after the send timeout
    let mut slow_head = TcpStream::connect(&own).expect("connects");
    slow_head
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    let started = Instant::now();
    write!(slow_head, "GET /api/variants HTTP/1.1\r\nHost: {own}\r\n").expect("sends");
    let mut rest = Vec::new();
    let closed = slow_head.read_to_end(&mut rest);
    assert!(
        closed.is_ok() && started.elapsed() < Duration::from_secs(15),
        "{closed:?} after {:?}",
        started.elapsed()
    );

    // a depth with no clock, on the largest common board: stopped by the server's clock
    let (status, g) = s.post(
        "/api/games",
        Some(json!({"variant": "copenhagen", "agent": "ab:12", "side": "defenders"})),
    );
    assert_eq!(status, 200, "{g}");
    let id = g["id"].as_u64().expect("an id");
    let started = Instant::now();
    let (status, g) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(status, 200, "{g}");
    let depth = g["analysis"]["depth"].as_u64().expect("a depth");
    assert!(depth < 12, "depth {depth}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // and still serving
    assert_eq!(s.get("/api/variants").0, 200);
}
