//! How much one move's search may do, for either search: a tree search counts simulations, an
//! alpha-beta search reads the same count as a depth (`alphabeta::Limit::from`); a time is a time
//! for both. Agent specs write a budget as `200` or `t=100ms`.

use std::time::Duration;

/// How much one move's search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Simulations after the root's expansion (alpha-beta: its depth).
    Nodes(u32),
    /// Wall-clock time of the search (at least one simulation is run).
    Time(Duration),
}

impl Budget {
    pub fn nodes(self) -> Option<u32> {
        match self {
            Budget::Nodes(n) => Some(n),
            Budget::Time(_) => None,
        }
    }

    /// `200` or `t=100ms`, as agent specs write it.
    pub fn describe(self) -> String {
        match self {
            Budget::Nodes(n) => n.to_string(),
            Budget::Time(t) => format!("t={}", format_duration(t)),
        }
    }
}

/// `100ms`, `2s` or `1.5s`.
pub fn format_duration(t: Duration) -> String {
    let ms = t.as_millis();
    if ms.is_multiple_of(1000) && ms > 0 {
        format!("{}s", ms / 1000)
    } else if t.as_nanos().is_multiple_of(1_000_000) {
        format!("{ms}ms")
    } else {
        format!("{}us", t.as_micros())
    }
}

/// Parses `100ms`, `2s`, `1.5s` or `500us` (a positive duration).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else {
        return None;
    };
    let value: f64 = number.parse().ok()?;
    // a duration too long to hold (`1e300s`) is refused, not a panic
    (value > 0.0)
        .then(|| Duration::try_from_secs_f64(value * scale).ok())
        .flatten()
}
