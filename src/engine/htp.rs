//! The Hnefatafl Text Protocol (HTP) of hnefatafl.org, a GTP-like line protocol: one command a
//! line, answers `= TEXT` on success and `? TEXT` (then a blank line) on failure, as the
//! reference engine (`hnefatafl-text-protocol`) writes them. Roles are `attacker` and
//! `defender`, squares like `d11` (a1 bottom left, as in OpenTafl notation). `play` answers the
//! squares it captured; `generate_move` answers `play ROLE FROM TO` and plays it (as GTP's
//! `genmove` and the reference do: the host relays it to the other engine with `play`).

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rules::notation::ascii_board;
use crate::rules::square::{parse_square, square_name};
use crate::rules::{Move, Position, Side, Variant};
use crate::search::Budget;

use super::player::Player;

/// The commands this engine answers, as `list_commands` prints them.
const COMMANDS: &[&str] = &[
    "board_size",
    "final_status",
    "generate_move",
    "known_command",
    "list_commands",
    "name",
    "play",
    "play_undo",
    "protocol_version",
    "quit",
    "reset_board",
    "show_board",
    "time_settings",
    "version",
];

/// A Fischer clock: what is left, and what each move adds.
#[derive(Clone, Copy, Debug)]
struct Clock {
    left: Duration,
    increment: Duration,
}

/// An HTP engine for one variant, playing with `player`.
pub struct HtpEngine {
    variant: Arc<Variant>,
    /// Every position of the game, the current one last (`play_undo` pops).
    history: Vec<Position>,
    /// A resignation ends the game without a board position saying so.
    resigned: Option<Side>,
    player: Player,
    clock: Option<Clock>,
}

enum Answer {
    Ok(String),
    Fail(String),
    Quit,
}

fn role_name(side: Side) -> &'static str {
    match side {
        Side::Attackers => "attacker",
        Side::Defenders => "defender",
    }
}

fn parse_role(text: &str) -> Result<Side, String> {
    match text {
        "attacker" | "attackers" | "black" => Ok(Side::Attackers),
        "defender" | "defenders" | "white" => Ok(Side::Defenders),
        other => Err(format!("`{other}` is not a role: attacker or defender")),
    }
}

impl HtpEngine {
    pub fn new(variant: Arc<Variant>, player: Player) -> HtpEngine {
        HtpEngine {
            history: vec![Position::start(&variant)],
            variant,
            resigned: None,
            player,
            clock: None,
        }
    }

    fn position(&self) -> &Position {
        self.history.last().expect("the game has a start")
    }

    /// Reads commands until `quit` or the end of input, answering each.
    pub fn run(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        for line in super::lossy_lines(input) {
            let line = line?;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match self.answer(line) {
                Answer::Ok(text) => writeln!(output, "= {text}")?,
                Answer::Fail(text) => write!(output, "? {text}\n\n")?,
                Answer::Quit => {
                    writeln!(output, "= ")?;
                    output.flush()?;
                    return Ok(());
                }
            }
            output.flush()?;
        }
        Ok(())
    }

    fn answer(&mut self, line: &str) -> Answer {
        let words: Vec<&str> = line.split_whitespace().collect();
        let result = match words[0] {
            "protocol_version" => Ok("1-beta".into()),
            "name" => Ok("tavlei".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "list_commands" => Ok(format!("\n{}", COMMANDS.join("\n"))),
            "known_command" => Ok(words
                .get(1)
                .is_some_and(|c| COMMANDS.contains(c))
                .to_string()),
            "quit" => return Answer::Quit,
            "board_size" => self.board_size(&words),
            "reset_board" => {
                self.history.truncate(1);
                self.resigned = None;
                Ok(String::new())
            }
            "final_status" => Ok(self.final_status().into()),
            "show_board" => Ok(format!("\n{}", ascii_board(self.position()))),
            "play" => self.play(&words),
            "play_undo" => self.undo(),
            "generate_move" => self.generate_move(),
            "time_settings" => self.time_settings(&words),
            other => Err(format!("unknown command `{other}`")),
        };
        match result {
            Ok(text) => Answer::Ok(text),
            Err(text) => Answer::Fail(text),
        }
    }

    fn board_size(&mut self, words: &[&str]) -> Result<String, String> {
        match words.get(1).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n == self.variant.size => Ok(String::new()),
            Some(n) => Err(format!(
                "this engine plays {} ({}x{}); start it with another --variant for {n}x{n}",
                self.variant.name(),
                self.variant.size,
                self.variant.size
            )),
            None => Err("board_size needs a number".into()),
        }
    }

