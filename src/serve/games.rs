//! The server's games: each a `play::Game` with its agent, kept by number so a page that reloads
//! finds its game again. A person's move, an undo or a resignation takes the game's lock only
//! briefly; the agent's search holds the agent's own lock, never the game's, so the page can read
//! the game while the agent thinks, and a search whose position was undone meanwhile is dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use thiserror::Error;

use super::limits::ServeLimits;
use super::view::{AnalysisView, GameView};
use crate::engine::analysis::Analysis;
use crate::engine::player::Player;
use crate::eval::agent::{AgentKind, AgentSpec, EvalError};
use crate::interop::otg;
use crate::nn::checkpoint::CheckpointMeta;
use crate::play::game::{Game, Mover};
use crate::rules::replay::steps;
use crate::rules::{Position, Side, Variant};

/// What a request asked that cannot be done, said so the page can show it.
#[derive(Debug, Error)]
pub enum GameError {
    #[error("no game {0} (the server keeps games while it runs; start a new one)")]
    NoGame(u64),
    #[error("{0}")]
    Variant(String),
    #[error(transparent)]
    Agent(#[from] EvalError),
    #[error("{0}")]
    NotAllowed(String),
    #[error("illegal move `{text}`: {reason}")]
    Illegal { text: String, reason: String },
    #[error("the game is over: {0}")]
    Over(String),
    #[error("it is the agent's turn, not yours")]
    NotYourTurn,
    #[error("nothing to undo: you have not moved yet")]
    NothingToUndo,
    #[error("the record: {0}")]
    Record(String),
}

/// A new game as the page asks for it.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// A preset's name.
    pub variant: String,
    /// The person's side (default: the side that moves first).
    #[serde(default)]
    pub side: Option<Side>,
    /// Any agent spec (default `ab:t=1s`); networks only from the server's models directory.
    #[serde(default)]
    pub agent: Option<String>,
    /// Seeds the agent and the die (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// A recorded game (tavlei's record or OpenTafl's `.otg`) to continue from its last position.
    #[serde(default)]
    pub record: Option<String>,
}

struct Slot {
    /// Changes each time the game does, so a search started before a change is not played.
    revision: u64,
    game: Game,
    person: Side,
    variant: String,
    agent: String,
    /// What the agent thought of the position it last moved in (or was asked about).
    analysis: Option<AnalysisView>,
}

struct Entry {
    slot: Mutex<Slot>,
    player: Mutex<Player>,
}

/// Every game the server keeps.
pub struct Games {
    next: AtomicU64,
    games: Mutex<HashMap<u64, Arc<Entry>>>,
    /// Network agents load checkpoints from here only.
    models: PathBuf,
    device: tch::Device,
    /// At most this many games; the oldest goes first.
    capacity: usize,
    /// The longest time budget an agent may ask for, and what every search is held to.
    limits: ServeLimits,
}

