//! Engines other programs talk to: a player that answers one position at a time, and the line
//! protocols that drive it (the Hnefatafl Text Protocol of hnefatafl.org, OpenTafl's engine
//! protocol), and the analysis a search gives them.

pub mod analysis;
pub mod analyze;
pub mod htp;
pub mod otep;
pub mod player;
