//! OpenTafl's external engine protocol (OTEP): one US-ASCII message a line on standard input and
//! output, nothing acknowledged. The host sends `hello` (answered at once), `rules` (an OTN rules
//! string: a new game at its start), `clock`, `play SIDE` (answered with `move MOVE`), `move
//! POSITION` (its confirmation of our move), `opponent-move MOVES POSITION`, `position`/`side`
//! (analysis and replay), `analyze N SECONDS` (answered with `analysis`), `error`, `finish` and
//! `goodbye`. The engine keeps its own game (for repetition) and trusts the host's board where
//! the two differ: after an illegal move the host sends `error`, then the previous move with the
//! board before ours, then `play` again.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use crate::eval::agent::AgentSpec;
use crate::interop::otn_rules::differences;
use crate::rules::notation::{parse_otn, position_to_otn};
use crate::rules::{Move, Position, Side, Variant};
use crate::search::Budget;

use super::analysis::Analysis;
use super::player::Player;

/// How the engine is set up before any game: its agent, and the variant (if any) its network
/// was trained for.
pub struct EngineSetup {
    pub agent: AgentSpec,
    /// A variant given on the command line: rules equal to it keep its name (a network's
    /// variant); other rules are played under the host's name for them.
    pub home: Option<Arc<Variant>>,
    pub device: tch::Device,
    pub seed: u64,
}

/// What the host's clock says, from `clock A D OVERTIME A-OVERTIMES D-OVERTIMES`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Clock {
    attackers: Duration,
    defenders: Duration,
    overtime: Duration,
    attacker_overtimes: u32,
    defender_overtimes: u32,
}

impl Clock {
    fn parse(words: &[&str]) -> Option<Clock> {
        let [a, d, overtime, ao, dov] = words else {
            return None;
        };
        let ms = |w: &str| w.trim_end_matches('*').parse::<u64>().ok();
        Some(Clock {
            attackers: Duration::from_millis(ms(a)?),
            defenders: Duration::from_millis(ms(d)?),
            overtime: Duration::try_from_secs_f64(overtime.parse::<f64>().ok()?).ok()?,
            attacker_overtimes: ao.parse().ok()?,
            defender_overtimes: dov.parse().ok()?,
        })
    }

    /// The time to spend on one move for `side`: the larger of a thirtieth of the main time and,
    /// while overtime periods remain, 80 % of one (a period is spent anyway once the main time
    /// is gone); never under 10 ms. The `*` (in overtime) marks are read but not needed.
    fn budget(&self, side: Side) -> Duration {
        let (left, overtimes) = match side {
            Side::Attackers => (self.attackers, self.attacker_overtimes),
            Side::Defenders => (self.defenders, self.defender_overtimes),
        };
        let main = left / 30;
        let overtime = if overtimes > 0 {
            self.overtime * 4 / 5
        } else {
            Duration::ZERO
        };
        main.max(overtime).max(Duration::from_millis(10))
    }
}

/// One game under the host's rules.
struct Game {
    variant: Arc<Variant>,
    /// Every position of the game, the current one last.
    history: Vec<Position>,
    player: Player,
    /// Our last move waits for the host's confirmation: the history's length before it, and its
    /// first step. An `error` takes it back.
    unconfirmed: Option<(usize, Move)>,
    /// Moves the host refused, by the hash of the position they were played in: the retry plays
    /// something else (a deterministic agent would otherwise send the same move again).
    refused: Vec<(u64, Move)>,
}

impl Game {
    fn position(&self) -> &Position {
        self.history.last().expect("a game has a start")
    }

    /// The agent's move in `pos` unless the host refused it there: then its best other
    /// candidate, else the first legal move not refused; `None` when every move was refused.
    fn unrefused(&self, pos: &Position, analysis: &Analysis) -> Option<Move> {
        let hash = pos.hash();
        let allowed = |mv: &Move| !self.refused.contains(&(hash, *mv));
        if allowed(&analysis.best) {
            return Some(analysis.best);
        }
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        analysis
            .candidates
            .iter()
            .map(|c| c.mv)
            .chain(legal)
            .find(allowed)
    }
}

pub struct OtepEngine {
    setup: EngineSetup,
    game: Option<Game>,
    clock: Option<Clock>,
}

