//! Results people can read: terminal tables and charts (SVG and PNG).

pub mod plot;
pub mod table;
