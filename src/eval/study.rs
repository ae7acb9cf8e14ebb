//! What a balance study shows its reader: the CSV and JSON tables, the terminal table, and the
//! plots (shares by strength for each variant, shares by variant for each strength). The games
//! themselves are played and stored by `balance`.

use std::path::Path;

use serde::Serialize;

use super::balance::{log2_budget, BalanceReport, Share};
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
    /// Games that are no copy of another (the intervals assume every game independent).
    pub distinct_games: u64,
    /// Plies of the openings drawn without replacement (0: random plies), and how many distinct
    /// openings of that length there are up to symmetry (0 where they were sampled: by walks,
    /// `openings_sampled_by` says whose, uniform or a policy's).
    pub opening_plies: u32,
    pub openings_available: u64,
    pub openings_sampled_by: &'a str,
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
    /// The defenders' advantage in Elo in this level's games, with its 95% interval.
    pub side_elo: Option<f64>,
    pub side_elo_low: Option<f64>,
    pub side_elo_high: Option<f64>,
    /// On the strongest level of a variant studied at two or more budgets (else empty): the
    /// verdict (a `stats::Verdict` label), each share's log-odds slope per doubling of the
    /// budget with its overdispersion-aware 95% interval, the dispersion, the p-values of the
    /// line's fit and of one share for all levels, its difference to the level below (90%,
    /// TOST), the games a level that TOST needs for 80% power, and the defenders' advantage in
    /// Elo over all the levels with the p-value of its constancy across them.
    pub verdict: String,
    pub attacker_slope: Option<f64>,
    pub attacker_slope_low: Option<f64>,
    pub attacker_slope_high: Option<f64>,
    pub attacker_dispersion: Option<f64>,
    pub attacker_fit_p: Option<f64>,
    pub attacker_levels_p: Option<f64>,
    pub defender_slope: Option<f64>,
    pub defender_slope_low: Option<f64>,
    pub defender_slope_high: Option<f64>,
    pub defender_dispersion: Option<f64>,
    pub defender_fit_p: Option<f64>,
    pub defender_levels_p: Option<f64>,
    pub attacker_difference: Option<f64>,
    pub attacker_difference_low: Option<f64>,
    pub attacker_difference_high: Option<f64>,
    pub defender_difference: Option<f64>,
    pub defender_difference_low: Option<f64>,
    pub defender_difference_high: Option<f64>,
    pub games_needed: Option<u64>,
    pub levels_side_elo: Option<f64>,
    pub levels_side_elo_low: Option<f64>,
    pub levels_side_elo_high: Option<f64>,
    pub levels_side_constancy_p: Option<f64>,
    pub margin: Option<f64>,
    /// On the strongest level of a sequential study: its decision, the look it came at, the
    /// games a level used and the nominal α spent (`SequentialReport::describe`); else empty.
    pub sequential: String,
}

impl<'a> CsvRow<'a> {
    pub fn new(r: &'a BalanceReport) -> CsvRow<'a> {
        let c = r.convergence.as_ref();
        let side = c.and_then(|c| c.side_advantage.as_ref());
        CsvRow {
            variant: &r.variant,
            agent: &r.agent,
            simulations: r.simulations,
            time_ms: r.time_ms,
            games: r.games,
            distinct_games: r.distinct_games,
            opening_plies: r.openings.plies,
            openings_available: r.openings.available,
            openings_sampled_by: r.openings.sampled_by.as_deref().unwrap_or(""),
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
            side_elo: r.side_advantage.map(|a| a.elo),
            side_elo_low: r.side_advantage.map(|a| a.low),
            side_elo_high: r.side_advantage.map(|a| a.high),
            verdict: c.map_or(String::new(), |c| c.verdict.to_string()),
            attacker_slope: c.map(|c| c.attacker_trend.slope),
            attacker_slope_low: c.map(|c| c.attacker_trend.quasi_low),
            attacker_slope_high: c.map(|c| c.attacker_trend.quasi_high),
            attacker_dispersion: c.map(|c| c.attacker_trend.dispersion),
            attacker_fit_p: c.map(|c| c.attacker_trend.fit_p),
            attacker_levels_p: c.map(|c| c.attacker_trend.levels_p),
            defender_slope: c.map(|c| c.defender_trend.slope),
            defender_slope_low: c.map(|c| c.defender_trend.quasi_low),
            defender_slope_high: c.map(|c| c.defender_trend.quasi_high),
            defender_dispersion: c.map(|c| c.defender_trend.dispersion),
            defender_fit_p: c.map(|c| c.defender_trend.fit_p),
            defender_levels_p: c.map(|c| c.defender_trend.levels_p),
            attacker_difference: c.map(|c| c.attacker_equivalence.difference),
            attacker_difference_low: c.map(|c| c.attacker_equivalence.low),
            attacker_difference_high: c.map(|c| c.attacker_equivalence.high),
            defender_difference: c.map(|c| c.defender_equivalence.difference),
            defender_difference_low: c.map(|c| c.defender_equivalence.low),
            defender_difference_high: c.map(|c| c.defender_equivalence.high),
            games_needed: c.map(|c| c.games_needed),
            levels_side_elo: side.map(|s| s.pooled.elo),
            levels_side_elo_low: side.map(|s| s.pooled.low),
            levels_side_elo_high: side.map(|s| s.pooled.high),
            levels_side_constancy_p: side.map(|s| s.p_value),
            margin: c.map(|c| c.attacker_equivalence.margin),
            sequential: r
                .sequential
                .as_ref()
                .map_or(String::new(), |s| s.describe()),
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

/// The games of a cell, with the distinct ones where copies are among them (the intervals count
/// copies as independent games, so a reader must know).
fn games_text(r: &BalanceReport) -> String {
    if r.distinct_games > 0 && r.distinct_games < r.games {
        format!("{} ({} distinct)", r.games, r.distinct_games)
    } else {
        r.games.to_string()
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
                games_text(r),
                pct(&r.attackers),
                pct(&r.defenders),
                pct(&r.draw),
                ratio_text(&r.ratio),
                r.side_advantage.map_or("n/a".into(), |a| {
                    format!("{:+.0} [{:+.0}, {:+.0}]", a.elo, a.low, a.high)
                }),
                r.convergence
                    .as_ref()
                    .map_or(String::new(), |c| c.describe()),
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
            "defenders' edge (Elo)",
            "verdict",
            "len mean/med",
            "reasons",
        ],
        &rows,
    )
}

/// Shares by strength for one variant's levels (in the order studied).
pub fn levels_chart(variant: &str, levels: &[&BalanceReport]) -> Chart {
    let series = |label: &str, f: fn(&BalanceReport) -> &Share| Series {
        name: label.into(),
        points: levels
            .iter()
            .map(|r| {
                let s = f(r);
                (log2_budget(r), s.value, Some((s.low, s.high)))
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
            .map(|r| (log2_budget(r), r.agent.clone()))
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