/// A message's effect: answers to write, and whether to stop.
struct Reply {
    lines: Vec<String>,
    quit: bool,
}

impl Reply {
    fn none() -> Reply {
        Reply {
            lines: vec![],
            quit: false,
        }
    }

    fn line(text: String) -> Reply {
        Reply {
            lines: vec![text],
            quit: false,
        }
    }
}

/// A failure answered with `error CODE MESSAGE`: −1 critical (the host should stop using the
/// engine), 0 not.
struct Failure {
    critical: bool,
    message: String,
}

fn minor(message: impl Into<String>) -> Failure {
    Failure {
        critical: false,
        message: message.into(),
    }
}

fn critical(message: impl Into<String>) -> Failure {
    Failure {
        critical: true,
        message: message.into(),
    }
}

fn parse_side(word: Option<&&str>) -> Result<Side, Failure> {
    match word.copied() {
        Some("attackers") => Ok(Side::Attackers),
        Some("defenders") => Ok(Side::Defenders),
        other => Err(minor(format!(
            "expected `attackers` or `defenders`, got `{}`",
            other.unwrap_or("")
        ))),
    }
}

/// `pos` with `side` to move (its board only: the history starts again).
fn with_side(pos: &Position, side: Side) -> Result<Position, Failure> {
    if pos.side_to_move() == side {
        return Ok(pos.clone());
    }
    parse_otn(pos.variant(), &position_to_otn(pos), side).map_err(|e| minor(e.to_string()))
}

/// The host's board text without decoration: OpenTafl writes positions between slashes.
fn same_board(pos: &Position, otn: &str) -> bool {
    position_to_otn(pos).trim_matches('/') == otn.trim().trim_matches('/')
}

impl OtepEngine {
    pub fn new(setup: EngineSetup) -> OtepEngine {
        OtepEngine {
            setup,
            game: None,
            clock: None,
        }
    }

    /// Reads messages until `goodbye` or the end of input, answering those that need it.
    pub fn run(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        for line in super::lossy_lines(input) {
            let line = line?;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let reply = match self.handle(line) {
                Ok(reply) => reply,
                Err(f) => Reply::line(format!(
                    "error {} {}",
                    if f.critical { -1 } else { 0 },
                    f.message.replace('\n', " ")
                )),
            };
            for text in &reply.lines {
                writeln!(output, "{text}")?;
            }
            output.flush()?;
            if reply.quit {
                break;
            }
        }
        Ok(())
    }

    fn handle(&mut self, line: &str) -> Result<Reply, Failure> {
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let words: Vec<&str> = rest.split_whitespace().collect();
        match command {
            "hello" => Ok(Reply::line("hello".into())),
            "goodbye" => Ok(Reply {
                lines: vec![],
                quit: true,
            }),
            "rules" => self.rules(rest.trim()),
            "position" => self.set_position(rest.trim()),
            "side" => {
                let side = parse_side(words.first())?;
                let game = self.game_mut()?;
                let pos = with_side(game.position(), side)?;
                game.history = vec![pos];
                game.unconfirmed = None;
                Ok(Reply::none())
            }
            "clock" => {
                self.clock = Some(Clock::parse(&words).ok_or_else(|| {
                    minor(format!("cannot read the clock `{rest}`: expected `clock A-MS D-MS OVERTIME-S A-OVERTIMES D-OVERTIMES`"))
                })?);
                Ok(Reply::none())
            }
            "play" => self.play(parse_side(words.first())?),
            "move" => self.confirm(rest.trim()),
            "opponent-move" => self.opponent_move(&words),
            "analyze" => self.analyze(&words),
            "error" => {
                // the host refused our last move: take it back and wait for its board
                let game = self.game_mut()?;
                if let Some((len, first)) = game.unconfirmed.take() {
                    game.history.truncate(len);
                    let hash = game.position().hash();
                    game.refused.push((hash, first));
                }
                tracing::warn!("the host reports an error: {rest}");
                Ok(Reply::none())
            }
            "finish" => {
                if let Some(game) = self.game.as_mut() {
                    game.unconfirmed = None;
                }
                Ok(Reply::none())
            }
            other => Err(minor(format!("unknown message `{other}`"))),
        }
    }

