//! The pipeline's report: `summary.md` and plots (direct Elo by generation, self-play outcomes by
//! generation, training losses). Every Elo figure is a direct measurement against a fixed anchor
//! or the closing ladder; the chain of successive matches is shown only as such.

use std::path::Path;

use super::config::{EvalSettings, Gating};
use super::files::generation_dir;
use super::ladder::GenerationLadder;
use super::rate::SelfplayRate;
use super::summary::GenerationRecord;
use super::timing::{read_book, time_table};
use crate::atomic;
use crate::eval::matches::{Ends, MatchReport, Wdl};
use crate::eval::stats::EloEstimate;
use crate::report::plot::{line_chart, Picture, Point, Series};
use crate::train::metrics::read_rows;

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

fn wdl(w: &Wdl) -> String {
    format!("{}-{}-{}", w.wins, w.draws, w.losses)
}

/// W-D-L and how the wins ended (`3-0-7 (king_captured 2, repetition 1)`): a win by the
/// opponent's repetition is not an attack. Reports older than end reasons give W-D-L alone.
fn wdl_ends(w: &Wdl, ends: &Ends) -> String {
    if ends.wins.is_empty() {
        return wdl(w);
    }
    format!("{} ({})", wdl(w), Ends::describe(&ends.wins))
}

/// A point of a direct-Elo series: finite centre, half the interval as the error bar (an
/// infinite bound draws no bar).
fn elo_point(x: f64, e: &EloEstimate) -> Option<Point> {
    // an infinite bound (a clean sweep) is drawn to the edge of the plot
    e.elo
        .is_finite()
        .then_some((x, e.elo, Some((e.low, e.high))))
}

