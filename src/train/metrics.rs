//! Training metrics: accumulated per interval, written to `metrics.csv`, plotted at the end.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::store::{self, StoreError};

pub const HEADER: &str = "step,split,policy_loss,value_loss,policy_accuracy,value_sign_accuracy,learning_rate,samples_per_s";

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub samples: f64,
    pub policy_loss: f64,
    /// The total weight of the value targets that count (each sample's weight: 0 where its game
    /// is left out, `TrainConfig::value_leave_out`; its side's weight, `value_side_balance`).
    pub value_target_weight: f64,
    pub value_loss: f64,
    pub policy_hits: f64,
    pub sign_hits: f64,
    pub sign_count: f64,
}

impl Totals {
    pub fn add(&mut self, other: &Totals) {
        self.samples += other.samples;
        self.policy_loss += other.policy_loss;
        self.value_target_weight += other.value_target_weight;
        self.value_loss += other.value_loss;
        self.policy_hits += other.policy_hits;
        self.sign_hits += other.sign_hits;
        self.sign_count += other.sign_count;
    }

    pub fn policy_loss(&self) -> f64 {
        self.policy_loss / self.samples.max(1.0)
    }

    /// The weighted mean over the samples whose value counts; NaN when none did.
    pub fn value_loss(&self) -> f64 {
        if self.value_target_weight == 0.0 {
            f64::NAN
        } else {
            self.value_loss / self.value_target_weight
        }
    }

    pub fn policy_accuracy(&self) -> f64 {
        self.policy_hits / self.samples.max(1.0)
    }

    pub fn value_sign_accuracy(&self) -> f64 {
        if self.sign_count == 0.0 {
            f64::NAN
        } else {
            self.sign_hits / self.sign_count
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub step: u64,
    pub split: String,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub policy_accuracy: f64,
    pub value_sign_accuracy: f64,
    pub learning_rate: f64,
    pub samples_per_s: f64,
}

impl Row {
    pub fn new(step: u64, split: &str, t: &Totals, learning_rate: f64, samples_per_s: f64) -> Row {
        Row {
            step,
            split: split.into(),
            policy_loss: t.policy_loss(),
            value_loss: t.value_loss(),
            policy_accuracy: t.policy_accuracy(),
            value_sign_accuracy: t.value_sign_accuracy(),
            learning_rate,
            samples_per_s,
        }
    }

    /// The row as one CSV line (no newline), fields in `HEADER`'s order.
    fn csv(&self) -> String {
        let mut out = csv::WriterBuilder::new()
            .has_headers(false)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        out.serialize(self)
            .and_then(|()| out.flush().map_err(csv::Error::from))
            .expect("a row of numbers and a split name serialises");
        let bytes = out.into_inner().expect("the row was flushed");
        String::from_utf8(bytes)
            .expect("the csv writer writes UTF-8")
            .trim_end()
            .to_string()
    }

    fn parse(line: &str) -> Result<Row, String> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let mut headers = csv::StringRecord::new();
        for name in HEADER.split(',') {
            headers.push_field(name);
        }
        let record = reader
            .records()
            .next()
            .ok_or_else(|| "an empty row".to_string())?
            .map_err(|e| e.to_string())?;
        if record.len() != headers.len() {
            return Err(format!(
                "{} fields, a metrics row has {}",
                record.len(),
                headers.len()
            ));
        }
        record
            .deserialize(Some(&headers))
            .map_err(|e| match e.kind() {
                csv::ErrorKind::Deserialize { err, .. } => match err.field() {
                    Some(i) => format!(
                        "field {} ({}) `{}`: {}",
                        i + 1,
                        &headers[i as usize],
                        &record[i as usize],
                        err.kind()
                    ),
                    None => err.to_string(),
                },
                _ => e.to_string(),
            })
    }
}

/// The rows of a metrics file (none if it does not exist). A torn last line is cut off; any other
/// line that is not a row is an error naming it.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, StoreError> {
    let mut lines = store::read_lines(path)?;
    match lines.first() {
        Some((_, first)) if first == HEADER => {
            lines.remove(0);
        }
        Some((line, _)) => {
            return Err(StoreError::BadLine {
                path: path.to_path_buf(),
                line: *line,
                message: format!("expected the header `{HEADER}`"),
            })
        }
        None => {}
    }
    store::parse_lines(path, &lines, Row::parse)
}

/// Rewrites the file with the rows up to `step` (after a resume the later ones are redone); a
/// file that does not read whole is an error, and is left as it is.
pub fn truncate_after(path: &Path, step: u64) -> Result<(), StoreError> {
    let rows: Vec<Row> = read_rows(path)?
        .into_iter()
        .filter(|r| r.step <= step)
        .collect();
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text += &r.csv();
        text.push('\n');
    }
    Ok(atomic::write(path, &text)?)
}

pub fn append(path: &Path, row: &Row) -> std::io::Result<()> {
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    if new {
        writeln!(f, "{HEADER}")?;
    }
    writeln!(f, "{}", row.csv())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row {
            step: 40,
            split: "validation".into(),
            policy_loss: 2.125,
            value_loss: 0.5,
            policy_accuracy: 0.375,
            value_sign_accuracy: f64::NAN,
            learning_rate: 2e-3,
            samples_per_s: 1234.5,
        }
    }

    #[test]
    fn rows_round_trip_through_a_csv_line_in_header_order() {
        let line = row().csv();
        assert_eq!(line.split(',').count(), HEADER.split(',').count());
        assert!(
            line.starts_with("40,validation,2.125,0.5,0.375,NaN,"),
            "{line}"
        );
        let back = Row::parse(&line).expect("parses");
        assert_eq!((back.step, back.split.as_str()), (40, "validation"));
        assert!(back.value_sign_accuracy.is_nan() && back.learning_rate == 2e-3);
    }

    #[test]
    fn a_bad_row_names_its_field() {
        let e = Row::parse("40,train,x,0.5,0.4,0.5,0.001,10").expect_err("bad");
        assert!(e.contains("field 3 (policy_loss) `x`"), "{e}");
        let e = Row::parse("40,train,1").expect_err("short");
        assert!(e.contains("3 fields"), "{e}");
    }
}