    fn game_mut(&mut self) -> Result<&mut Game, Failure> {
        self.game
            .as_mut()
            .ok_or_else(|| minor("no rules yet: the host must send `rules` first"))
    }

    /// A new game under `text`: the variant, and a player for it.
    fn rules(&mut self, text: &str) -> Result<Reply, Failure> {
        let imported = crate::interop::otn_rules::variant(text)
            .map_err(|e| critical(format!("cannot play these rules: {e}")))?;
        // rules equal to the home variant's are that variant (a network knows it by name)
        let variant = match &self.setup.home {
            Some(home) if differences(&imported.rules, &home.rules).is_empty() => home.clone(),
            _ => imported,
        };
        let player = Player::new(
            &self.setup.agent,
            variant.name(),
            self.setup.device,
            self.setup.seed,
        )
        .map(Player::keeping_table)
        .map_err(|e| {
            critical(format!(
                "{} cannot play these rules: {e}",
                self.setup.agent.text
            ))
        })?;
        self.game = Some(Game {
            history: vec![Position::start(&variant)],
            variant,
            player,
            unconfirmed: None,
            refused: Vec::new(),
        });
        Ok(Reply::line(format!(
            "status tavlei plays {} with {}",
            self.game.as_ref().map_or("", |g| g.variant.name()),
            self.setup.agent.text
        )))
    }

    fn set_position(&mut self, otn: &str) -> Result<Reply, Failure> {
        let game = self.game_mut()?;
        let side = game.position().side_to_move();
        let pos = parse_otn(&game.variant, otn, side).map_err(|e| minor(e.to_string()))?;
        game.history = vec![pos];
        game.unconfirmed = None;
        Ok(Reply::none())
    }

    /// Our move for `side`: every step of the turn (a Berserk chain goes on while the same side
    /// moves), joined by `|`.
    fn play(&mut self, side: Side) -> Result<Reply, Failure> {
        let budget = self.clock.map(|c| Budget::Time(c.budget(side)));
        let game = self.game_mut()?;
        if game.position().side_to_move() != side {
            let pos = with_side(game.position(), side)?;
            game.history = vec![pos];
        }
        let before = game.history.len();
        let size = game.variant.size;
        let mut steps = Vec::new();
        let mut last: Option<Analysis> = None;
        let mut first: Option<Move> = None;
        while game.position().side_to_move() == side && game.position().outcome().is_none() {
            let pos = game.position().clone();
            let Some(analysis) = game.player.analyse(&pos, budget) else {
                break;
            };
            let Some(mv) = game.unrefused(&pos, &analysis) else {
                game.history.truncate(before);
                return Err(critical("the host refused every legal move here"));
            };
            first.get_or_insert(mv);
            let mut next = pos;
            next.play_unchecked(mv);
            game.history.push(next);
            if mv != Move::STOP {
                steps.push(mv.name(size));
            }
            last = Some(analysis);
        }
        if steps.is_empty() {
            game.history.truncate(before);
            return Err(minor("no legal move here"));
        }
        game.unconfirmed = first.map(|mv| (before, mv));
        let mut lines = vec![format!("move {}", steps.join("|"))];
        if let Some(a) = last {
            lines.push(format!(
                "status value {:+.2} for the {}, {} {}",
                a.value,
                side.name(),
                a.work,
                if a.depth.is_some() {
                    "nodes"
                } else {
                    "simulations"
                }
            ));
        }
        Ok(Reply { lines, quit: false })
    }

    /// The host's board after our move: ours must agree, or the host's wins.
    fn confirm(&mut self, otn: &str) -> Result<Reply, Failure> {
        let game = self.game_mut()?;
        game.unconfirmed = None;
        if !same_board(game.position(), otn) {
            tracing::warn!("the host's board after our move differs from ours; taking the host's");
            let side = game.position().side_to_move();
            let pos = parse_otn(&game.variant, otn, side).map_err(|e| minor(e.to_string()))?;
            game.history = vec![pos];
        }
        Ok(Reply::none())
    }

