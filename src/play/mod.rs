//! A person against an agent at a terminal (`tavlei play`): the session (moves in OpenTafl
//! notation, undo, hints, saving a record), the commands it reads, the board it draws and the
//! words it uses for outcomes and searches.

pub mod board;
pub mod command;
pub mod game;
pub mod session;
pub mod words;

pub use session::{PlayOptions, Session};
