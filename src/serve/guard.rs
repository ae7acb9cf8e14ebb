//! Which clients the server answers. Listening on loopback keeps other machines out, but not the
//! pages open in this machine's browser: a page elsewhere can post to `127.0.0.1` (cross-site
//! requests), or get its own name resolved to `127.0.0.1` and read the answers (DNS rebinding).
//! So every request must name an allowed host in its `Host` header, and a request that changes
//! something, when a browser sends it, must come from an allowed origin: the server's own page.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::api::ApiError;

/// The host names and origins the server answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Allowed {
    /// Host names (no port) a request's `Host` may name; `*` allows any.
    hosts: Vec<String>,
    /// Origins (`scheme://host[:port]`) a browser's state-changing request may come from.
    origins: Vec<String>,
}

/// The names of this machine's loopback interface.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl Allowed {
    /// For a server on `addr`: the loopback names, `addr`'s own address when it is a specific
    /// one, and the names and origins given (`--allow-host`, `--allow-origin`, for a server
    /// behind a public name or a proxy). The server's own page, at any allowed host on `addr`'s
    /// port, is an allowed origin.
    pub fn new(addr: SocketAddr, hosts: &[String], origins: &[String]) -> Allowed {
        let mut names: Vec<String> = LOOPBACK.iter().map(|h| h.to_string()).collect();
        let ip = addr.ip();
        if !ip.is_unspecified() && !ip.is_loopback() {
            names.push(match ip {
                std::net::IpAddr::V4(v4) => v4.to_string(),
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            });
        }
        names.extend(hosts.iter().map(|h| h.to_ascii_lowercase()));
        let port = addr.port();
        let mut allowed_origins: Vec<String> = names
            .iter()
            .filter(|n| n.as_str() != "*")
            .flat_map(|n| {
                let mut own = vec![format!("http://{n}:{port}")];
                if port == 80 {
                    own.push(format!("http://{n}"));
                }
                own
            })
            .collect();
        allowed_origins.extend(
            origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase()),
        );
        Allowed {
            hosts: names,
            origins: allowed_origins,
        }
    }

    /// Why a request with these headers is refused, or `None` when it is answered.
    pub fn refusal(&self, method: &Method, headers: &HeaderMap) -> Option<String> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(host_name);
        match host {
            None => return Some("the request names no host (`Host` header)".into()),
            Some(name) if !self.host_allowed(&name) => {
                return Some(format!(
                    "host `{name}` is not served here; start the server with `--allow-host {name}` to serve it"
                ))
            }
            Some(_) => {}
        }
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return None;
        }
        // a browser names the page a request comes from; scripts and tools name none
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
            if !self.origins.contains(&origin) {
                return Some(format!(
                    "requests from the page `{origin}` are not accepted; start the server with `--allow-origin {origin}` to accept them"
                ));
            }
            return None;
        }
        let site = headers
            .get("sec-fetch-site")
            .and_then(|s| s.to_str().ok())
            .unwrap_or("none");
        if site == "cross-site" || site == "same-site" {
            return Some(format!(
                "a {site} request from a browser without an origin is not accepted"
            ));
        }
        None
    }

    fn host_allowed(&self, name: &str) -> bool {
        self.hosts.iter().any(|h| h == "*" || h == name)
    }
}

/// The host name of a `Host` header, lowercase, without its port (`[::1]:8080` → `[::1]`).
fn host_name(value: &str) -> String {
    let value = value.trim().to_ascii_lowercase();
    if value.starts_with('[') {
        return match value.find(']') {
            Some(end) => value[..=end].to_string(),
            None => value,
        };
    }
    match value.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name.to_string(),
        _ => value,
    }
}

/// Answers 403, naming what is wrong, for a request from a host or origin not allowed.
pub async fn only_allowed(
    State(allowed): State<Allowed>,
    request: Request,
    next: Next,
) -> Response {
    match allowed.refusal(request.method(), request.headers()) {
        Some(why) => ApiError::new(StatusCode::FORBIDDEN, why).into_response(),
        None => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.insert(*name, value.parse().expect("a header value"));
        }
        h
    }

    fn loopback() -> Allowed {
        Allowed::new("127.0.0.1:8080".parse().expect("an address"), &[], &[])
    }

    #[test]
    fn the_host_must_be_a_loopback_name_or_one_allowed() {
        let a = loopback();
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "LOCALHOST",
        ] {
            assert_eq!(
                a.refusal(&Method::GET, &headers(&[("host", host)])),
                None,
                "{host}"
            );
        }
        // a name an attacker resolves to 127.0.0.1 (DNS rebinding)
        let why = a
            .refusal(&Method::GET, &headers(&[("host", "evil.example:8080")]))
            .expect("refused");
        assert!(
            why.contains("`evil.example`") && why.contains("--allow-host"),
            "{why}"
        );
        assert!(
            a.refusal(&Method::GET, &HeaderMap::new()).is_some(),
            "no Host"
        );
        let public = Allowed::new(
            "0.0.0.0:80".parse().expect("an address"),
            &["tafl.example.org".to_string()],
            &[],
        );
        assert_eq!(
            public.refusal(&Method::GET, &headers(&[("host", "tafl.example.org")])),
            None
        );
        assert!(public
            .refusal(&Method::GET, &headers(&[("host", "10.0.0.5")]))
            .is_some());
        let own_ip = Allowed::new("192.0.2.7:8080".parse().expect("an address"), &[], &[]);
        assert_eq!(
            own_ip.refusal(&Method::GET, &headers(&[("host", "192.0.2.7:8080")])),
            None
        );
        let any = Allowed::new(
            "0.0.0.0:8080".parse().expect("an address"),
            &["*".to_string()],
            &[],
        );
        assert_eq!(
            any.refusal(&Method::GET, &headers(&[("host", "whatever")])),
            None
        );
    }

    #[test]
    fn a_change_from_a_browser_must_come_from_the_servers_own_page() {
        let a = loopback();
        let post = |pairs: &[(&'static str, &str)]| a.refusal(&Method::POST, &headers(pairs));
        let host = ("host", "127.0.0.1:8080");
        assert_eq!(post(&[host, ("origin", "http://127.0.0.1:8080")]), None);
        assert_eq!(post(&[host, ("origin", "http://localhost:8080")]), None);
        // another page on this machine (another port) and a page elsewhere
        for origin in ["http://localhost:3000", "https://evil.example", "null"] {
            let why = post(&[host, ("origin", origin)]).expect("refused");
            assert!(why.contains("--allow-origin"), "{origin}: {why}");
        }
        // reads are not changes: the browser keeps a cross-origin answer from the page
        assert_eq!(
            a.refusal(
                &Method::GET,
                &headers(&[host, ("origin", "https://evil.example")])
            ),
            None
        );
        // a tool sends no origin; a browser's cross-site request without one is refused
        assert_eq!(post(&[host]), None);
        assert!(post(&[host, ("sec-fetch-site", "cross-site")]).is_some());
        assert_eq!(post(&[host, ("sec-fetch-site", "same-origin")]), None);
        let proxied = Allowed::new(
            "127.0.0.1:8080".parse().expect("an address"),
            &["tafl.example.org".to_string()],
            &["https://tafl.example.org/".to_string()],
        );
        assert_eq!(
            proxied.refusal(
                &Method::POST,
                &headers(&[
                    ("host", "tafl.example.org"),
                    ("origin", "https://tafl.example.org")
                ])
            ),
            None
        );
    }
}