    /// `opponent-move M1|M2 POSITION`: the opponent's moves and the board after them. Played on
    /// our game when they fit it; when the board is already the host's (the move was played
    /// before an error took ours back), nothing is played; otherwise the host's board is taken.
    fn opponent_move(&mut self, words: &[&str]) -> Result<Reply, Failure> {
        let [moves, otn] = words else {
            return Err(minor("expected `opponent-move MOVES POSITION`"));
        };
        let game = self.game_mut()?;
        game.unconfirmed = None;
        let mut pos = game.position().clone();
        let mover = pos.side_to_move();
        let mut played = true;
        for text in moves.split('|') {
            match pos.parse_move(text) {
                Ok(m) => pos.play_unchecked(m.mv),
                Err(_) => {
                    played = false;
                    break;
                }
            }
        }
        // a Berserk chain the host's list leaves open ends with the turn
        if played && pos.side_to_move() == mover && pos.berserk_piece().is_some() {
            pos.play_unchecked(Move::STOP);
        }
        if played && same_board(&pos, otn) {
            game.history.push(pos);
        } else if !same_board(game.position(), otn) {
            let side = if played {
                pos.side_to_move()
            } else {
                mover.opponent()
            };
            let pos = parse_otn(&game.variant, otn, side).map_err(|e| minor(e.to_string()))?;
            game.history = vec![pos];
        }
        Ok(Reply::none())
    }

