//! The picture of a training run: its loss curves from `metrics.csv`.

use std::path::Path;

use super::plot::{line_chart, Picture, PlotError, Series};
use crate::train::metrics::Row;

/// Loss curves (policy and value, train and validation) as SVG at `path` and PNG beside it.
pub fn loss_chart(rows: &[Row], path: &Path) -> Result<(), PlotError> {
    let series = |split: &str, name: &str, f: fn(&Row) -> f64| Series {
        name: name.into(),
        points: rows
            .iter()
            // an interval without a value target that counted has a NaN value loss: no point
            .filter(|r| r.split == split && f(r).is_finite())
            .map(|r| (r.step as f64, f(r), None))
            .collect(),
    };
    let all = [
        series("train", "policy (train)", |r| r.policy_loss),
        series("val", "policy (val)", |r| r.policy_loss),
        series("train", "value (train)", |r| r.value_loss),
        series("val", "value (val)", |r| r.value_loss),
    ];
    line_chart("training loss", "step", "loss", &all).save(path)
}
