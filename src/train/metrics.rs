//! Training metrics: accumulated per interval, written to `metrics.csv`, plotted at the end.

use std::io::Write;
use std::path::Path;

use crate::atomic;
use crate::report::plot::{line_chart, Series};
use crate::store::{self, StoreError};

pub const HEADER: &str = "step,split,policy_loss,value_loss,policy_accuracy,value_sign_accuracy,learning_rate,samples_per_s";

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub samples: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub policy_hits: f64,
    pub sign_hits: f64,
    pub sign_count: f64,
}

impl Totals {
    pub fn add(&mut self, other: &Totals) {
        self.samples += other.samples;
        self.policy_loss += other.policy_loss;
        self.value_loss += other.value_loss;
        self.policy_hits += other.policy_hits;
        self.sign_hits += other.sign_hits;
        self.sign_count += other.sign_count;
    }

    pub fn policy_loss(&self) -> f64 {
        self.policy_loss / self.samples.max(1.0)
    }

    pub fn value_loss(&self) -> f64 {
        self.value_loss / self.samples.max(1.0)
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

#[derive(Clone, Debug, PartialEq)]
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

    fn csv(&self) -> String {
        format!(
            "{},{},{:.6},{:.6},{:.4},{:.4},{:.6e},{:.1}",
            self.step,
            self.split,
            self.policy_loss,
            self.value_loss,
            self.policy_accuracy,
            self.value_sign_accuracy,
            self.learning_rate,
            self.samples_per_s
        )
    }

    fn parse(line: &str) -> Result<Row, String> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 8 {
            return Err(format!("{} fields, a metrics row has 8", f.len()));
        }
        let num = |i: usize| -> Result<f64, String> {
            f[i].parse()
                .map_err(|_| format!("field {} `{}` is not a number", i + 1, f[i]))
        };
        Ok(Row {
            step: f[0]
                .parse()
                .map_err(|_| format!("step `{}` is not a whole number", f[0]))?,
            split: f[1].to_string(),
            policy_loss: num(2)?,
            value_loss: num(3)?,
            policy_accuracy: num(4)?,
            value_sign_accuracy: num(5)?,
            learning_rate: num(6)?,
            samples_per_s: num(7)?,
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

/// Loss curves (policy and value, train and validation) as SVG.
pub fn plot(rows: &[Row], path: &Path) -> std::io::Result<()> {
    let series = |split: &str, name: &str, f: fn(&Row) -> f64| Series {
        name: name.into(),
        points: rows
            .iter()
            .filter(|r| r.split == split)
            .map(|r| (r.step as f64, f(r), None))
            .collect(),
    };
    let all = [
        series("train", "policy (train)", |r| r.policy_loss),
        series("val", "policy (val)", |r| r.policy_loss),
        series("train", "value (train)", |r| r.value_loss),
        series("val", "value (val)", |r| r.value_loss),
    ];
    let kept: Vec<Series> = all.into_iter().filter(|s| !s.points.is_empty()).collect();
    Ok(atomic::write(
        path,
        line_chart("training loss", "step", "loss", &kept),
    )?)
}
