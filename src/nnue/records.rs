//! Games read back from the readable records a balance study keeps beside its game store
//! (`games/*.txt`: `# game N (...)`; a match's or ladder's `games.txt`: `# game N: ...`), each
//! with the `[variant]`, `[rules]` and `[result]` tags of `interop::record::game_record`, then
//! the move line. Several ladders commit only these, so labelling their games needs them; a game
//! without a result (`*`) cannot be labelled and is an error.

use std::path::Path;

use crate::eval::GameResult;
use crate::nnue::error::NnueDataError;
use crate::rules::{Outcome, Reason, Side};

/// The games of a record file, in order.
pub fn read_records(path: &Path) -> Result<Vec<GameResult>, NnueDataError> {
    let text = std::fs::read_to_string(path).map_err(|source| NnueDataError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |line: usize, detail: String| NnueDataError::Record {
        path: path.to_path_buf(),
        line: line + 1,
        detail,
    };
    let mut games = Vec::new();
    let mut id: Option<u64> = None;
    let mut outcome: Option<Outcome> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# game ") {
            // a study writes `# game N (...)`, a match or ladder `# game N: A (attackers) vs ...`
            let number = rest.split_whitespace().next().unwrap_or("");
            let number = number.strip_suffix(':').unwrap_or(number);
            id = Some(
                number
                    .parse()
                    .map_err(|_| bad(n, format!("`{number}` is not a game number")))?,
            );
            outcome = None;
        } else if let Some(tag) = line.strip_prefix("[result \"") {
            let value = tag.trim_end_matches("\"]");
            outcome = Some(parse_result(value).map_err(|e| bad(n, e))?);
        } else if line.starts_with('[') || line.is_empty() || line.starts_with('#') {
            continue;
        } else {
            let game = id
                .take()
                .ok_or_else(|| bad(n, "moves before `# game N`".into()))?;
            let outcome = outcome
                .take()
                .ok_or_else(|| bad(n, format!("game {game} has no `[result]` tag")))?;
            let moves: Vec<String> = line.split_whitespace().map(str::to_string).collect();
            games.push(GameResult {
                id: game,
                attacker: 0,
                defender: 0,
                outcome,
                plies: moves.len() as u32,
                moves,
                clock: Vec::new(),
            });
        }
    }
    Ok(games)
}

/// `attackers king_captured`, `draw repetition`, ... as an outcome.
fn parse_result(value: &str) -> Result<Outcome, String> {
    let (who, why) = value.split_once(' ').ok_or_else(|| {
        format!("result `{value}` is not `WINNER REASON` (unfinished games cannot be labelled)")
    })?;
    let reason = Reason::ALL
        .into_iter()
        .find(|r| r.name() == why)
        .ok_or_else(|| format!("`{why}` is not a reason a game ends"))?;
    match who {
        "attackers" => Ok(Outcome::win(Side::Attackers, reason)),
        "defenders" => Ok(Outcome::win(Side::Defenders, reason)),
        "draw" => Ok(Outcome::draw(reason)),
        _ => Err(format!("`{who}` is not attackers, defenders or draw")),
    }
}
