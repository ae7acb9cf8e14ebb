//! A game between a person and an agent, read line by line from any `BufRead` and written to any
//! `Write`, so that a test can script it and `tavlei play` can give it a terminal.
//!
//! The agent moves whenever its side is to move; a die, where the variant has one, is rolled
//! from the session's seed before every move and shown; a pass the die forces is played for
//! whichever side it falls to. `undo` goes back to the position before the person's last move
//! (the die as it was then, so undoing cannot buy a better roll).

use std::io::{self, BufRead, Write};
use std::path::Path;

use super::board::{draw_board, legend, Marks};
use super::command::{parse_command, Command, HELP};
use super::game::{shell_word, Game, Happening, Mover};
use super::words::search_text;
use crate::engine::player::Player;
use crate::rules::square::parse_square;
use crate::rules::{Position, Side};

/// How a session is set up besides its start and its agent.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The person's side.
    pub human: Side,
    /// ANSI colours in the board (only for a terminal that wants them).
    pub colour: bool,
    /// Seeds the die rolls.
    pub seed: u64,
    /// The variant as the person named it (preset, file or rules string), for the `replay`
    /// command a saved record suggests.
    pub variant: String,
}

/// Whether the session goes on after a command.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

pub struct Session {
    game: Game,
    player: Player,
    options: PlayOptions,
    /// The board changed since it was last drawn.
    redraw: bool,
    /// The end of the game has been announced.
    announced: bool,
}

/// The words of a prompt line's tail, e.g. `the attackers (you)`.
fn side_label(side: Side, human: Side) -> String {
    let who = if side == human { "you" } else { "the agent" };
    format!("the {} ({who})", side.name())
}

