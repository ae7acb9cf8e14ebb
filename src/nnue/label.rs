//! Labelling stored games (filled in next).