/// Where the run's time went (`timing`): a row per generation and the closing stages.
fn time_section(run: &Path, records: &[GenerationRecord]) -> std::io::Result<String> {
    let failed = |e: super::PipelineError| std::io::Error::other(e.to_string());
    let books = records
        .iter()
        .map(|r| read_book(run, Some(r.generation)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(failed)?;
    let closing = read_book(run, None).map_err(failed)?;
    let positions: Vec<u64> = records.iter().map(|r| r.selfplay.positions).collect();
    let rate = SelfplayRate::of(records.iter().map(|r| &r.selfplay));
    Ok(format!(
        "## Where the time went\n\nEach stage as timed by the invocation that completed it (a stage resumed after a kill counts only its last invocation).\n\n{}\n{}",
        time_table(&books, &closing, &positions),
        rate.text()
    ))
}

/// Writes summary.md and the plots; returns the summary text. `gating` says how candidates were
/// accepted (with none, every candidate is, and the table says so).
pub fn write_report(
    run: &Path,
    variant: &str,
    eval: &EvalSettings,
    records: &[GenerationRecord],
    ladder: Option<&GenerationLadder>,
    seconds: f64,
) -> std::io::Result<String> {
    let gating = eval.gating;
    // the chain of successive matches, kept only as a labelled secondary figure
    let mut total = 0.0;
    for r in records {
        if let (Some(m), true) = (&r.candidate_match, r.accepted) {
            if m.elo_pairs.elo.is_finite() {
                total += m.elo_pairs.elo;
            }
        }
    }
    let direct = |name: String, f: fn(&GenerationRecord) -> Option<&MatchReport>| Series {
        name,
        points: records
            .iter()
            .filter_map(|r| f(r).and_then(|m| elo_point((r.generation + 1) as f64, &m.elo_pairs)))
            .collect(),
    };
    let mut series = vec![
        direct("vs generation 0 (equal simulations)".into(), |r| {
            r.against_first.as_ref()
        }),
        direct(format!("vs {} (equal time)", eval.anchor), |r| {
            r.against_anchor.as_ref()
        }),
    ];
    if let Some(l) = ladder {
        series.push(Series {
            name: "ladder (Bradley-Terry, gen 0 = 0)".into(),
            points: l
                .generations
                .iter()
                .zip(&l.ratings)
                .map(|(&g, r)| (g as f64, r.elo, Some((r.low, r.high))))
                .collect(),
        });
    }
    let chart = line_chart(
        &format!("{variant}: direct Elo of each generation's network (95% intervals)"),
        "generation",
        "Elo",
        &series,
    );
    chart.save(&run.join("elo.svg"))?;
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
    )
    .y_range(0.0, 1.0);
    chart.save(&run.join("attacker_rate.svg"))?;
    let mut policy = Vec::new();
    let mut value = Vec::new();
    let mut offset = 0.0;
    for r in records {
        let rows = read_rows(
            &generation_dir(run, r.generation + 1)
                .join("train")
                .join("metrics.csv"),
        )
        .map_err(std::io::Error::other)?;
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
    chart.save(&run.join("losses.svg"))?;

    let mut md = format!(
        "# Self-play run on `{variant}`\n\n{} generations; this invocation took {:.1} minutes (a resumed run counts only its own time).\n\n",
        records.len(),
        seconds / 60.0
    );
    md += &time_section(run, records)?;
    md += "Self-play: the games each generation's player produced (the data the next network trains on).\n\n";
    let teachers = records.iter().any(|r| r.teacher.is_some());
    if teachers {
        md += "Rows marked *teacher* are the teacher's games (alpha-beta against itself), trained on beside the self-play of the same generation.\n\n";
    }
    // a run whose budgets follow the results (`[side_budgets]`) shows them
    let ratios = records
        .iter()
        .any(|r| r.selfplay.attacker_search_ratio != 1.0);
    if ratios {
        md += "*Attackers' search ratio*: the attackers' simulations over the defenders' in that generation's self-play (`attacker_search_ratio`).\n\n";
    }
    // games that began after alpha-beta's first plies are self-play's from there on, but their
    // outcomes owe something to alpha-beta's start: the reader is told how many there were
    if records.iter().any(|r| r.selfplay.alpha_beta_starts > 0) {
        let counts: Vec<String> = records
            .iter()
            .map(|r| {
                let s = &r.selfplay;
                format!(
                    "{}: {} of {}",
                    r.generation, s.alpha_beta_starts, s.games_played
                )
            })
            .collect();
        md += &format!(
            "Self-play games that started after alpha-beta's first plies (`[selfplay.starts]`; those plies are in the columns' outcomes and lengths, not in the positions), of the games played (with samples or without), by generation (a resumed stage counts only the games it played after resuming): {}.\n\n",
            counts.join(", ")
        );
    }
    // the repetition rule decides a game in some variants (Brandubh, Copenhagen: the defenders
    // lose) and draws it in others (Tavlei): the column counts both, apart from the draws
    md += "*Ended by repetition* and *at the length cap* count every game those rules ended, won or drawn: where a repetition decides the game (the defenders lose in Brandubh and Copenhagen) it is among the attackers' wins, not an attack.\n\n";
    md += "| gen | player | games | attackers | defenders | draws | ended by repetition | at the length cap | mean length | positions/s | per core-second |";
    md += if ratios {
        " attackers' search ratio |\n"
    } else {
        "\n"
    };
    md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";
    md += if ratios { " --- |\n" } else { "\n" };
    let rows = records.iter().flat_map(|r| {
        let player = r
            .player
            .map_or("pure MCTS".to_string(), |p| format!("gen {p}"));
        // the search ratio is self-play's; a teacher (alpha-beta) has none
        let ratio = Some(r.selfplay.attacker_search_ratio);
        std::iter::once((r.generation, player, &r.selfplay, ratio)).chain(
            r.teacher
                .as_ref()
                .map(|t| (r.generation, "teacher".to_string(), t, None)),
        )
    });
    for (generation, player, s, ratio) in rows {
        let n = s.games.max(1) as f64;
        let pct = |x: u64| format!("{:.0}%", 100.0 * x as f64 / n);
        md += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} |",
            generation,
            player,
            s.games,
            pct(s.attacker_wins),
            pct(s.defender_wins),
            pct(s.draws),
            pct(s.repetitions),
            pct(s.length_caps),
            s.mean_length,
            s.positions as f64 / s.seconds.max(1e-9),
            // self-play counts its workers' core-time; teacher games and older summaries do not
            if s.cpu_seconds > 0.0 {
                format!("{:.1}", s.positions as f64 / s.cpu_seconds)
            } else {
                "-".into()
            },
        );
        md += &match (ratios, ratio) {
            (false, _) => "\n".to_string(),
            (true, None) => " - |\n".to_string(),
            (true, Some(r)) => format!(" {r:.2} |\n"),
        };
    }
    md += &format!(
        "\nEach candidate (the network trained on generation g's data is generation g+1), measured directly: against generation 0 at {} simulations and against `{}` at equal time per move ({} pairs each, the same openings every generation), and against the network that played its data (the gating match). Elo from paired games with 95% intervals; W-D-L per side from the candidate's view.\n\n",
        eval.simulations, eval.anchor, eval.anchor_pairs
    );
    md += "| network | vs gen 0 | as attacker | as defender | vs anchor | as attacker | as defender | vs its player | accepted |\n";
    md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for r in records {
        let cells = |m: Option<&MatchReport>| {
            m.map_or(["-".to_string(), "-".into(), "-".into()], |m| {
                [
                    elo_text(&m.elo_pairs),
                    wdl_ends(&m.as_attacker, &m.ends.attacking),
                    wdl_ends(&m.as_defender, &m.ends.defending),
                ]
            })
        };
        let [g0, g0a, g0d] = cells(r.against_first.as_ref());
        let [an, ana, and] = cells(r.against_anchor.as_ref());
        md += &format!(
            "| gen {} | {g0} | {g0a} | {g0d} | {an} | {ana} | {and} | {} | {} |\n",
            r.generation + 1,
            r.candidate_match
                .as_ref()
                .map_or("-".to_string(), |m| elo_text(&m.elo_pairs)),
            match (gating, r.accepted) {
                (Gating::None, _) => "no gating",
                (_, true) => "yes",
                (_, false) => "no",
            }
        );
    }
    if let Some(last) = records.last() {
        let g = last.generation + 1;
        md += "\n## Did it learn?\n\n";
        for (what, m) in [
            ("generation 0 (equal simulations)", &last.against_first),
            ("the classical anchor (equal time)", &last.against_anchor),
        ] {
            let Some(m) = m else { continue };
            let games = |w: &Wdl| w.wins + w.draws + w.losses;
            md += &format!(
                "- Generation {g} against {what}: score {:.3} over {} pairs, Elo {} ({}); it won {} of {} games as attacker and {} of {} as defender.\n",
                m.score,
                m.pairs,
                elo_text(&m.elo_pairs),
                if m.elo_pairs.low > 0.0 {
                    "stronger, the 95% interval above 0"
                } else {
                    "not significantly stronger"
                },
                m.as_attacker.wins,
                games(&m.as_attacker),
                m.as_defender.wins,
                games(&m.as_defender),
            );
        }
    }
    if let Some(l) = ladder {
        md += &format!(
            "\n## Ladder of the measured generations\n\nEvery two networks played {} pairs at {} simulations ({} games); Bradley-Terry ratings as differences to generation 0, each with the 95% interval of that difference{}.\n\n| generation | Elo |\n| --- | --- |\n",
            l.pairs,
            eval.simulations,
            l.report.games,
            match l.report.pair_dispersion {
                Some(d) => format!(
                    ", over pairs (the pairs' scores varied {d:.2} times as much as independent games would)"
                ),
                None => ", over games".into(),
            }
        );
        for (g, r) in l.generations.iter().zip(&l.ratings) {
            md += &format!("| {g} | {:+.0} [{:+.0}, {:+.0}] |\n", r.elo, r.low, r.high);
        }
    }
    md += &format!("\nFor reference only, the chained figure: the gating matches of successive accepted networks add up to {total:+.0} Elo. It is not a direct measurement; the tables above are.\n");
    md += "\nPlots: `elo.svg`, `attacker_rate.svg`, `losses.svg`. Each generation's data, network, training metrics and match are under `gen-NNN/`.\n";
    atomic::write(&run.join("summary.md"), &md)?;
    Ok(md)
}
