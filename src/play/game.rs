//! One game as a person plays it against an agent, whatever shows it (the terminal's `tavlei play`,
//! the browser's `tavlei serve`): the plies with what each took and who chose it, the parity die
//! rolled from the game's seed, forced passes, resignation, undo back to the person's last move,
//! and the record `tavlei replay` reads.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::words::outcome_text;
use crate::interop::record::game_record;
use crate::rules::notation::position_to_otn;
use crate::rules::square::Square;
use crate::rules::{Move, Position, Side};

/// Who chose a ply: undo goes back to the last one the person chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    Person,
    Agent,
    /// A pass the parity die forced.
    Forced,
}

#[derive(Clone, Debug)]
pub struct Ply {
    /// The position the ply was played from (its die roll included).
    pub before: Position,
    pub mv: Move,
    /// As a record writes it (`3:d1-d3xe3`).
    pub text: String,
    /// Every square whose piece it took, the king's too.
    pub captured: Vec<Square>,
    pub mover: Mover,
}

/// What happened on the way to the next choice: shown to the person, never chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Happening {
    Roll { side: Side, roll: u8 },
    ForcedPass(Side),
}

impl std::fmt::Display for Happening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Happening::Roll { side, roll } => {
                write!(f, "The die shows {roll} for the {}.", side.name())
            }
            Happening::ForcedPass(side) => write!(f, "The {} must pass.", side.name()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    plies: Vec<Ply>,
    /// The side that resigned, which ends the game whatever the board says.
    resigned: Option<Side>,
    dice: ChaCha8Rng,
}

/// The die's generator: the seed's own stream, apart from the one the agent draws from.
fn dice_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    rng
}

impl Game {
    pub fn new(start: Position, seed: u64) -> Game {
        Game {
            pos: start.clone(),
            start,
            plies: Vec::new(),
            resigned: None,
            dice: dice_rng(seed),
        }
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// The plies played so far, as a record writes them.
    pub fn moves(&self) -> Vec<String> {
        self.plies.iter().map(|p| p.text.clone()).collect()
    }

    pub fn resigned(&self) -> Option<Side> {
        self.resigned
    }

    /// How the game ended, in words: from the board, or a resignation.
    pub fn end(&self) -> Option<String> {
        if let Some(side) = self.resigned {
            return Some(format!(
                "the {} win: the {} resigned",
                side.opponent().name(),
                side.name()
            ));
        }
        self.pos
            .outcome()
            .map(|outcome| outcome_text(&outcome, &self.pos))
    }

    /// `Some(winner)` once the game is over (`Some(None)`: a draw).
    pub fn winner(&self) -> Option<Option<Side>> {
        match self.resigned {
            Some(side) => Some(Some(side.opponent())),
            None => self.pos.outcome().map(|o| o.winner),
        }
    }

    /// Plays `mv` (legal here) for `mover` and returns it as the record writes it.
    pub fn push(&mut self, mv: Move, mover: Mover) -> String {
        let before = self.pos.clone();
        let text = self.pos.play_recorded(mv);
        // what the move took: the squares it emptied, other than the one it left
        let captured = (0..before.variant().squares as Square)
            .filter(|&sq| {
                before.piece_at(sq).is_some()
                    && self.pos.piece_at(sq).is_none()
                    && !(mv.moves_a_piece() && sq == mv.from())
            })
            .collect();
        self.plies.push(Ply {
            before,
            mv,
            text: text.clone(),
            captured,
            mover,
        });
        text
    }

    /// Rolls the die where one is due and plays the passes it forces, until a side has a choice
    /// or the game is over.
    pub fn settle(&mut self) -> Vec<Happening> {
        let mut happened = Vec::new();
        while self.end().is_none() {
            let side = self.pos.side_to_move();
            if self.pos.needs_roll() {
                let roll = self.dice.random_range(1..=6);
                self.pos.set_roll(roll);
                happened.push(Happening::Roll { side, roll });
            }
            let mut legal = Vec::new();
            self.pos.legal_moves(&mut legal);
            if legal != [Move::PASS] {
                break;
            }
            happened.push(Happening::ForcedPass(side));
            self.push(Move::PASS, Mover::Forced);
        }
        happened
    }

    pub fn resign(&mut self, side: Side) {
        self.resigned = Some(side);
    }

    /// Takes a resignation back; false when there was none.
    pub fn take_back_resignation(&mut self) -> bool {
        self.resigned.take().is_some()
    }

    /// Goes back to the position before the person's last move (the die as it was then, so
    /// undoing cannot buy a better roll) and returns the plies taken back; `None` when the person
    /// has not moved.
    pub fn undo(&mut self) -> Option<Vec<String>> {
        if !self.plies.iter().any(|p| p.mover == Mover::Person) {
            return None;
        }
        let mut taken = Vec::new();
        while let Some(ply) = self.plies.pop() {
            self.pos = ply.before;
            taken.push(ply.text);
            if ply.mover == Mover::Person {
                break;
            }
        }
        taken.reverse();
        Some(taken)
    }

    /// Whether the game started from somewhere other than the variant's start.
    pub fn custom_start(&self) -> bool {
        let v = self.start.variant();
        self.start.side_to_move() != v.rules.movement.first
            || position_to_otn(&self.start) != position_to_otn(&Position::start(v))
    }

    /// The `tavlei replay` options that start from this game's start, `variant` as the person
    /// named it (preset, file or rules string).
    pub fn replay_options(&self, variant: &str) -> String {
        let mut text = format!("--variant {}", shell_word(variant));
        if self.custom_start() {
            text += &format!(
                " --position {} --to-move {}",
                shell_word(&position_to_otn(&self.start)),
                self.start.side_to_move().name()
            );
        }
        text
    }

    /// The game so far as a record `tavlei replay` reads, under a first comment line `title`
    /// (with the start's options, where the game did not begin at the variant's start, in a
    /// comment).
    pub fn record(&self, title: &str, variant: &str) -> String {
        let mut text = format!(
            "# {title}\n# check it: tavlei replay {} FILE\n",
            self.replay_options(variant)
        );
        if let Some(side) = self.resigned {
            text += &format!("# the {} resigned\n", side.name());
        }
        text += &game_record(self.pos.variant(), &self.moves(), self.pos.outcome());
        text
    }
}

/// `text` as one shell word (single quotes where it needs any).
pub fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
