//! Matches, ladders and balance studies as runs: each takes a request of plain data (variant,
//! agents, seed, sizes, how the games are played, where its files go) and owns the whole life of
//! the evaluation: the store's claim and what it already holds, the openings, the games (each
//! heard by a progress callback as it ends), and the records and reports written atomically. A
//! command line parses its arguments into a request and prints what the run returns.

mod balance_run;
mod error;
mod ladder_run;
mod match_run;
mod settings;

use std::path::Path;

pub use balance_run::{
    BalanceLevel, BalanceProgress, BalanceRequest, BalanceRun, PlayedUnit, SequentialSettings,
    Study, StudyPlan,
};
pub use error::RunError;
pub use ladder_run::{standings, LadderRequest, LadderRun};
pub use match_run::{MatchPlan, MatchRequest, MatchRun};
pub use settings::PlaySettings;

use crate::eval::arena::GameResult;
use crate::eval::AgentSpec;
use crate::rules::Variant;

/// Writes `text` to `path` atomically, naming the file on failure.
fn write_file(path: &Path, text: &str) -> Result<(), RunError> {
    crate::atomic::write(path, text).map_err(|source| RunError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The games of a match or ladder as records `tavlei replay` reads, each headed by who played
/// which side (`agents` in the order the games number them).
fn records(variant: &Variant, results: &[GameResult], agents: &[AgentSpec]) -> String {
    let mut text = String::new();
    for r in results {
        text += &format!(
            "# game {}: {} (attackers) vs {} (defenders)\n",
            r.id, agents[r.attacker].text, agents[r.defender].text
        );
        text += &crate::interop::record::game_record(variant, &r.moves, Some(r.outcome));
    }
    text
}
