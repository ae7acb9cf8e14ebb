//! What a balance study shows its reader: the CSV and JSON tables, the terminal table, and the
//! plots (shares by strength for each variant, shares by variant for each strength). The games
//! themselves are played and stored by `balance`.

use std::path::Path;

use serde::Serialize;

use super::balance::{BalanceReport, Share};
use super::stats::Ratio;
use crate::atomic::{self, WriteError};
use crate::report::plot::{bar_chart, line_chart, BarGroup, Chart, Picture, PlotError, Series};
use crate::report::table::render;

#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("balance table: {0}")]
    Csv(#[from] csv::Error),
    #[error("balance table: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// One row of `balance.csv`: a variant at one strength level.
#[derive(Debug, Serialize)]
pub struct CsvRow<'a> {
    pub variant: &'a str,
    pub agent: &'a str,
    pub simulations: u32,
    pub time_ms: f64,
    pub games: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    pub attacker_share: f64,
    pub attacker_low: f64,
    pub attacker_high: f64,
    pub defender_share: f64,
    pub defender_low: f64,
    pub defender_high: f64,
    pub draw_share: f64,
    pub draw_low: f64,
    pub draw_high: f64,
    /// Defender wins ÷ attacker wins; empty when the attackers never won.
    pub ratio: Option<f64>,
    pub ratio_low: f64,
    /// `inf` when the attackers may never win.
    pub ratio_high: f64,
    pub mean_length: f64,
    pub median_length: f64,
    pub seconds: f64,
    /// `yes` or `no` on the strongest level of a variant studied at two or more; else empty.
    pub settled: &'static str,
}

impl<'a> CsvRow<'a> {
    pub fn new(r: &'a BalanceReport) -> CsvRow<'a> {
        CsvRow {
            variant: &r.variant,
            agent: &r.agent,
            simulations: r.simulations,
            time_ms: r.time_ms,
            games: r.games,
            attacker_wins: r.attacker_wins,
            defender_wins: r.defender_wins,
            draws: r.draws,
            attacker_share: r.attackers.value,
            attacker_low: r.attackers.low,
            attacker_high: r.attackers.high,
            defender_share: r.defenders.value,
            defender_low: r.defenders.low,
            defender_high: r.defenders.high,
            draw_share: r.draw.value,
            draw_low: r.draw.low,
            draw_high: r.draw.high,
            ratio: r.ratio.value,
            ratio_low: r.ratio.low,
            ratio_high: r.ratio.high,
            mean_length: r.mean_length,
            median_length: r.median_length,
            seconds: r.seconds,
            settled: settled_text(r.settled),
        }
    }
}

/// The study as CSV, one row per variant and level, with a header.
pub fn balance_csv(reports: &[BalanceReport]) -> Result<String, StudyError> {
    let mut out = csv::Writer::from_writer(Vec::new());
    for r in reports {
        out.serialize(CsvRow::new(r))?;
    }
    let bytes = out
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8(bytes).expect("the csv writer writes the UTF-8 it is given"))
}

fn settled_text(settled: Option<bool>) -> &'static str {
    match settled {
        Some(true) => "yes",
        Some(false) => "no",
        None => "",
    }
}

fn pct(s: &Share) -> String {
    format!(
        "{:.1} [{:.1}, {:.1}]",
        100.0 * s.value,
        100.0 * s.low,
        100.0 * s.high
    )
}

fn ratio_text(r: &Ratio) -> String {
    match r.value {
        Some(v) if r.high.is_finite() => format!("{v:.2} [{:.2}, {:.2}]", r.low, r.high),
        Some(v) => format!("{v:.2} [{:.2}, inf]", r.low),
        None => "n/a".into(),
    }
}

