//! Units of work a cluster hands out: a half-open range `K..L` of self-play shards or match
//! pairs, or of the game ids of one study of a balance run. A unit computed alone writes the bytes the whole run
//! writes for it, since every game's random numbers follow from the seed and its own index.

use std::ops::Range;
use std::str::FromStr;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum UnitsError {
    #[error("`{0}` is not a unit range: write K..L (K < L) or K")]
    Malformed(String),
    #[error("`{0}` is not a balance unit: write STUDY:K..L, e.g. 0:8..16")]
    MalformedStudy(String),
}

/// Units `start..end` (half-open, like a Rust range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Units {
    pub start: u64,
    pub end: u64,
}

impl Units {
    pub fn range(&self) -> Range<u64> {
        self.start..self.end
    }
}

impl FromStr for Units {
    type Err = UnitsError;

    fn from_str(text: &str) -> Result<Units, UnitsError> {
        let bad = || UnitsError::Malformed(text.to_string());
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
        let (start, end) = match text.split_once("..") {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let k = number(text)?;
                (k, k.checked_add(1).ok_or_else(bad)?)
            }
        };
        if start >= end {
            return Err(bad());
        }
        Ok(Units { start, end })
    }
}

/// Games `games` of study `study` (a variant at one level, in the order `balance --plan` lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StudyUnits {
    pub study: usize,
    pub games: Units,
}

impl FromStr for StudyUnits {
    type Err = UnitsError;

    fn from_str(text: &str) -> Result<StudyUnits, UnitsError> {
        let bad = || UnitsError::MalformedStudy(text.to_string());
        let (study, games) = text.split_once(':').ok_or_else(bad)?;
        Ok(StudyUnits {
            study: study.trim().parse().map_err(|_| bad())?,
            games: games.parse().map_err(|_| bad())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_single_units_parse() {
        assert_eq!("3..7".parse(), Ok(Units { start: 3, end: 7 }));
        assert_eq!("5".parse(), Ok(Units { start: 5, end: 6 }));
        assert_eq!(
            "2:8..16".parse(),
            Ok(StudyUnits {
                study: 2,
                games: Units { start: 8, end: 16 }
            })
        );
    }

    #[test]
    fn empty_reversed_and_malformed_ranges_are_errors() {
        for text in ["7..7", "7..3", "a..3", "1..", "", "-1..2"] {
            assert_eq!(
                text.parse::<Units>(),
                Err(UnitsError::Malformed(text.to_string())),
                "{text}"
            );
        }
        for text in ["3..5", "x:3..5", "1:5..2"] {
            assert_eq!(
                text.parse::<StudyUnits>(),
                Err(UnitsError::MalformedStudy(text.to_string())),
                "{text}"
            );
        }
    }
}
