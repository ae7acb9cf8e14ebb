//! `tavlei analyze`: an analysis engine on JSON lines, in the manner of KataGo's. Each input line
//! is a query (variant, position or moves, agent, budget); each answer line reports the moves
//! searched (visits, prior, value, expected line) and the root value for the side to move, or an
//! error with the query's id. Queries keep arriving while others are searched: the tree searches
//! in flight that share an agent are stepped together and their leaves evaluated in one batch,
//! which is what makes a network agent fast on many positions. Answers come in the order the
//! searches finish, each with its id.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::eval::agent::{parse_budget, AgentSpec};
use crate::rules::notation::{parse_otn, parse_side, split_roll};
use crate::rules::{Position, Side, Variant};
use crate::search::mcts::batch::evaluate_pending;
use crate::search::{Budget, Choice, Proof, Search, Step};

use super::analysis::Analysis;
use super::player::Player;

/// One query line. Only `id` is required when the engine was started with a variant and agent.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Query {
    /// Any JSON value; the answer carries it back.
    id: Value,
    /// A preset name, a variant file or an OTN rules string (default: the engine's).
    variant: Option<String>,
    /// An OTN position (default: the variant's start).
    position: Option<String>,
    /// The side to move in `position` (default: the variant's first mover).
    to_move: Option<String>,
    /// Moves played from the position (or the start), in OTN.
    #[serde(default)]
    moves: Vec<String>,
    /// The die for the coming move, in variants with dice.
    roll: Option<u8>,
    /// An agent spec (default: the engine's).
    agent: Option<String>,
    /// Simulations (`400`) or time (`"t=200ms"`), replacing the agent's own budget.
    budget: Option<Value>,
    /// Report at most this many moves (default: all).
    max_moves: Option<usize>,
}

#[derive(Serialize, Debug)]
struct MoveAnswer {
    #[serde(rename = "move")]
    mv: String,
    visits: u32,
    prior: Option<f32>,
    value: Option<f32>,
    proof: Option<&'static str>,
    pv: Vec<String>,
}

#[derive(Serialize, Debug)]
struct Answer {
    id: Value,
    to_move: &'static str,
    best: String,
    /// The position's value for the side to move, in [-1, 1].
    value: f32,
    /// Simulations (tree search) or nodes (alpha-beta).
    work: u64,
    depth: Option<u32>,
    seconds: f64,
    moves: Vec<MoveAnswer>,
}

#[derive(Serialize, Debug)]
struct ErrorAnswer {
    id: Value,
    error: String,
}

fn proof_name(p: Proof) -> &'static str {
    match p {
        Proof::Win => "win",
        Proof::Draw => "draw",
        Proof::Loss => "loss",
    }
}

/// The agent and variant a query names: searches sharing it share a player (and its network).
type PlayerKey = (String, String);

/// A tree search in progress.
struct Flight {
    id: Value,
    key: PlayerKey,
    search: Search,
    rng: ChaCha8Rng,
    started: Instant,
    max_moves: Option<usize>,
    /// A leaf waits for its evaluation.
    waiting: bool,
    done: bool,
}

/// The engine's defaults and the players it has loaded.
pub struct AnalysisEngine {
    variant: Option<String>,
    agent: AgentSpec,
    device: tch::Device,
    seed: u64,
    variants: HashMap<String, Arc<Variant>>,
    players: HashMap<PlayerKey, Player>,
}

impl AnalysisEngine {
    pub fn new(
        variant: Option<String>,
        agent: AgentSpec,
        device: tch::Device,
        seed: u64,
    ) -> AnalysisEngine {
        AnalysisEngine {
            variant,
            agent,
            device,
            seed,
            variants: HashMap::new(),
            players: HashMap::new(),
        }
    }

