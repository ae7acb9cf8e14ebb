//! Results people can read: terminal tables and SVG plots (written by hand, no plotting crate).

pub mod plot;
pub mod table;