    fn final_status(&self) -> &'static str {
        if let Some(side) = self.resigned {
            return match side {
                Side::Attackers => "defender_wins",
                Side::Defenders => "attacker_wins",
            };
        }
        match self.position().outcome().map(|o| o.winner) {
            None => "ongoing",
            Some(Some(Side::Attackers)) => "attacker_wins",
            Some(Some(Side::Defenders)) => "defender_wins",
            Some(None) => "draw",
        }
    }

    fn play(&mut self, words: &[&str]) -> Result<String, String> {
        let usage = "expected `play ROLE FROM TO` or `play ROLE resign`";
        let side = parse_role(words.get(1).ok_or(usage)?)?;
        if self.final_status() != "ongoing" {
            return Err("the game is over".into());
        }
        if side != self.position().side_to_move() {
            return Err(format!(
                "it is the {}'s turn",
                role_name(self.position().side_to_move())
            ));
        }
        if words.get(2) == Some(&"resign") {
            self.resigned = Some(side);
            return Ok(String::new());
        }
        let (Some(from), Some(to)) = (words.get(2), words.get(3)) else {
            return Err(usage.into());
        };
        let size = self.variant.size;
        for square in [from, to] {
            parse_square(square, size)
                .ok_or_else(|| format!("`{square}` is not a square of this board"))?;
        }
        let next = self.position().clone();
        let mv = next
            .parse_move(&format!("{from}-{to}"))
            .map_err(|e| e.to_string())?
            .mv;
        Ok(self.apply(next, mv))
    }

    /// Plays `mv` on `next` (the current position), keeps it, and names the captured squares
    /// (the king's too, when he is taken).
    fn apply(&mut self, mut next: Position, mv: Move) -> String {
        let mut captured = Vec::new();
        next.play_with(mv, &mut captured);
        captured.sort_unstable();
        self.history.push(next);
        captured
            .iter()
            .map(|&sq| square_name(sq, self.variant.size))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn undo(&mut self) -> Result<String, String> {
        if self.resigned.take().is_some() {
            return Ok(String::new());
        }
        if self.history.len() < 2 {
            return Err("no move to undo".into());
        }
        self.history.pop();
        Ok(String::new())
    }

    fn generate_move(&mut self) -> Result<String, String> {
        if self.final_status() != "ongoing" {
            return Err("the game is over".into());
        }
        let budget = self.clock.map(|c| {
            // a fortieth of what is left, plus most of the increment, never under 10 ms
            let share = c.left / 40 + c.increment * 4 / 5;
            Budget::Time(share.max(Duration::from_millis(10)))
        });
        let started = Instant::now();
        let pos = self.position().clone();
        let mv = self
            .player
            .choose(&pos, budget)
            .ok_or("no legal move".to_string())?;
        if let Some(clock) = self.clock.as_mut() {
            clock.left = clock.left.saturating_sub(started.elapsed()) + clock.increment;
        }
        let size = self.variant.size;
        let answer = format!(
            "play {} {} {}",
            role_name(pos.side_to_move()),
            square_name(mv.from(), size),
            square_name(mv.to(), size)
        );
        self.apply(pos, mv);
        Ok(answer)
    }

    fn time_settings(&mut self, words: &[&str]) -> Result<String, String> {
        match words.get(1..) {
            Some(["un-timed"]) | Some(["none"]) => {
                self.clock = None;
                Ok(String::new())
            }
            Some(["fischer", minutes, seconds]) => {
                let (Ok(m), Ok(s)) = (minutes.parse::<u64>(), seconds.parse::<u64>()) else {
                    return Err("time_settings fischer MINUTES ADD_SECONDS takes numbers".into());
                };
                self.clock = Some(Clock {
                    left: Duration::from_secs(m * 60),
                    increment: Duration::from_secs(s),
                });
                Ok(String::new())
            }
            _ => Err(
                "expected `time_settings un-timed` or `time_settings fischer MINUTES ADD_SECONDS`"
                    .into(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::agent::AgentSpec;

    fn engine() -> HtpEngine {
        let v = Variant::load("copenhagen").expect("preset");
        let player = Player::new(
            &AgentSpec::parse("random").expect("spec"),
            "copenhagen",
            tch::Device::Cpu,
            1,
        )
        .expect("player");
        HtpEngine::new(v, player)
    }

    fn session(commands: &str) -> String {
        let mut out = Vec::new();
        engine().run(commands.as_bytes(), &mut out).expect("runs");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn plays_moves_names_captures_and_refuses_wrong_turns() {
        let out = session(
            "play attacker a8 b8\nplay defender f8 i8\nplay attacker k8 j8\nplay defender e7 e8\nplay attacker h11 h8\nplay attacker a7 a6\nfinal_status\nquit\n",
        );
        let answers: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(answers[..5], ["= ", "= ", "= ", "= ", "= i8"]);
        assert!(
            answers[5].starts_with("? it is the defender's turn"),
            "{out}"
        );
        assert_eq!(answers[6], "= ongoing");
    }

    #[test]
    fn generated_moves_are_played_and_undone() {
        let out = session("generate_move\nplay_undo\nplay_undo\nplay attacker a8 b8\nquit\n");
        let answers: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
        assert!(answers[0].starts_with("= play attacker "), "{out}");
        assert_eq!(answers[1], "= ");
        assert!(answers[2].starts_with("? no move to undo"), "{out}");
        assert_eq!(answers[3], "= ", "the attackers move again after the undo");
    }

    #[test]
    fn illegal_moves_and_unknown_commands_fail_with_a_reason() {
        let out = session("play attacker a4 a1\nfly\nboard_size 13\nplay attacker d11 d9\nquit\n");
        let answers: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
        assert!(answers[0].starts_with("? illegal move"), "{out}");
        assert!(answers[1].starts_with("? unknown command"), "{out}");
        assert!(
            answers[2].starts_with("? this engine plays copenhagen"),
            "{out}"
        );
        assert_eq!(answers[3], "= ", "the engine goes on after errors");
    }
}
