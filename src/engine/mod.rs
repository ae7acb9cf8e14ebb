//! Engines other programs talk to: a player that answers one position at a time, and the line
//! protocols that drive it (the Hnefatafl Text Protocol of hnefatafl.org, OpenTafl's engine
//! protocol), and the analysis a search gives them.

pub mod analysis;
pub mod analyze;
pub mod htp;
pub mod otep;
pub mod player;

use std::io::BufRead;

/// The lines of a peer's input, bytes that are not UTF-8 replaced (`�`) so that the protocol
/// answers them with an error instead of ending the session.
pub fn lossy_lines(mut input: impl BufRead) -> impl Iterator<Item = std::io::Result<String>> {
    let mut buf = Vec::new();
    std::iter::from_fn(move || {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(_) => {
                let text = String::from_utf8_lossy(&buf);
                Some(Ok(text.trim_end_matches(['\n', '\r']).to_string()))
            }
            Err(e) => Some(Err(e)),
        }
    })
}