/// The study as a terminal table, one row per variant and level.
pub fn balance_table(reports: &[BalanceReport]) -> String {
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                r.variant.clone(),
                r.agent.clone(),
                r.games.to_string(),
                pct(&r.attackers),
                pct(&r.defenders),
                pct(&r.draw),
                ratio_text(&r.ratio),
                settled_text(r.settled).to_string(),
                format!("{:.0}/{:.0}", r.mean_length, r.median_length),
                r.reasons
                    .iter()
                    .map(|(k, n)| format!("{k}:{n}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        })
        .collect();
    render(
        &[
            "variant",
            "agent",
            "games",
            "attackers %",
            "defenders %",
            "draws %",
            "def/att",
            "settled",
            "len mean/med",
            "reasons",
        ],
        &rows,
    )
}

/// The x coordinate of a level in the strength plots: log2 of its simulations or milliseconds.
fn strength(r: &BalanceReport) -> f64 {
    if r.time_ms > 0.0 {
        r.time_ms.log2()
    } else {
        f64::from(r.simulations.max(1)).log2()
    }
}

/// Shares by strength for one variant's levels (in the order studied).
pub fn levels_chart(variant: &str, levels: &[&BalanceReport]) -> Chart {
    let series = |label: &str, f: fn(&BalanceReport) -> &Share| Series {
        name: label.into(),
        points: levels
            .iter()
            .map(|r| {
                let s = f(r);
                (strength(r), s.value, Some((s.low, s.high)))
            })
            .collect(),
    };
    let timed = levels.iter().any(|r| r.time_ms > 0.0);
    line_chart(
        &format!("balance of {variant} by strength (95% intervals)"),
        if timed {
            "time per move (log scale)"
        } else {
            "simulations per move (log scale)"
        },
        "share of games",
        &[
            series("attackers", |r| &r.attackers),
            series("defenders", |r| &r.defenders),
            series("draws", |r| &r.draw),
        ],
    )
    .y_range(0.0, 1.0)
    .x_marks(
        levels
            .iter()
            .map(|r| (strength(r), r.agent.clone()))
            .collect(),
    )
}

/// Shares by variant at one level.
pub fn variants_chart(level: &str, reports: &[&BalanceReport]) -> Chart {
    let groups: Vec<BarGroup> = reports
        .iter()
        .map(|r| BarGroup {
            label: r.variant.clone(),
            bars: [&r.attackers, &r.defenders, &r.draw]
                .iter()
                .map(|s| (s.value, s.low, s.high))
                .collect(),
        })
        .collect();
    bar_chart(
        &format!("balance by variant at {level} (95% intervals)"),
        "share of games",
        &["attackers", "defenders", "draws"],
        &groups,
    )
    .y_range(0.0, 1.0)
}

/// A level's name as a file name part: `ab:t=10ms` → `ab_t_10ms`.
pub fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Writes `balance.csv`, `balance.json`, `levels-VARIANT.svg` for each variant studied at two or
/// more levels and `variants-LEVEL.svg` for each level of a study of two or more variants (each
/// plot also as PNG), each atomically. `reports` holds every variant's levels together, weakest first.
pub fn write_study(out: &Path, reports: &[BalanceReport]) -> Result<(), StudyError> {
    atomic::write(&out.join("balance.csv"), &balance_csv(reports)?)?;
    atomic::write(
        &out.join("balance.json"),
        &serde_json::to_string_pretty(reports)?,
    )?;
    let mut variants: Vec<&str> = reports.iter().map(|r| r.variant.as_str()).collect();
    variants.dedup();
    let mut levels: Vec<&str> = Vec::new();
    for r in reports {
        if !levels.contains(&r.agent.as_str()) {
            levels.push(&r.agent);
        }
    }
    for variant in &variants {
        let mine: Vec<&BalanceReport> = reports.iter().filter(|r| r.variant == *variant).collect();
        if mine.len() > 1 {
            levels_chart(variant, &mine).save(&out.join(format!("levels-{variant}.svg")))?;
        }
    }
    if variants.len() > 1 {
        for level in &levels {
            let at: Vec<&BalanceReport> = reports.iter().filter(|r| r.agent == *level).collect();
            variants_chart(level, &at)
                .save(&out.join(format!("variants-{}.svg", file_part(level))))?;
        }
    }
    Ok(())
}