/// A lock that a panicking holder poisoned still guards data that every step leaves whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Games {
    pub fn new(models: &Path, device: tch::Device, capacity: usize) -> Games {
        Games {
            next: AtomicU64::new(1),
            games: Mutex::new(HashMap::new()),
            models: models.to_path_buf(),
            device,
            capacity: capacity.max(1),
            limits: ServeLimits::default(),
        }
    }

    /// The same games with agents asking at most `limits.move_time` a move, and every search
    /// bounded by `limits.search_cap()`.
    pub fn with_limits(mut self, limits: ServeLimits) -> Games {
        self.limits = limits;
        self
    }

    /// Games kept now.
    pub fn len(&self) -> usize {
        lock(&self.games).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The memory the kept games' alpha-beta tables hold (a table is made at its game's first
    /// search, and freed with its game).
    pub fn table_bytes(&self) -> usize {
        let entries: Vec<Arc<Entry>> = lock(&self.games).values().cloned().collect();
        entries.iter().map(|e| lock(&e.player).table_bytes()).sum()
    }

    pub fn models(&self) -> &Path {
        &self.models
    }

    /// Agents to offer for `variant`: alpha-beta and pure MCTS at a few times, random, alpha-beta
    /// with each learned evaluation (`.nnue`) of the variant in the models directory, and each
    /// network of the variant there.
    pub fn suggested_agents(&self, variant: &str) -> Vec<String> {
        let mut agents: Vec<String> = ["ab:t=1s", "ab:t=100ms", "ab:t=50ms", "mcts:t=1s", "random"]
            .map(String::from)
            .to_vec();
        let learned = self.models_of("nnue", |p| {
            tavlei_nnue::Network::load(p).is_ok_and(|n| n.meta().variant == variant)
        });
        agents.extend(
            learned
                .iter()
                .map(|p| format!("ab:t=1s:nnue={}", p.display())),
        );
        let nets = self.models_of("safetensors", |p| {
            let sidecar = crate::nn::checkpoint::sidecar_path(p);
            std::fs::read_to_string(&sidecar)
                .ok()
                .and_then(|text| CheckpointMeta::parse(&text, p).ok())
                .is_some_and(|meta| meta.variant == variant)
        });
        agents.extend(nets.iter().map(|p| format!("net:{}:t=1s", p.display())));
        agents
    }

    /// The files of the models directory with `extension` that `fits`, sorted.
    fn models_of(&self, extension: &str, fits: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&self.models)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == extension) && fits(p))
            .collect();
        found.sort();
        found
    }

    /// An agent spec the server will load: a network only from the models directory, a time
    /// or simulation budget within bounds.
    pub fn agent(&self, text: &str) -> Result<AgentSpec, GameError> {
        let spec = AgentSpec::parse(text)?;
        let network = match &spec.kind {
            AgentKind::Network(path) => Some(path),
            _ => None,
        };
        // a checkpoint or a learned evaluation: only what the server's owner put in its models
        for path in network.into_iter().chain(spec.nnue.as_ref()) {
            let inside = path
                .canonicalize()
                .ok()
                .zip(self.models.canonicalize().ok())
                .is_some_and(|(p, dir)| p.starts_with(dir));
            if !inside {
                return Err(GameError::NotAllowed(format!(
                    "networks are loaded from the server's models directory ({}) only, not {}",
                    self.models.display(),
                    path.display()
                )));
            }
        }
        if spec.alphabeta_config.is_some() {
            return Err(GameError::NotAllowed(
                "alpha-beta weight files (`eval=`) are not loaded by the server".into(),
            ));
        }
        if spec.time().is_some_and(|t| t > self.limits.move_time) || spec.simulations() > 1_000_000
        {
            return Err(GameError::NotAllowed(format!(
                "{text}: at most {} s or 1,000,000 simulations a move",
                self.limits.move_time.as_secs_f64()
            )));
        }
        Ok(spec)
    }

    /// Starts a game (from a record's last position when one is given) and returns its view.
    pub fn create(&self, request: &NewGame) -> Result<GameView, GameError> {
        if crate::rules::presets::preset_text(&request.variant).is_none() {
            return Err(GameError::Variant(format!(
                "`{}` is not a preset (GET /api/variants lists them)",
                request.variant
            )));
        }
        let variant =
            Variant::load(&request.variant).map_err(|e| GameError::Variant(e.to_string()))?;
        let spec = self.agent(request.agent.as_deref().unwrap_or("ab:t=1s"))?;
        let seed = request.seed.unwrap_or(1);
        let player = Player::new(&spec, variant.name(), self.device, seed)?
            .keeping_table()
            .capped(self.limits.search_cap());
        let start = Position::start(&variant);
        let mut game = Game::new(start.clone(), seed);
        if let Some(text) = &request.record {
            replay_into(&mut game, &variant, text)?;
        }
        game.settle();
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = Slot {
            revision: 0,
            game,
            person: request.side.unwrap_or(variant.rules.movement.first),
            variant: variant.name().to_string(),
            agent: spec.text.clone(),
            analysis: None,
        };
        let view = GameView::of(id, &slot.game, slot.person, &slot.agent, None);
        let mut games = lock(&self.games);
        while games.len() >= self.capacity {
            let Some(&oldest) = games.keys().min() else {
                break;
            };
            games.remove(&oldest);
        }
        games.insert(
            id,
            Arc::new(Entry {
                slot: Mutex::new(slot),
                player: Mutex::new(player),
            }),
        );
        Ok(view)
    }

    fn entry(&self, id: u64) -> Result<Arc<Entry>, GameError> {
        lock(&self.games)
            .get(&id)
            .cloned()
            .ok_or(GameError::NoGame(id))
    }

    pub fn view(&self, id: u64) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        let slot = lock(&entry.slot);
        Ok(slot.view(id))
    }

    /// The person's move, checked: an illegal one is refused with the rule it breaks.
    pub fn play(&self, id: u64, text: &str) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        let mut slot = lock(&entry.slot);
        if let Some(end) = slot.game.end() {
            return Err(GameError::Over(end));
        }
        if slot.game.position().side_to_move() != slot.person {
            return Err(GameError::NotYourTurn);
        }
        let typed = crate::play::command::with_dash(&text.trim().to_ascii_lowercase());
        let parsed = slot
            .game
            .position()
            .parse_move(&typed)
            .map_err(|e| GameError::Illegal {
                text: text.to_string(),
                reason: reason_of(&e.to_string(), text),
            })?;
        slot.game.push(parsed.mv, Mover::Person);
        slot.game.settle();
        slot.revision += 1;
        Ok(slot.view(id))
    }

    /// The agent's move where it is to move (its search runs on the calling thread, outside the
    /// game's lock); otherwise the game as it is.
    pub fn reply(&self, id: u64) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        // one search per game at a time: a second request waits here, then finds it done
        let mut player = lock(&entry.player);
        loop {
            let (pos, revision) = {
                let slot = lock(&entry.slot);
                let pos = slot.game.position();
                if slot.game.end().is_some() || pos.side_to_move() == slot.person {
                    return Ok(slot.view(id));
                }
                (pos.clone(), slot.revision)
            };
            let analysis = player.analyse(&pos, None);
            let mut slot = lock(&entry.slot);
            if slot.revision != revision {
                // undone meanwhile: think again about what is there now
                continue;
            }
            let Some(analysis) = analysis else {
                return Err(GameError::Over("the agent found no move".into()));
            };
            slot.analysis = Some(AnalysisView::of(&analysis, &pos, &slot.agent));
            slot.game.push(analysis.best, Mover::Agent);
            slot.game.settle();
            slot.revision += 1;
        }
    }

    /// The agent's analysis of the position as it stands (a hint for the person), played nowhere.
    pub fn analyse(&self, id: u64) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        let mut player = lock(&entry.player);
        let (pos, revision) = {
            let slot = lock(&entry.slot);
            if let Some(end) = slot.game.end() {
                return Err(GameError::Over(end));
            }
            (slot.game.position().clone(), slot.revision)
        };
        let analysis: Option<Analysis> = player.analyse(&pos, None);
        let mut slot = lock(&entry.slot);
        if let (Some(a), true) = (analysis, slot.revision == revision) {
            slot.analysis = Some(AnalysisView::of(&a, &pos, &slot.agent));
        }
        Ok(slot.view(id))
    }

    /// Takes back the person's last move (and the agent's reply), or a resignation.
    pub fn undo(&self, id: u64) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        let mut slot = lock(&entry.slot);
        if !slot.game.take_back_resignation() {
            slot.game.undo().ok_or(GameError::NothingToUndo)?;
        }
        slot.analysis = None;
        slot.revision += 1;
        Ok(slot.view(id))
    }

    pub fn resign(&self, id: u64) -> Result<GameView, GameError> {
        let entry = self.entry(id)?;
        let mut slot = lock(&entry.slot);
        if let Some(end) = slot.game.end() {
            return Err(GameError::Over(end));
        }
        let person = slot.person;
        slot.game.resign(person);
        slot.revision += 1;
        Ok(slot.view(id))
    }

    /// The game as a record `tavlei replay` reads.
    pub fn record(&self, id: u64) -> Result<String, GameError> {
        let entry = self.entry(id)?;
        let slot = lock(&entry.slot);
        let title = format!(
            "tavlei serve: the {} (a person) against {}",
            slot.person.name(),
            slot.agent
        );
        Ok(slot.game.record(&title, &slot.variant))
    }

    /// The game as OpenTafl's `.otg`.
    pub fn otg(&self, id: u64) -> Result<String, GameError> {
        let text = self.record(id)?;
        let entry = self.entry(id)?;
        let variant = lock(&entry.slot).game.position().variant().clone();
        let game = crate::rules::replay::recorded_games(&text)
            .into_iter()
            .next()
            .ok_or_else(|| GameError::Record("no game in the record".into()))?;
        otg::export(&variant, &game)
            .map(|e| e.text)
            .map_err(|e| GameError::Record(e.to_string()))
    }
}