    /// `analyze N SECONDS`: up to N lines, each the expected line and its value (thousandths of
    /// a win, for the side to move) after one candidate.
    fn analyze(&mut self, words: &[&str]) -> Result<Reply, Failure> {
        let (Some(n), Some(seconds)) = (
            words.first().and_then(|w| w.parse::<usize>().ok()),
            words.get(1).and_then(|w| w.parse::<f64>().ok()),
        ) else {
            return Err(minor("expected `analyze N SECONDS`"));
        };
        let game = self.game_mut()?;
        let pos = game.position().clone();
        if !seconds.is_finite() {
            return Err(minor("expected `analyze N SECONDS` with a finite time"));
        }
        let budget = Budget::Time(Duration::from_secs_f64(seconds.clamp(0.01, 3600.0)));
        let analysis = game
            .player
            .analyse(&pos, Some(budget))
            .ok_or_else(|| minor("the game is over here"))?;
        let size = game.variant.size;
        let lines: Vec<String> = analysis
            .candidates
            .iter()
            .filter(|c| c.value.is_some() || c.mv == analysis.best)
            .take(n.max(1))
            .map(|c| {
                let line: Vec<String> = c.pv.iter().map(|m| m.name(size)).collect();
                let value = c.value.unwrap_or(analysis.value);
                format!("{} {}", line.join("|"), (value * 1000.0).round() as i32)
            })
            .collect();
        Ok(Reply::line(format!(
            "analysis {} {}",
            lines.len(),
            lines.join(" ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::otn_rules::export;

    fn engine(agent: &str) -> OtepEngine {
        OtepEngine::new(EngineSetup {
            agent: AgentSpec::parse(agent).expect("spec"),
            home: None,
            device: tch::Device::Cpu,
            seed: 3,
        })
    }

    fn brandubh_rules() -> String {
        export(&Variant::load("brandubh").expect("preset")).text
    }

    /// The engine's answers to `input`, one line each.
    fn session(engine: &mut OtepEngine, input: &str) -> Vec<String> {
        let mut out = Vec::new();
        engine.run(input.as_bytes(), &mut out).expect("runs");
        String::from_utf8(out)
            .expect("ascii")
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn moves(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("move ").map(str::to_string))
            .collect()
    }

    #[test]
    fn answers_hello_and_plays_a_legal_move_for_the_side_asked() {
        let mut e = engine("ab:1");
        let out = session(
            &mut e,
            &format!("hello\nrules {}\nplay attackers\n", brandubh_rules()),
        );
        assert_eq!(out[0], "hello");
        let played = moves(&out);
        assert_eq!(played.len(), 1, "{out:?}");
        let mut pos = Position::start(&Variant::load("brandubh").expect("preset"));
        pos.play(&played[0]).expect("a legal attacker move");
    }

    #[test]
    fn an_illegal_move_error_takes_the_move_back_and_the_engine_plays_again() {
        let v = Variant::load("brandubh").expect("preset");
        let mut pos = Position::start(&v);
        pos.play("d2-b2").expect("legal");
        let board = position_to_otn(&pos);
        // a deterministic agent: without the refusal remembered it would send the same move again
        let mut e = engine("ab:2");
        let first = session(
            &mut e,
            &format!(
                "rules {}\nopponent-move d2-b2 {board}\nplay defenders\n",
                brandubh_rules()
            ),
        );
        let first = moves(&first);
        // the host refuses it, sends the previous move and the board before ours again
        let again = session(
            &mut e,
            &format!("error 2 illegal move\nopponent-move d2-b2 {board}\nplay defenders\n"),
        );
        let again = moves(&again);
        assert_eq!((first.len(), again.len()), (1, 1));
        assert_ne!(first, again, "the refused move is not sent again");
        let mut check = pos.clone();
        check
            .play(&again[0])
            .expect("the second answer is legal on the board before the refused move");
        // and the engine's own game goes on from there
        let out = session(&mut e, &format!("move {}\n", position_to_otn(&check)));
        assert!(
            out.is_empty(),
            "a confirmation that agrees needs no answer: {out:?}"
        );
        let game = e.game.as_ref().expect("a game");
        assert_eq!(position_to_otn(game.position()), position_to_otn(&check));
        assert_eq!(
            game.history.len(),
            3,
            "the game's history (for repetition) survives the recovery: start, d2-b2, our move"
        );
    }

    #[test]
    fn analysis_lists_lines_with_values() {
        let mut e = engine("mcts:200");
        let out = session(
            &mut e,
            &format!("rules {}\nanalyze 3 0.2\n", brandubh_rules()),
        );
        let line = out
            .iter()
            .find(|l| l.starts_with("analysis "))
            .expect("an analysis");
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[1], "3", "{line}");
        assert_eq!(words.len(), 2 + 2 * 3, "{line}");
        let pos = Position::start(&Variant::load("brandubh").expect("preset"));
        for pair in words[2..].chunks(2) {
            let first = pair[0].split('|').next().expect("a move");
            pos.parse_move(first).expect("a legal first move");
            let value: i32 = pair[1].parse().expect("an integer value");
            assert!((-1000..=1000).contains(&value), "{line}");
        }
    }

    #[test]
    fn bad_messages_get_errors_and_the_engine_goes_on() {
        let mut e = engine("random");
        let out = session(
            &mut e,
            &format!("play attackers\nrules dim:99\nfly\nrules {}\nclock 1 2\nplay attackers\nclock 1 1 inf 0 0\nanalyze 3 nan\ngoodbye\nhello\n", brandubh_rules()),
        );
        assert!(out[0].starts_with("error 0 no rules yet"), "{out:?}");
        assert!(
            out[1].starts_with("error -1 cannot play these rules"),
            "{out:?}"
        );
        assert!(
            out[2].starts_with("error 0 unknown message `fly`"),
            "{out:?}"
        );
        assert!(out[3].starts_with("status tavlei plays"), "{out:?}");
        assert!(
            out[4].starts_with("error 0 cannot read the clock"),
            "{out:?}"
        );
        assert!(out[5].starts_with("move "), "{out:?}");
        assert!(
            out[7].starts_with("error 0 cannot read the clock"),
            "{out:?}"
        );
        assert!(
            out[8].starts_with("error 0 expected `analyze N SECONDS`"),
            "{out:?}"
        );
        assert!(
            !out.iter().any(|l| l == "hello"),
            "nothing after goodbye: {out:?}"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_get_an_error_not_the_end_of_the_session() {
        let mut out = Vec::new();
        engine("random")
            .run(&b"hel\xfflo\nhello\n"[..], &mut out)
            .expect("runs");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("error 0 unknown message"), "{lines:?}");
        assert_eq!(lines[1], "hello");
    }

    #[test]
    fn the_clock_gives_a_share_of_the_time_left_or_of_overtime() {
        let c = Clock::parse(&["60000", "3000*", "10", "3", "2"]).expect("a clock");
        assert_eq!(c.budget(Side::Attackers), Duration::from_secs(8));
        assert_eq!(c.budget(Side::Defenders), Duration::from_secs(8));
        let c = Clock::parse(&["60000", "30000", "0", "0", "0"]).expect("a clock");
        assert_eq!(c.budget(Side::Attackers), Duration::from_secs(2));
        assert_eq!(c.budget(Side::Defenders), Duration::from_secs(1));
    }
}