impl Session {
    pub fn new(start: Position, player: Player, options: PlayOptions) -> Session {
        Session {
            game: Game::new(start, options.seed),
            player,
            options,
            redraw: true,
            announced: false,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The plies played so far, as a record writes them.
    pub fn moves(&self) -> Vec<String> {
        self.game.moves()
    }

    /// How the game ended, in words: from the board, or a resignation.
    pub fn end(&self) -> Option<String> {
        self.game.end()
    }

    /// The game so far as a record `tavlei replay` reads (with the start's options, where the
    /// game did not begin at the variant's start, in a comment).
    pub fn record(&self) -> String {
        let title = format!(
            "tavlei play: the {} (a person) against {}",
            self.options.human.name(),
            self.player.spec().text
        );
        self.game.record(&title, &self.options.variant)
    }

    fn marks(&self) -> Marks {
        Marks::of_last(self.game.plies().last())
    }

    /// Rolls the die where one is due, plays forced passes and the agent's moves, until the
    /// person is to move or the game is over.
    fn advance(&mut self, out: &mut impl Write) -> io::Result<()> {
        loop {
            for happening in self.game.settle() {
                writeln!(out, "{happening}")?;
                // a forced pass changed the board
                self.redraw |= matches!(happening, Happening::ForcedPass(_));
            }
            let pos = self.game.position();
            if self.game.end().is_some() || pos.side_to_move() == self.options.human {
                return Ok(());
            }
            write!(out, "{} thinks... ", self.player.spec().text)?;
            out.flush()?;
            let before = pos.clone();
            let thought = self
                .player
                .think(&before, None)
                .ok_or_else(|| io::Error::other("the agent found no move to play"))?;
            let text = self.game.push(thought.mv, Mover::Agent);
            self.redraw = true;
            writeln!(out, "{text} ({})", search_text(&thought, &before))?;
        }
    }

    /// The board, then the game's end or whose turn it is.
    fn show(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.redraw {
            writeln!(out)?;
            let pos = self.game.position();
            write!(
                out,
                "{}",
                draw_board(pos, &self.marks(), self.options.colour)
            )?;
            self.redraw = false;
            if let Some(end) = self.game.end() {
                if !self.announced {
                    let verdict = match self.game.winner() {
                        Some(Some(side)) if side == self.options.human => "You win!",
                        Some(Some(_)) => "You lose.",
                        _ => "Nobody wins.",
                    };
                    writeln!(out, "Game over: {end}. {verdict}")?;
                    writeln!(
                        out,
                        "`undo` takes your last move back, `save FILE` keeps the game, `quit` leaves."
                    )?;
                    self.announced = true;
                }
            } else {
                let roll = match pos.roll() {
                    0 => String::new(),
                    r => format!(", the die shows {r}"),
                };
                writeln!(
                    out,
                    "Move {}: {} to move{roll}.",
                    pos.ply() / 2 + 1,
                    side_label(pos.side_to_move(), self.options.human)
                )?;
            }
        }
        Ok(())
    }

    /// Plays the game: reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead, mut out: impl Write) -> io::Result<()> {
        let out = &mut out;
        writeln!(
            out,
            "tavlei play: {}, you are the {} against {}.",
            self.game.position().variant().name(),
            self.options.human.name(),
            self.player.spec().text
        )?;
        writeln!(
            out,
            "Type a move like `d1-d3` (or `d1d3`), or `help` for the commands."
        )?;
        writeln!(out, "{}", legend(self.game.position()))?;
        let mut lines = input.lines();
        loop {
            self.advance(out)?;
            self.show(out)?;
            write!(out, "> ")?;
            out.flush()?;
            let Some(line) = lines.next() else {
                writeln!(out)?;
                writeln!(out, "End of input: leaving the game.")?;
                return Ok(());
            };
            let flow = match parse_command(&line?) {
                None => Flow::Continue,
                Some(Err(e)) => {
                    writeln!(out, "  {e}")?;
                    Flow::Continue
                }
                Some(Ok(command)) => self.execute(command, out)?,
            };
            if flow == Flow::Quit {
                out.flush()?;
                return Ok(());
            }
        }
    }

    fn execute(&mut self, command: Command, out: &mut impl Write) -> io::Result<Flow> {
        let over = self.game.end().is_some();
        let refuse = "the game is over: `undo`, `save FILE` or `quit`";
        match command {
            Command::Quit => {
                writeln!(out, "Goodbye.")?;
                return Ok(Flow::Quit);
            }
            Command::Help => writeln!(out, "{HELP}\n{}", legend(self.game.position()))?,
            Command::Board => self.redraw = true,
            Command::Save(file) => self.save(&file, out)?,
            Command::Undo => self.undo(out)?,
            Command::Move(_) | Command::Hint | Command::Resign | Command::Moves(_) if over => {
                writeln!(out, "  {refuse}")?
            }
            Command::Move(text) => match self.game.position().parse_move(&text) {
                Ok(parsed) => {
                    let played = self.game.push(parsed.mv, Mover::Person);
                    self.redraw = true;
                    writeln!(out, "You play {played}.")?;
                }
                Err(e) => writeln!(out, "  {e} (`help` lists the commands)")?,
            },
            Command::Hint => {
                let before = self.game.position().clone();
                match self.player.think(&before, None) {
                    Some(thought) => writeln!(
                        out,
                        "Hint: {} ({})",
                        thought.mv.name(before.variant().size),
                        search_text(&thought, &before)
                    )?,
                    None => writeln!(out, "  no move to suggest")?,
                }
            }
            Command::Moves(square) => self.list_moves(square.as_deref(), out)?,
            Command::Resign => {
                self.game.resign(self.options.human);
                self.redraw = true;
            }
        }
        Ok(Flow::Continue)
    }

    fn list_moves(&self, square: Option<&str>, out: &mut impl Write) -> io::Result<()> {
        let pos = self.game.position();
        let size = pos.variant().size;
        let from = match square {
            None => None,
            Some(name) => match parse_square(name, size) {
                Some(sq) => Some(sq),
                None => {
                    return writeln!(
                        out,
                        "  `{name}` is not a square of this {size}×{size} board"
                    )
                }
            },
        };
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        let names: Vec<String> = legal
            .iter()
            .filter(|mv| from.is_none_or(|sq| mv.moves_a_piece() && mv.from() == sq))
            .map(|mv| mv.name(size))
            .collect();
        if names.is_empty() {
            writeln!(out, "  no legal move from {}", square.unwrap_or("here"))
        } else {
            writeln!(out, "  {} moves: {}", names.len(), names.join(" "))
        }
    }

    fn undo(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.game.take_back_resignation() {
            self.announced = false;
            self.redraw = true;
            return writeln!(out, "Resignation taken back.");
        }
        let Some(taken) = self.game.undo() else {
            return writeln!(out, "  nothing to undo: you have not moved yet");
        };
        self.announced = false;
        self.redraw = true;
        writeln!(out, "Took back {}.", taken.join(" "))
    }

    fn save(&self, file: &str, out: &mut impl Write) -> io::Result<()> {
        match crate::atomic::write(Path::new(file), self.record()) {
            Ok(()) => writeln!(
                out,
                "Saved {} {} to {file}; `tavlei replay {} {}` checks it.",
                self.game.plies().len(),
                if self.game.plies().len() == 1 {
                    "ply"
                } else {
                    "plies"
                },
                self.game.replay_options(&self.options.variant),
                shell_word(file)
            ),
            Err(e) => writeln!(out, "  not saved: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::agent::AgentSpec;
    use crate::rules::notation::{parse_otn, position_to_otn};
    use crate::rules::replay::{game_lines, replay_record};
    use crate::rules::Variant;

    /// A defenders' position one move from winning: the king on a3 reaches the corner a1; c5's
    /// defender and e3's take e4's attacker between them with c5-e5.
    const NEAR_THE_END: &str = "/7/7/K3T2/4t2/2T4/5t1/7/";

    fn session(variant: &str, agent: &str, human: Side, start: Option<&str>) -> Session {
        let v = Variant::load(variant).expect("variant");
        let pos = match start {
            Some(otn) => parse_otn(&v, otn, human).expect("position"),
            None => Position::start(&v),
        };
        let spec = AgentSpec::parse(agent).expect("spec");
        let player = Player::new(&spec, v.name(), tch::Device::Cpu, 3).expect("player");
        let options = PlayOptions {
            human,
            colour: false,
            seed: 5,
            variant: variant.to_string(),
        };
        Session::new(pos, player, options)
    }

    fn play(session: &mut Session, input: &str) -> String {
        let mut out = Vec::new();
        session.run(input.as_bytes(), &mut out).expect("runs");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn an_illegal_move_is_explained_and_a_legal_one_answered() {
        let mut s = session("brandubh", "ab:1", Side::Attackers, None);
        let out = play(&mut s, "a4-a7\nhello\nd6c6\n");
        assert!(
            out.contains("illegal move `a4-a7`: this piece may not stop on a corner (a7)"),
            "{out}"
        );
        assert!(out.contains("bad move `hello`"), "{out}");
        assert!(out.contains("You play d6-c6."), "{out}");
        let moves = s.moves();
        assert_eq!(moves.len(), 2, "{out}");
        assert_eq!(moves[0], "d6-c6");
        // the agent's line names its move and its search, and the board marks where it went
        let reply = format!("ab:1 thinks... {} (depth 1, ", moves[1]);
        assert!(out.contains(&reply), "{out}");
        let to = &moves[1][3..5];
        let rank: usize = to[1..].parse().expect("a rank");
        let row = out
            .lines()
            .rev()
            .find(|l| l.starts_with(&format!("{rank:>2} ")))
            .expect("the rank's row");
        assert!(row.contains('['), "{row}");
        assert!(
            out.contains("Move 2: the attackers (you) to move."),
            "{out}"
        );
        assert!(out.ends_with("End of input: leaving the game.\n"), "{out}");
    }

    #[test]
    fn undo_takes_back_the_persons_move_and_the_reply() {
        let mut s = session("brandubh", "random", Side::Attackers, None);
        let start = position_to_otn(s.position());
        let out = play(&mut s, "undo\nd6-c6\nundo\n");
        assert!(out.contains("nothing to undo"), "{out}");
        assert!(out.contains("Took back d6-c6 "), "{out}");
        assert_eq!(s.moves(), Vec::<String>::new());
        assert_eq!(position_to_otn(s.position()), start);
        assert_eq!(s.position().side_to_move(), Side::Attackers);
    }

    #[test]
    fn the_agent_opens_when_the_person_plays_the_second_side() {
        let mut s = session("brandubh", "ab:1", Side::Defenders, None);
        let out = play(&mut s, "undo\n");
        assert_eq!(s.moves().len(), 1);
        assert_eq!(s.position().side_to_move(), Side::Defenders);
        // the agent's opening is not the person's to take back
        assert!(out.contains("nothing to undo"), "{out}");
        assert!(
            out.contains("Move 1: the defenders (you) to move."),
            "{out}"
        );
    }

    #[test]
    fn a_hint_is_a_legal_move_with_its_search() {
        let mut s = session("brandubh", "ab:2", Side::Attackers, None);
        let out = play(&mut s, "hint\n");
        // the prompt `> ` shares the line: a terminal would have put the typed line after it
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("> Hint: "))
            .expect("a hint");
        let mv = line.split(' ').next().expect("a move");
        assert!(s.position().parse_move(mv).is_ok(), "{line}");
        assert!(line.contains("(depth 2, "), "{line}");
        assert!(line.contains("for the attackers"), "{line}");
        assert!(s.moves().is_empty(), "a hint plays nothing");
    }

    #[test]
    fn a_win_is_announced_and_the_game_then_refuses_moves() {
        let mut s = session("brandubh", "random", Side::Defenders, Some(NEAR_THE_END));
        let out = play(&mut s, "a3-a1\nc5-c4\nhint\n");
        assert!(
            out.contains("Game over: the defenders win: the king escaped. You win!"),
            "{out}"
        );
        assert!(out.contains("the game is over: `undo`"), "{out}");
        assert_eq!(s.moves(), ["a3-a1"]);
        // the winning move is marked on the final board
        assert!(out.contains(" 1 [K] .  .  .  .  .  #  1"), "{out}");
    }

    #[test]
    fn a_saved_record_replays_to_the_same_game() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("game.txt");
        let mut s = session("brandubh", "ab:1", Side::Defenders, Some(NEAR_THE_END));
        let input = format!("c5-e5\nundo\nc5-e5\na3-a1\nsave {}\n", file.display());
        let out = play(&mut s, &input);
        assert!(out.contains("You play c5-e5xe4."), "{out}");
        assert!(out.contains("Took back c5-e5xe4 "), "{out}");
        assert!(out.contains("Saved 3 plies to "), "{out}");
        let text = std::fs::read_to_string(&file).expect("the record");
        assert!(
            text.contains(
                "--variant brandubh --position /7/7/K3T2/4t2/2T4/5t1/7/ --to-move defenders"
            ),
            "{text}"
        );
        assert!(
            text.contains("[result \"defenders king_escaped\"]"),
            "{text}"
        );
        let lines: Vec<&str> = game_lines(&text).collect();
        assert_eq!(lines, [s.moves().join(" ")]);
        let start =
            parse_otn(s.position().variant(), NEAR_THE_END, Side::Defenders).expect("position");
        let report = replay_record(0, &start, lines[0]);
        assert!(
            report.legal && report.capture_mismatches.is_empty(),
            "{report:?}"
        );
        assert_eq!(report.captures[0], ["e4"]);
        assert_eq!(
            (report.plies, report.outcome, report.reason),
            (3, Some("defenders"), Some("king_escaped"))
        );
        assert_eq!(report.final_position, position_to_otn(s.position()));
    }

    #[test]
    fn resigning_ends_the_game_until_it_is_taken_back() {
        let mut s = session("brandubh", "random", Side::Attackers, None);
        let out = play(&mut s, "resign\nd6-c6\nundo\nd6-c6\n");
        assert!(
            out.contains("Game over: the defenders win: the attackers resigned. You lose."),
            "{out}"
        );
        assert!(out.contains("the game is over"), "{out}");
        assert!(out.contains("Resignation taken back."), "{out}");
        assert_eq!(s.moves().first().map(String::as_str), Some("d6-c6"));
        assert_eq!(s.end(), None);
    }

    #[test]
    fn moves_lists_legal_moves_and_quit_stops_reading() {
        let mut s = session("brandubh", "random", Side::Attackers, None);
        let out = play(&mut s, "moves d7\nmoves z9\nquit\nd6-c6\n");
        assert!(
            out.contains("  4 moves: d7-e7 d7-f7 d7-c7 d7-b7\n"),
            "{out}"
        );
        assert!(
            out.contains("`z9` is not a square of this 7×7 board"),
            "{out}"
        );
        assert!(out.ends_with("Goodbye.\n"), "{out}");
        assert!(s.moves().is_empty());
    }

    #[test]
    fn a_die_is_rolled_shown_and_written_before_each_move() {
        let mut s = session("reconstruction_dice", "random", Side::Attackers, None);
        // one-square moves are legal whatever the die shows
        let out = play(&mut s, "d1-d2\nundo\nd1-d2\nh1-h2\n");
        let moves = s.moves();
        assert_eq!(moves.len(), 4, "{out}");
        let roll = |text: &str| text.split_once(':').expect("a roll").0.to_string();
        assert_eq!(&moves[0][1..], ":d1-d2");
        assert_eq!(&moves[2][1..], ":h1-h2");
        // the first roll is shown, and undo keeps it: one roll for each of the four plies kept,
        // the undone reply and the person's turn after it, and the turn the input ends in
        let shown = format!("The die shows {} for the attackers.", roll(&moves[0]));
        assert_eq!(out.lines().nth(3), Some(shown.as_str()), "{out}");
        assert_eq!(out.matches("The die shows ").count(), 7, "{out}");
        assert!(out.contains(&format!("Took back {} ", moves[0])), "{out}");
        let start = Position::start(s.position().variant());
        let report = replay_record(0, &start, &moves.join(" "));
        assert!(report.legal, "{report:?}");
        assert_eq!(report.final_position, position_to_otn(s.position()));
    }

    #[test]
    fn an_odd_parity_roll_passes_for_either_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = std::fs::read_to_string("configs/variants/reconstruction_dice.toml")
            .expect("preset file")
            .replace("dice = \"distance\"", "dice = \"parity\"")
            .replace("name = \"reconstruction_dice\"", "name = \"parity_test\"");
        let file = dir.path().join("parity.toml");
        std::fs::write(&file, text).expect("written");
        let mut s = session(
            file.to_str().expect("utf-8 path"),
            "random",
            Side::Attackers,
            None,
        );
        let input = "d1-d2\nh1-h2\nd2-d3\nh2-h3\ne1-e2\ng1-g2\n";
        let out = play(&mut s, input);
        let moves = s.moves();
        assert!(moves.iter().any(|m| m.ends_with(":pass")), "{out}");
        assert!(out.contains("must pass."), "{out}");
        for m in &moves {
            let (roll, mv) = m.split_once(':').expect("a roll");
            let odd = roll.parse::<u8>().expect("a number") % 2 == 1;
            assert_eq!(odd, mv == "pass", "{m}");
        }
        let report = replay_record(
            0,
            &Position::start(s.position().variant()),
            &moves.join(" "),
        );
        assert!(report.legal, "{report:?}");
    }
}
