//! A `tavlei serve` on a free loopback port for a test, and a small HTTP client for it.
// each test file that includes it uses part of it
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A running server, stopped when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    agent: ureq::Agent,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `tavlei serve --port 0` with `studies` as the only place studies are looked for.
    pub fn start(studies: &Path) -> Server {
        Server::start_with(studies, &[])
    }

    /// The same with more options (`--send-timeout 1s`).
    pub fn start_with(studies: &Path, options: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tavlei"))
            .args(["serve", "--port", "0", "--studies"])
            .arg(studies)
            .args(options)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starts tavlei serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address line");
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        Server { child, base, agent }
    }

    fn answer(mut response: ureq::http::Response<ureq::Body>) -> (u16, Value) {
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a body");
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    /// The server's `host:port`.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// The server process's resident memory in KiB (Linux), for the load test's figures.
    pub fn resident_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    }

    /// Sends `head` (its request line and headers, without the blank line) and `body` over a
    /// connection of its own, every header the caller's, and returns the status and the body of
    /// the answer (status 0 when none came).
    pub fn raw(&self, head: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.address()).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a timeout");
        let request = format!(
            "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        // the server may answer and close before a huge body is all sent
        let _ = stream.write_all(request.as_bytes());
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        let status = answer
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let body = answer
            .split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string();
        (status, body)
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        Self::answer(
            self.agent
                .get(format!("{}{path}", self.base))
                .call()
                .expect("GET"),
        )
    }

    pub fn post(&self, path: &str, body: Option<Value>) -> (u16, Value) {
        let request = self.agent.post(format!("{}{path}", self.base));
        let response = match body {
            Some(b) => request.send_json(b),
            None => request.send_empty(),
        };
        Self::answer(response.expect("POST"))
    }

    pub fn post_text(&self, path: &str, content_type: &str, body: &str) -> (u16, Value) {
        Self::answer(
            self.agent
                .post(format!("{}{path}", self.base))
                .header("Content-Type", content_type)
                .send(body)
                .expect("POST"),
        )
    }
}

/// A balance study of 4 random Brandubh games in `dir/study` (what `tavlei balance` writes).
pub fn tiny_study(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("study");
    let made = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["balance", "--variant", "brandubh", "--agent", "random"])
        .args(["--games", "4", "--seed", "2", "--out"])
        .arg(&out)
        .output()
        .expect("balance runs");
    assert!(made.status.success(), "{made:?}");
    out
}