    /// Answers queries from `input` until it ends and every search in flight has finished.
    pub fn run<R: BufRead + Send + 'static>(
        &mut self,
        input: R,
        mut output: impl Write,
    ) -> std::io::Result<()> {
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || -> std::io::Result<()> {
            for line in super::lossy_lines(input) {
                if tx.send(line?).is_err() {
                    break;
                }
            }
            Ok(())
        });
        self.serve(&rx, &mut output)?;
        reader
            .join()
            .map_err(|_| std::io::Error::other("the input reader panicked"))?
    }

    fn serve(&mut self, rx: &Receiver<String>, output: &mut impl Write) -> std::io::Result<()> {
        let mut flights: Vec<Flight> = Vec::new();
        let mut line_number = 0usize;
        loop {
            // wait for work only when nothing is being searched
            if flights.is_empty() {
                match rx.recv() {
                    Ok(line) => {
                        line_number += 1;
                        self.admit(&line, line_number, &mut flights, output)?;
                    }
                    Err(_) => return Ok(()),
                }
            }
            while let Ok(line) = rx.try_recv() {
                line_number += 1;
                self.admit(&line, line_number, &mut flights, output)?;
            }
            self.round(&mut flights, output)?;
        }
    }

    /// Reads a query; a search starts, an immediate answer (alpha-beta, random) or an error is
    /// written.
    fn admit(
        &mut self,
        line: &str,
        line_number: usize,
        flights: &mut Vec<Flight>,
        output: &mut impl Write,
    ) -> std::io::Result<()> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let query: Query = match serde_json::from_str(line) {
            Ok(q) => q,
            Err(e) => {
                // the id, when the line is JSON with one, even if the query is not valid
                let id = serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|v| v.get("id").cloned())
                    .unwrap_or(Value::Null);
                return write_line(
                    output,
                    &ErrorAnswer {
                        id,
                        error: format!("line {line_number}: {e}"),
                    },
                );
            }
        };
        let id = query.id.clone();
        match self.start(query) {
            Ok(Started::Flight(f)) => {
                flights.push(*f);
                Ok(())
            }
            Ok(Started::Answered(answer)) => write_line(output, &answer),
            Err(error) => write_line(output, &ErrorAnswer { id, error }),
        }
    }

    fn start(&mut self, q: Query) -> Result<Started, String> {
        let variant_text = q
            .variant
            .or_else(|| self.variant.clone())
            .ok_or("no `variant` in the query, and the engine has no --variant")?;
        let variant = match self.variants.get(&variant_text) {
            Some(v) => v.clone(),
            None => {
                let v = crate::interop::load_variant(&variant_text).map_err(|e| e.to_string())?;
                self.variants.insert(variant_text.clone(), v.clone());
                v
            }
        };
        let pos = query_position(
            &variant,
            q.position.as_deref(),
            q.to_move.as_deref(),
            &q.moves,
            q.roll,
        )?;
        let spec = match &q.agent {
            Some(text) => AgentSpec::parse(text).map_err(|e| format!("agent: {e}"))?,
            None => self.agent.clone(),
        };
        let budget = match &q.budget {
            None => None,
            Some(value) => Some(parse_query_budget(value)?),
        };
        let key: PlayerKey = (spec.text.clone(), variant.name().to_string());
        if !self.players.contains_key(&key) {
            let player = Player::new(&spec, variant.name(), self.device, self.seed)
                .map_err(|e| e.to_string())?;
            self.players.insert(key.clone(), player);
        }
        let player = self
            .players
            .get_mut(&key)
            .ok_or("the player was just loaded")?;
        let started = Instant::now();
        let Some(config) = player.search_config() else {
            // alpha-beta and random answer at once
            let analysis = player
                .analyse(&pos, budget)
                .ok_or("no legal move in this position")?;
            return Ok(Started::Answered(answer(
                q.id,
                &pos,
                &analysis,
                started,
                q.max_moves,
            )));
        };
        let budget = budget.unwrap_or(spec.budget);
        let rng = ChaCha8Rng::seed_from_u64(query_seed(self.seed, &q.id));
        Ok(Started::Flight(Box::new(Flight {
            id: q.id,
            key,
            search: Search::new(pos, config, budget),
            rng,
            started,
            max_moves: q.max_moves,
            waiting: false,
            done: false,
        })))
    }

    /// Advances every search to its next leaf, evaluates the leaves of each player in one batch,
    /// and answers the searches that finished.
    fn round(&mut self, flights: &mut Vec<Flight>, output: &mut impl Write) -> std::io::Result<()> {
        for f in flights.iter_mut() {
            f.waiting = f.search.step(None, &mut f.rng) == Step::NeedsEval;
            f.done = !f.waiting;
        }
        let keys: Vec<PlayerKey> = {
            let mut keys: Vec<PlayerKey> = flights
                .iter()
                .filter(|f| f.waiting)
                .map(|f| f.key.clone())
                .collect();
            keys.sort();
            keys.dedup();
            keys
        };
        for key in keys {
            let Some(evaluator) = self.players.get_mut(&key).and_then(Player::evaluator) else {
                continue;
            };
            let mut group: Vec<_> = flights
                .iter_mut()
                .filter(|f| f.waiting && f.key == key)
                .map(|f| {
                    f.waiting = false;
                    (&mut f.search, &mut f.rng)
                })
                .collect();
            evaluate_pending(&mut group, evaluator, None);
        }
        let mut k = 0;
        while k < flights.len() {
            if !flights[k].done {
                k += 1;
                continue;
            }
            let mut f = flights.swap_remove(k);
            let pos = f.search.tree().root_position().clone();
            match f.search.decide(Choice::Best, &mut f.rng) {
                Some(decision) => {
                    let analysis = Analysis::of_search(&f.search, &decision);
                    write_line(
                        output,
                        &answer(f.id, &pos, &analysis, f.started, f.max_moves),
                    )?;
                }
                None => write_line(
                    output,
                    &ErrorAnswer {
                        id: f.id,
                        error: "no legal move in this position".into(),
                    },
                )?,
            }
        }
        Ok(())
    }
}

