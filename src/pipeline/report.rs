//! The pipeline's report: `summary.md` and plots (Elo by generation, attacker win rate by
//! generation, training losses).

use std::path::Path;

use super::config::Gating;
use super::run::{generation_dir, GenerationRecord};
use crate::eval::matches::MatchReport;
use crate::report::plot::{line_chart, write_atomic, Series};
use crate::train::metrics::read_rows;

/// Final comparisons of the last network.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FinalMatches {
    pub against_first: MatchReport,
    pub against_mcts: MatchReport,
}

fn elo_text(e: &crate::eval::stats::EloEstimate) -> String {
    let f = |x: f64| {
        if x.is_finite() {
            format!("{x:+.0}")
        } else if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    };
    format!("{} [{}, {}]", f(e.elo), f(e.low), f(e.high))
}

fn significant(m: &MatchReport) -> bool {
    m.elo_pairs.low > 0.0
}

/// Writes summary.md and the plots; returns the summary text. `gating` says how candidates were
/// accepted (with none, every candidate is, and the table says so).
pub fn write_report(
    run: &Path,
    variant: &str,
    gating: Gating,
    records: &[GenerationRecord],
    finals: Option<&FinalMatches>,
    seconds: f64,
) -> std::io::Result<String> {
    // Elo by generation: the accepted candidates' gains add up (a chain of paired matches)
    let mut elo = vec![(0.0, 0.0, Some(0.0))];
    let mut total = 0.0;
    let mut width2 = 0.0;
    for r in records {
        if let (Some(m), true) = (&r.candidate_match, r.accepted) {
            if m.elo_pairs.elo.is_finite() {
                total += m.elo_pairs.elo;
            }
            let half = (m.elo_pairs.high - m.elo_pairs.low) / 2.0;
            if half.is_finite() {
                width2 += half * half;
            }
        }
        elo.push(((r.generation + 1) as f64, total, Some(width2.sqrt())));
    }
    let chart = line_chart(
        &format!("{variant}: Elo by generation (chained paired matches)"),
        "generation",
        "Elo over generation 0",
        &[Series {
            name: "best network".into(),
            points: elo.clone(),
        }],
    );
    write_atomic(&run.join("elo.svg"), &chart)?;
    let rate = |f: fn(&GenerationRecord) -> u64| Series {
        name: String::new(),
        points: records
            .iter()
            .map(|r| {
                (
                    r.generation as f64,
                    f(r) as f64 / r.selfplay.games.max(1) as f64,
                    None,
                )
            })
            .collect(),
    };
    let chart = line_chart(
        &format!("{variant}: self-play outcomes by generation"),
        "generation",
        "share of self-play games",
        &[
            Series {
                name: "attackers".into(),
                ..rate(|r| r.selfplay.attacker_wins)
            },
            Series {
                name: "defenders".into(),
                ..rate(|r| r.selfplay.defender_wins)
            },
            Series {
                name: "draws".into(),
                ..rate(|r| r.selfplay.draws)
            },
        ],
    );
    write_atomic(&run.join("attacker_rate.svg"), &chart)?;
    let mut policy = Vec::new();
    let mut value = Vec::new();
    let mut offset = 0.0;
    for r in records {
        let rows = read_rows(
            &generation_dir(run, r.generation + 1)
                .join("train")
                .join("metrics.csv"),
        );
        let train: Vec<_> = rows.iter().filter(|x| x.split == "train").collect();
        for x in &train {
            policy.push((offset + x.step as f64, x.policy_loss, None));
            value.push((offset + x.step as f64, x.value_loss, None));
        }
        offset += train.last().map_or(0.0, |x| x.step as f64);
    }
    let chart = line_chart(
        &format!("{variant}: training losses over all generations"),
        "training step",
        "loss",
        &[
            Series {
                name: "policy".into(),
                points: policy,
            },
            Series {
                name: "value".into(),
                points: value,
            },
        ],
    );
    write_atomic(&run.join("losses.svg"), &chart)?;

    let mut md = format!(
        "# Self-play run on `{variant}`\n\n{} generations; this invocation took {:.1} minutes (a resumed run counts only its own time).\n\n",
        records.len(),
        seconds / 60.0
    );
    md += "| gen | self-play games | attackers | defenders | draws | positions/s | new vs best: score | Elo (95%) | accepted |\n";
    md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for r in records {
        let s = &r.selfplay;
        let n = s.games.max(1) as f64;
        let (score, e) = r
            .candidate_match
            .as_ref()
            .map_or(("-".to_string(), "-".to_string()), |m| {
                (format!("{:.3}", m.score), elo_text(&m.elo_pairs))
            });
        md += &format!(
            "| {} | {} | {:.0}% | {:.0}% | {:.0}% | {:.0} | {score} | {e} | {} |\n",
            r.generation,
            s.games,
            100.0 * s.attacker_wins as f64 / n,
            100.0 * s.defender_wins as f64 / n,
            100.0 * s.draws as f64 / n,
            s.positions as f64 / s.seconds.max(1e-9),
            match (gating, r.accepted) {
                (Gating::None, _) => "no gating",
                (_, true) => "yes",
                (_, false) => "no",
            }
        );
    }
    let gain = total / records.len().max(1) as f64;
    md += &format!("\nChained Elo of the best network over generation 0: {total:+.0} ({gain:+.0} per generation). This adds up the matches between successive networks and is not a direct measurement; the final matches below are.\n");
    if let Some(f) = finals {
        md += "\n## Did it learn?\n\n";
        for (what, m) in [
            ("generation 0 (the untrained network)", &f.against_first),
            ("pure MCTS at equal simulations", &f.against_mcts),
        ] {
            md += &format!(
                "- Last network against {what}: score {:.3} over {} pairs, Elo {} — {}.\n",
                m.score,
                m.pairs,
                elo_text(&m.elo_pairs),
                if significant(m) {
                    "stronger, with significance (95% interval above 0)"
                } else {
                    "not significantly stronger"
                }
            );
        }
    }
    md += "\nPlots: `elo.svg`, `attacker_rate.svg`, `losses.svg`. Each generation's data, network, training metrics and match are under `gen-NNN/`.\n";
    write_atomic(&run.join("summary.md"), &md)?;
    Ok(md)
}
