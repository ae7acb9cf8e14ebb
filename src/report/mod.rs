//! Results people can read: terminal tables, charts and board pictures (SVG and PNG).

pub mod board;
pub mod canvas;
pub mod plot;
pub mod table;
pub mod training;
pub mod viewer;