enum Started {
    Flight(Box<Flight>),
    Answered(Answer),
}

/// The position a query describes: a position (or the start), then its moves, each checked.
fn query_position(
    variant: &Arc<Variant>,
    position: Option<&str>,
    to_move: Option<&str>,
    moves: &[String],
    roll: Option<u8>,
) -> Result<Position, String> {
    let side: Side = match to_move {
        Some(text) => parse_side(text).map_err(|e| format!("to_move: {e}"))?,
        None => variant.rules.movement.first,
    };
    let mut pos = match position {
        Some(otn) => parse_otn(variant, otn, side).map_err(|e| format!("position: {e}"))?,
        None => Position::start(variant),
    };
    for (i, text) in moves.iter().enumerate() {
        // a recorded move may carry its die roll in front (`3:e5-e7`)
        let (die, text) = split_roll(text);
        if pos.needs_roll() {
            let die = die.ok_or(format!(
                "moves[{i}] `{text}`: a die roll must come first, as `3:{text}`"
            ))?;
            pos.set_roll(die);
        }
        pos.play(text).map_err(|e| format!("moves[{i}]: {e}"))?;
    }
    if let Some(outcome) = pos.outcome() {
        return Err(format!(
            "the game is over here ({}, {})",
            outcome.result_name(),
            outcome.reason.name()
        ));
    }
    if pos.needs_roll() {
        let die = roll
            .filter(|d| (1..=6).contains(d))
            .ok_or("this variant rolls a die before each move: give `roll` (1 to 6)")?;
        pos.set_roll(die);
    }
    Ok(pos)
}

/// A query's own random numbers: from the engine's seed and the query's id, so that a query
/// searches the same way alone or among others (a network agent's answers then match; rollouts
/// draw from the agent's one generator, in the order the searches ask).
fn query_seed(seed: u64, id: &Value) -> u64 {
    let text = id.to_string();
    // FNV-1a: a stable hash, unlike std's
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    seed ^ hash
}

fn parse_query_budget(value: &Value) -> Result<Budget, String> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => {
            return Err(format!(
                "budget: expected simulations (400) or a time (\"t=200ms\"), got {other}"
            ))
        }
    };
    parse_budget(&text).ok_or_else(|| {
        format!("budget: `{text}` is neither simulations (400) nor a time (\"t=200ms\")")
    })
}

fn answer(
    id: Value,
    pos: &Position,
    analysis: &Analysis,
    started: Instant,
    max_moves: Option<usize>,
) -> Answer {
    let size = pos.variant().size;
    let name = |m: crate::rules::Move| m.name(size);
    Answer {
        id,
        to_move: pos.side_to_move().name(),
        best: name(analysis.best),
        value: analysis.value,
        work: analysis.work,
        depth: analysis.depth,
        seconds: started.elapsed().as_secs_f64(),
        moves: analysis
            .candidates
            .iter()
            .take(max_moves.unwrap_or(usize::MAX))
            .map(|c| MoveAnswer {
                mv: name(c.mv),
                visits: c.visits,
                prior: c.prior,
                value: c.value,
                proof: c.proof.map(proof_name),
                pv: c.pv.iter().map(|&m| name(m)).collect(),
            })
            .collect(),
    }
}