impl Slot {
    fn view(&self, id: u64) -> GameView {
        GameView::of(
            id,
            &self.game,
            self.person,
            &self.agent,
            self.analysis.as_ref(),
        )
    }
}

/// The rule a move breaks, without repeating the move (the parser's message names it first).
fn reason_of(message: &str, text: &str) -> String {
    let prefix = format!("illegal move `{text}`: ");
    message.strip_prefix(&prefix).unwrap_or(message).to_string()
}

/// Plays a recorded game's moves (tavlei's record or `.otg`) into `game`, as the person's.
fn replay_into(game: &mut Game, variant: &Arc<Variant>, text: &str) -> Result<(), GameError> {
    let recorded = otg::read_games(text, false)
        .map_err(|e| GameError::Record(e.to_string()))?
        .into_iter()
        .next()
        .ok_or_else(|| GameError::Record("no moves found".into()))?;
    if let Some(name) = recorded.tag("variant") {
        if name != variant.name() {
            return Err(GameError::Record(format!(
                "the record is a game of {name}, not {}",
                variant.name()
            )));
        }
    }
    if game.start().needs_roll() {
        return Err(GameError::Record(format!(
            "{} rolls a die before each move; continuing its records is not supported",
            variant.name()
        )));
    }
    for step in steps(game.start(), &recorded.moves) {
        let step = step.map_err(|illegal| {
            GameError::Record(format!(
                "ply {}: {} is illegal ({})",
                illegal.ply, illegal.mv, illegal.reason
            ))
        })?;
        game.push(step.mv, Mover::Person);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn new_game(agent: &str) -> NewGame {
        NewGame {
            variant: "brandubh".into(),
            side: Some(Side::Defenders),
            agent: Some(agent.into()),
            seed: Some(1),
            record: None,
        }
    }

    #[test]
    fn a_table_is_made_at_its_games_first_search_and_freed_with_its_game() {
        let games = Games::new(Path::new("models"), tch::Device::Cpu, 3);
        let ids: Vec<u64> = (0..3)
            .map(|_| games.create(&new_game("ab:1")).expect("a game").id)
            .collect();
        assert_eq!(games.table_bytes(), 0, "no table before a search");
        // the attackers (the agent) move first
        games.reply(ids[0]).expect("the agent moves");
        let one = games.table_bytes();
        assert!(one > 0, "the searching game has its table");
        games.reply(ids[1]).expect("the agent moves");
        assert_eq!(games.table_bytes(), 2 * one);
        // a fourth game pushes out the oldest, its table with it
        games.create(&new_game("random")).expect("a game");
        assert_eq!((games.len(), games.table_bytes()), (3, one));
    }

    #[test]
    fn a_depth_or_a_simulation_count_is_stopped_by_the_servers_clock() {
        let limits = ServeLimits {
            move_time: Duration::from_secs(1),
            tree_bytes: 64 << 20,
            ..ServeLimits::default()
        };
        let games = Games::new(Path::new("models"), tch::Device::Cpu, 10).with_limits(limits);
        // uncapped, `ab:6` searches for tens of seconds and `mcts:200000` for seconds (and a
        // gigabyte): what shows the cap is the work done, short of what was asked
        for (agent, asked) in [("ab:6", 6), ("mcts:200000", 200_000)] {
            let id = games
                .create(&NewGame {
                    variant: "copenhagen".into(),
                    ..new_game(agent)
                })
                .expect("a game")
                .id;
            let view = games.reply(id).expect("the agent moves");
            let analysis = view.analysis.expect("the agent's analysis");
            let done = analysis.depth.map_or(analysis.work, u64::from);
            assert!(done > 0 && done < asked, "{agent}: {done}");
        }
        let refused = games.agent("ab:t=2s").expect_err("over the longest move");
        assert!(refused.to_string().contains("at most 1 s"), "{refused}");
    }
}
