//! `tavlei serve`'s page in a real browser, used as a person would: headless Chromium, driven over
//! its DevTools protocol, starts a Brandubh game against `ab:t=50ms`, clicks legal moves until
//! the game ends or 40 plies, tries an illegal move and sees the reason, reloads and finds its
//! game, then opens a balance study's cell and steps through a game with the arrow key. Each
//! step's screenshot must differ from the one before, and the page must log no error. Run by
//! `make test-browser` (part of `make test`), which installs Chromium and names it in
//! TAVLEI_CHROMIUM; `TAVLEI_SCREENSHOT=FILE` keeps a screenshot of the game for the docs.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

#[path = "common/server.rs"]
mod server;
use server::Server;

/// A headless Chromium and one page's DevTools connection.
struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    /// Exceptions and console errors the page reported.
    errors: Vec<String>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    fn start() -> Browser {
        let binary = std::env::var("TAVLEI_CHROMIUM")
            .expect("TAVLEI_CHROMIUM names the browser; run this test through `make test-browser`");
        let profile = tempfile::tempdir().expect("a profile directory");
        let mut child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-port=0",
                "--window-size=1100,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts chromium");
        // the DevTools address is on stderr; the rest of stderr is drained so it never blocks
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let browser_url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("chromium's DevTools address");
        let port = browser_url
            .trim_start_matches("ws://")
            .split(['/', ':'])
            .nth(1)
            .expect("a port")
            .to_string();
        let targets: Value = ureq::get(format!("http://127.0.0.1:{port}/json/list"))
            .call()
            .expect("the targets")
            .body_mut()
            .read_json()
            .expect("json");
        let page = targets
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let (socket, _) = tungstenite::connect(page).expect("the page's DevTools socket");
        let mut b = Browser {
            child,
            socket,
            next: 0,
            errors: Vec::new(),
            _profile: profile,
        };
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    /// Sends a command and waits for its answer, noting the page's errors on the way.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let text = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(Message::text(text)).expect("sent");
        loop {
            let message = self.socket.read().expect("a DevTools message");
            let Message::Text(text) = message else {
                continue;
            };
            let v: Value = serde_json::from_str(text.as_str()).expect("json");
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            match v["method"].as_str() {
                Some("Runtime.exceptionThrown") => self.errors.push(v["params"].to_string()),
                Some("Runtime.consoleAPICalled") if v["params"]["type"] == "error" => {
                    self.errors.push(v["params"].to_string())
                }
                Some("Log.entryAdded") if v["params"]["entry"]["level"] == "error" => {
                    let entry = &v["params"]["entry"];
                    // a 4xx answer the page asked for (an illegal move) is logged as a
                    // failed resource; that is the API working, not a page error
                    let url = entry["url"].as_str().unwrap_or("");
                    if !(entry["source"] == "network" && url.contains("/api/")) {
                        self.errors.push(entry.to_string());
                    }
                }
                _ => {}
            }
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Waits (up to 30 s) until `condition`, a script expression, is true.
    fn wait(&mut self, condition: &str) {
        let start = Instant::now();
        while self.eval(condition) != json!(true) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "timed out waiting for {condition}; body: {}",
                self.eval("JSON.stringify(document.body.dataset)")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn data(&mut self, name: &str) -> String {
        self.eval(&format!("document.body.dataset.{name} || ''"))
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// A mouse click at the centre of the element `selector` finds.
    fn click(&mut self, selector: &str) {
        let rect = self.eval(&format!(
            "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        let (x, y) = (rect[0].as_f64().expect("x"), rect[1].as_f64().expect("y"));
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    fn click_square(&mut self, sq: u64) {
        self.click(&format!("#board rect[data-sq=\"{sq}\"]"));
    }

    fn key(&mut self, key: &str, code: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code}),
            );
        }
    }

    fn screenshot(&mut self) -> String {
        self.call("Page.captureScreenshot", json!({"format": "png"}))["data"]
            .as_str()
            .expect("png data")
            .to_string()
    }

    fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait("document.readyState === 'complete' && document.body.dataset.ready === '1'");
    }
}

