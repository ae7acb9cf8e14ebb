//! A round-robin ladder as one run: the agents loaded, every two of them playing the same pairs,
//! and the ratings written as a table (CSV, JSON), a plot and the games' records.

use std::path::PathBuf;
use std::sync::Arc;

use super::{records, write_file, PlaySettings, RunError};
use crate::eval::matches::{run_ladder, LadderReport};
use crate::eval::{Agent, AgentSpec, GameResult};
use crate::report::plot::{line_chart, Picture, Series};
use crate::rules::{Position, Variant};

/// A ladder's opening plies and sampled plies when its request leaves them to the run.
const OPENING_PLIES: u32 = 2;
const TEMPERATURE_PLIES: u32 = 8;

/// What a ladder is: plain data.
#[derive(Clone, Debug)]
pub struct LadderRequest {
    /// A preset's name or a variant file.
    pub variant: String,
    /// At least two.
    pub agents: Vec<AgentSpec>,
    /// Pairs of games between every two agents.
    pub pairs: u64,
    pub play: PlaySettings,
    /// Where `ladder.csv`, `ladder.json`, `games.txt` and the plot (`ladder.svg`, `.png`) go;
    /// `None`: nothing is written.
    pub out: Option<PathBuf>,
}

/// A ladder ready to play: its variant loaded and its agents counted.
pub struct LadderRun {
    request: LadderRequest,
    variant: Arc<Variant>,
}

/// The agents from the highest rating down, each row its name, Elo and 95% interval as the
/// table shows them (`ladder.csv` holds the same rows).
pub fn standings(report: &LadderReport) -> Vec<Vec<String>> {
    ranking(report)
        .iter()
        .map(|&i| {
            let r = &report.ratings[i];
            vec![
                report.agents[i].clone(),
                format!("{:+.0}", r.elo),
                format!("{:+.0}", r.low),
                format!("{:+.0}", r.high),
            ]
        })
        .collect()
}

/// The agents' indices from the highest rating down.
fn ranking(report: &LadderReport) -> Vec<usize> {
    let mut order: Vec<usize> = (0..report.agents.len()).collect();
    order.sort_by(|&a, &b| report.ratings[b].elo.total_cmp(&report.ratings[a].elo));
    order
}

impl LadderRun {
    /// Loads the variant; fewer than two agents are refused.
    pub fn open(request: LadderRequest) -> Result<LadderRun, RunError> {
        let variant = crate::interop::load_variant(&request.variant)?;
        if request.agents.len() < 2 {
            return Err(RunError::TooFewAgents(request.agents.len()));
        }
        Ok(LadderRun { request, variant })
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The games of the whole ladder (each heard by `play`'s progress).
    pub fn games(&self) -> u64 {
        let n = self.request.agents.len() as u64;
        n * (n - 1) / 2 * self.request.pairs * 2
    }

    /// Plays every two agents' pairs, rates them, and writes the table, the report, the
    /// records and the plot into the request's directory.
    pub fn play(&self, progress: &mut dyn FnMut(&GameResult)) -> Result<LadderReport, RunError> {
        let request = &self.request;
        let name = self.variant.name();
        let mut agents = Agent::load_all(
            &request.agents,
            name,
            request.play.device()?,
            request.play.seed,
        )?;
        let opts = request
            .play
            .options(OPENING_PLIES, TEMPERATURE_PLIES, &[name])?;
        let (report, results) = run_ladder(
            &Position::start(&self.variant),
            &mut agents,
            request.pairs,
            &opts,
            request.play.seed,
            progress,
        )?;
        if let Some(dir) = &request.out {
            // agents are paths too: the csv writer quotes what needs it
            let mut csv = csv::Writer::from_writer(Vec::new());
            csv.write_record(["agent", "elo", "low", "high"])?;
            for row in standings(&report) {
                csv.write_record(&row)?;
            }
            let bytes = csv
                .into_inner()
                .map_err(|e| csv::Error::from(e.into_error()))?;
            write_file(&dir.join("ladder.csv"), &String::from_utf8_lossy(&bytes))?;
            write_file(
                &dir.join("ladder.json"),
                &serde_json::to_string_pretty(&report)?,
            )?;
            write_file(
                &dir.join("games.txt"),
                &records(&self.variant, &results, &request.agents),
            )?;
            let series: Vec<Series> = ranking(&report)
                .iter()
                .enumerate()
                .map(|(rank, &i)| {
                    let r = &report.ratings[i];
                    Series {
                        name: report.agents[i].clone(),
                        points: vec![(rank as f64, r.elo, Some((r.low, r.high)))],
                    }
                })
                .collect();
            let plot = dir.join("ladder.svg");
            line_chart(
                &format!("ratings on {name}"),
                "rank",
                "Elo (Bradley-Terry)",
                &series,
            )
            .save(&plot)
            .map_err(|source| RunError::Plot { path: plot, source })?;
        }
        Ok(report)
    }
}
