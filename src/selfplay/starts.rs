//! Self-play games that start where alpha-beta's games go (issue 44, item 2). Where one side
//! wins almost every self-play game, the other side's play never gets anywhere and its value
//! and policy learn nothing; a share of the games instead begins after a few plies of an
//! alpha-beta player against itself, so self-play meets positions its own play seldom reaches
//! (an attack under way, a defence under pressure) with chances for both sides. Those plies are
//! alpha-beta's, not self-play's: they are in the game's record, so it replays from the start,
//! but give no samples.

use std::ops::RangeInclusive;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::game::game_seed;
use super::teacher::{Teacher, TeacherError};
use crate::config::Invalid;
use crate::rules::Position;

/// `[selfplay.starts]` in a settings file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartsConfig {
    /// Share of the games that start from alpha-beta's play, in [0, 1].
    pub share: f32,
    /// The plies alpha-beta plays first, drawn uniformly from `[first, last]`; fewer where the
    /// next one would end the game.
    pub plies: [u32; 2],
    /// The alpha-beta that plays them, at a depth: a teacher spec (`ab:D`, with `:eval=FILE`
    /// and `:nnue=FILE` as for `[teacher]`).
    pub agent: String,
}

/// The most plies a start may ask for (longer and the game is mostly alpha-beta's).
pub const MAX_START_PLIES: u32 = 400;

impl StartsConfig {
    pub(crate) fn check(&self) -> Result<(), Invalid> {
        if !(0.0..=1.0).contains(&self.share) {
            return Err(format!("starts.share must lie in [0, 1], not {}", self.share).into());
        }
        let [first, last] = self.plies;
        if first > last || last > MAX_START_PLIES {
            return Err(format!(
                "starts.plies must be [first, last] with first <= last <= {MAX_START_PLIES}, \
                 not [{first}, {last}]"
            )
            .into());
        }
        Teacher::parse(&self.agent).map_err(|e| Invalid(format!("starts.agent: {e}")))?;
        Ok(())
    }
}

/// The starts of a run, their player parsed once.
#[derive(Clone, Debug)]
pub struct Starts {
    share: f32,
    plies: RangeInclusive<u32>,
    player: Teacher,
}

/// Mixed into a game's seed so the starts draw from a stream of their own: the game's own
/// random choices are those it makes without starts.
const STARTS_STREAM: u64 = 0x5354_4152_5453;

impl Starts {
    pub fn new(cfg: &StartsConfig) -> Result<Starts, TeacherError> {
        Ok(Starts {
            share: cfg.share,
            plies: cfg.plies[0]..=cfg.plies[1],
            player: Teacher::parse(&cfg.agent)?,
        })
    }

    /// Where game `id` of a run seeded `seed` starts: `start` itself, or (for a `share` of the
    /// games) the position alpha-beta reaches from it, with the moves that lead there as
    /// recorded. Depends only on `start`, `seed` and `id`.
    pub fn opening(&self, start: &Position, seed: u64, id: u64) -> (Position, Vec<String>) {
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed(seed, id) ^ STARTS_STREAM);
        let mut position = start.clone();
        let mut moves = Vec::new();
        if rng.random::<f32>() >= self.share {
            return (position, moves);
        }
        let plies = rng.random_range(self.plies.clone());
        let varying = rng.random::<u64>();
        let mut ab = self.player.search(seed);
        for _ in 0..plies {
            if position.needs_roll() {
                position.set_roll(rng.random_range(1..=6));
            }
            let Some(mv) = self.player.choose(&mut ab, &position, varying, true).best else {
                break;
            };
            let mut next = position.clone();
            let recorded = next.play_recorded(mv);
            if next.outcome().is_some() {
                break; // self-play gets a game to play, not a finished one
            }
            position = next;
            moves.push(recorded);
        }
        (position, moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn config(share: f32, plies: [u32; 2], agent: &str) -> StartsConfig {
        StartsConfig {
            share,
            plies,
            agent: agent.to_string(),
        }
    }

    #[test]
    fn a_start_stops_before_a_move_that_would_end_the_game() {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        // more plies than a game of alpha-beta at depth 1 against itself lasts
        let starts = Starts::new(&config(1.0, [390, 400], "ab:1")).expect("starts");
        let player = Teacher::parse("ab:1").expect("a player");
        for id in 0..4 {
            let (position, moves) = starts.opening(&start, 11, id);
            assert!(position.outcome().is_none(), "game {id} starts over");
            assert!(moves.len() < 390, "game {id}: {} plies", moves.len());
            // the move it left out ends the game
            let mut rng = ChaCha8Rng::seed_from_u64(game_seed(11, id) ^ STARTS_STREAM);
            let _share = rng.random::<f32>();
            let _plies = rng.random_range(390..=400u32);
            let varying = rng.random::<u64>();
            let mut ab = player.search(11);
            let mv = player.choose(&mut ab, &position, varying, true).best;
            let mut next = position.clone();
            next.play_recorded(mv.expect("a move"));
            assert!(next.outcome().is_some(), "game {id} stopped early");
        }
    }

    #[test]
    fn the_settings_are_checked_by_name() {
        assert!(config(0.5, [2, 20], "ab:2").check().is_ok());
        for (bad, names) in [
            (config(1.5, [2, 20], "ab:2"), "starts.share"),
            (config(-0.1, [2, 20], "ab:2"), "starts.share"),
            (config(0.5, [20, 2], "ab:2"), "starts.plies"),
            (
                config(0.5, [0, MAX_START_PLIES + 1], "ab:2"),
                "starts.plies",
            ),
            (config(0.5, [2, 20], "mcts:5"), "starts.agent"),
        ] {
            let err = bad.check().expect_err("invalid");
            assert!(err.0.contains(names), "{}", err.0);
        }
        let documented = include_str!("../../configs/selfplay.toml");
        let text = documented.replace(
            "# [starts]\n# share = 0.25\n# plies = [4, 40]\n# agent = \"ab:2\"",
            "[starts]\nshare = 0.25\nplies = [4, 40]\nagent = \"ab:2\"",
        );
        assert_ne!(text, documented, "configs/selfplay.toml documents [starts]");
        let parsed: crate::selfplay::SelfplayConfig = toml::from_str(&text).expect("parses");
        assert_eq!(parsed.starts, Some(config(0.25, [4, 40], "ab:2")));
        let unknown = text.replace("share = ", "shares = ");
        let err = toml::from_str::<crate::selfplay::SelfplayConfig>(&unknown).expect_err("typo");
        assert!(err.to_string().contains("shares"), "{err}");
    }
}