/// splitmix64: the test's own choices, fixed by its seed.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
#[ignore = "needs Chromium: make test-browser"]
fn a_person_plays_reloads_and_browses_a_study_in_the_browser() {
    let dir = tempfile::tempdir().expect("temp dir");
    server::tiny_study(dir.path());
    let s = Server::start(dir.path());
    let mut b = Browser::start();
    b.open(&format!("{}/", s.base));

    // a new Brandubh game against alpha-beta at 50 ms a move, the person attacking
    b.eval("document.getElementById('variant').value = 'brandubh'");
    b.click("#agent");
    b.eval("document.getElementById('agent').select()");
    b.call("Input.insertText", json!({"text": "ab:t=50ms"}));
    b.click("#start");
    b.wait("document.body.dataset.status === 'person'");
    let id = b.data("game");
    let mut shot = b.screenshot();

    // clicks: a piece, then one of its targets, until the end or 40 plies
    let mut seed = 7u64;
    let mut tried_illegal = false;
    let mut kept = None;
    loop {
        b.wait("['person', 'over'].includes(document.body.dataset.status)");
        let plies: u64 = b.data("plies").parse().expect("plies");
        if b.data("status") == "over" || plies >= 40 {
            break;
        }
        let (_, game) = s.get(&format!("/api/games/{id}"));
        let legal = game["legal"].as_array().expect("legal").clone();
        assert!(!legal.is_empty(), "{game}");
        let mv = &legal[(next(&mut seed) % legal.len() as u64) as usize];
        let (from, to) = (
            mv["from"].as_u64().expect("from"),
            mv["to"].as_u64().expect("to"),
        );
        if !tried_illegal {
            // an empty square this piece cannot reach: the reason is shown, nothing is played
            let cells = game["cells"].as_str().expect("cells").as_bytes().to_vec();
            let unreachable = (0..cells.len() as u64).find(|&sq| {
                cells[sq as usize] == b'.'
                    && !legal.iter().any(|m| m["from"] == from && m["to"] == sq)
            });
            let sq = unreachable.expect("an unreachable square");
            b.click_square(from);
            b.click_square(sq);
            b.wait("document.body.dataset.error !== ''");
            let error = b.data("error");
            assert!(error.starts_with("illegal move"), "{error}");
            assert_eq!(b.data("plies"), plies.to_string());
            tried_illegal = true;
        }
        b.click_square(from);
        b.wait("document.querySelectorAll('#board .target').length > 0");
        b.click_square(to);
        b.wait(&format!(
            "Number(document.body.dataset.plies) > {plies} && document.body.dataset.status !== 'agent'"
        ));
        let now = b.screenshot();
        assert_ne!(now, shot, "the board changed after ply {plies}");
        if kept.is_none() || plies < 6 {
            // for the docs: a game under way, the agent's expected line on the board
            kept = Some(now.clone());
        }
        shot = now;
    }
    let plies = b.data("plies");
    assert!(plies.parse::<u64>().expect("plies") >= 2, "{plies}");
    if let (Ok(file), Some(png)) = (std::env::var("TAVLEI_SCREENSHOT"), kept) {
        std::fs::write(&file, decode_base64(&png)).expect("screenshot written");
    }

    // a reload finds the same game at the same ply
    b.call("Page.reload", json!({}));
    b.wait("document.readyState === 'complete' && document.body.dataset.ready === '1'");
    assert_eq!(b.data("game"), id);
    assert_eq!(b.data("plies"), plies);

    // the studies: a cell's first game, stepped through with the arrow key
    b.click("#to-studies");
    b.wait("document.querySelectorAll('#study-table tr.cell').length === 1");
    b.click("#study-table tr.cell");
    b.wait(
        "!document.getElementById('study-game').hidden && document.body.dataset.studyPly === '0'",
    );
    let before = b.screenshot();
    b.key("ArrowRight", 39);
    b.wait("document.body.dataset.studyPly === '1'");
    assert_ne!(b.screenshot(), before, "the study's board moved on");

    assert_eq!(b.data("errors"), "", "script errors");
    assert!(
        b.errors.is_empty(),
        "the page logged errors: {:?}",
        b.errors
    );
}

/// Standard base64 (DevTools' screenshots) to bytes.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            _ => 63,
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}
