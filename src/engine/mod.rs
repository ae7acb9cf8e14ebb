//! Engines other programs talk to: a player that answers one position at a time, and the line
//! protocols that drive it (the Hnefatafl Text Protocol of hnefatafl.org).

pub mod htp;
pub mod player;