fn write_line(output: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
    let text = serde_json::to_string(value).map_err(std::io::Error::other)?;
    writeln!(output, "{text}")?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(agent: &str) -> AnalysisEngine {
        AnalysisEngine::new(
            Some("brandubh".into()),
            AgentSpec::parse(agent).expect("spec"),
            tch::Device::Cpu,
            5,
        )
    }

    /// The answers to `input`, by id (as text).
    fn answers(engine: &mut AnalysisEngine, input: &str) -> HashMap<String, Value> {
        let mut out = Vec::new();
        engine
            .run(std::io::Cursor::new(input.to_string()), &mut out)
            .expect("runs");
        String::from_utf8(out)
            .expect("utf-8")
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("each answer is JSON");
                (v["id"].to_string(), v)
            })
            .collect()
    }

    fn legal_here(moves: &[&str], answer: &Value) {
        let v = Variant::load("brandubh").expect("preset");
        let mut pos = Position::start(&v);
        for m in moves {
            pos.play(m).expect("legal");
        }
        let best = answer["best"].as_str().expect("best");
        pos.parse_move(best).expect("the best move is legal");
        for m in answer["moves"].as_array().expect("moves") {
            let mut line = pos.clone();
            for step in m["pv"].as_array().expect("pv") {
                line.play(step.as_str().expect("text"))
                    .expect("the line is legal");
            }
        }
    }

    #[test]
    fn many_queries_in_flight_each_get_their_answer() {
        let mut e = engine("mcts:64");
        let input = [
            r#"{"id": 1}"#,
            r#"{"id": "two", "moves": ["d2-b2"], "max_moves": 3}"#,
            r#"{"id": 3, "moves": ["d2-b2", "d3-c3"], "budget": 32}"#,
            r#"{"id": 4, "agent": "ab:2"}"#,
            r#"{"id": 5, "agent": "random"}"#,
        ]
        .join("\n");
        let got = answers(&mut e, &input);
        assert_eq!(got.len(), 5, "{got:?}");
        legal_here(&[], &got["1"]);
        legal_here(&["d2-b2"], &got["\"two\""]);
        legal_here(&["d2-b2", "d3-c3"], &got["3"]);
        legal_here(&[], &got["4"]);
        legal_here(&[], &got["5"]);
        assert_eq!(got["1"]["work"], 64);
        assert_eq!(
            got["3"]["work"], 32,
            "the query's budget replaces the agent's"
        );
        assert_eq!(got["\"two\""]["to_move"], "defenders");
        assert_eq!(got["\"two\""]["moves"].as_array().map(Vec::len), Some(3));
        let visits: u64 = got["1"]["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["visits"].as_u64().expect("visits"))
            .sum();
        assert!(
            visits >= 60,
            "the root's visits are the simulations: {visits}"
        );
        let value = got["1"]["value"].as_f64().expect("value");
        assert!((-1.0..=1.0).contains(&value));
        assert!(
            got["4"]["depth"].as_u64().is_some(),
            "alpha-beta reports its depth"
        );
    }

    #[test]
    fn a_network_agent_answers_a_query_the_same_alone_or_batched_with_others() {
        let dir = tempfile::tempdir().expect("tmp");
        let ckpt = dir.path().join("net.safetensors");
        crate::nn::Network::new(
            "brandubh",
            crate::nn::Architecture {
                blocks: 1,
                channels: 8,
            },
            tch::Device::Cpu,
            3,
        )
        .save(&ckpt)
        .expect("saves");
        let agent = format!("net:{}:48", ckpt.display());
        let query = r#"{"id": 9, "moves": ["d2-b2"]}"#;
        let alone = answers(&mut engine(&agent), query);
        let crowd = [
            r#"{"id": 1}"#,
            query,
            r#"{"id": 2, "moves": ["d2-d1"]}"#,
            r#"{"id": 3, "moves": ["d2-b2", "d3-c3"]}"#,
        ]
        .join("\n");
        let among = answers(&mut engine(&agent), &crowd);
        assert_eq!(among.len(), 4);
        let visits = |a: &Value| -> Vec<(String, u64)> {
            a["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| (m["move"].to_string(), m["visits"].as_u64().unwrap_or(0)))
                .collect()
        };
        assert_eq!(visits(&alone["9"]), visits(&among["9"]));
        assert_eq!(alone["9"]["best"], among["9"]["best"]);
    }

    #[test]
    fn bad_queries_get_errors_with_their_ids() {
        let mut e = engine("mcts:16");
        let input = [
            r#"{"id": 1, "moves": ["d2-b2", "d2-b2"]}"#,
            r#"{"id": 2, "colour": "red"}"#,
            r#"not json"#,
            r#"{"id": 4, "variant": "chess"}"#,
            r#"{"id": 5, "agent": "alien:3"}"#,
            r#"{"id": 6, "budget": "soon"}"#,
            r#"{"id": 7, "position": "/3/"}"#,
            r#"{"id": 8, "agent": "net:missing.safetensors:8"}"#,
            r#"{"id": 10, "budget": "t=1e300s"}"#,
            r#"{"id": 11, "moves": ["9:d2-b2"]}"#,
        ]
        .join("\n");
        let got = answers(&mut e, &input);
        let error = |id: &str| got[id]["error"].as_str().unwrap_or("").to_string();
        assert!(error("1").starts_with("moves[1]"), "{}", error("1"));
        assert!(error("2").contains("colour"), "{}", error("2"));
        assert!(error("null").starts_with("line 3"), "{}", error("null"));
        assert!(error("4").contains("chess"), "{}", error("4"));
        assert!(error("5").starts_with("agent"), "{}", error("5"));
        assert!(error("6").starts_with("budget"), "{}", error("6"));
        assert!(error("7").starts_with("position"), "{}", error("7"));
        assert!(error("8").contains("missing.safetensors"), "{}", error("8"));
        assert!(error("10").starts_with("budget"), "{}", error("10"));
        assert!(error("11").starts_with("moves[0]"), "{}", error("11"));
    }
}
