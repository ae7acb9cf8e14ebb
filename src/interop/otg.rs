//! OpenTafl game files (`.otg`), both ways. A file is tag lines `[name:value]` (OpenTafl's own
//! tags; the `[rules:...]` tag, an OTN rules string, is required), then numbered move lines
//! `12. e5-e8xe9 Kd4-d2`, each optionally followed by a comment block `[first|second]` (one
//! comment per move of the line). Moves are full OTN move records: a piece letter for special
//! pieces (`K`, `c`, `N`), `-` a move, `^` a jump, `=` a berserk move, captures `xe9/Ne8`, and the
//! info symbols `+ ++ - --` at the end; `---` resigns. Results: `1` the attackers won, `-1` the
//! defenders, `0` a draw, `?` anything else. Sources: OpenTafl's notation specification
//! (`opentafl-notation-spec.txt`) and the files OpenTafl ships (docs/data-formats.md has the
//! mapping).
//!
//! Reading checks every move with tavlei's rules (the captures written against the engine's),
//! and the result tag against where the moves end; writing replays the record first.

use std::sync::{Arc, OnceLock};

use super::otn_rules;
use super::record::game_record;
use crate::rules::error::RulesError;
use crate::rules::notation::parse_otn;
use crate::rules::piece::{PieceKind, Side};
use crate::rules::presets::PRESET_NAMES;
use crate::rules::replay::{move_tokens, steps, RecordedGame};
use crate::rules::square::square_name;
use crate::rules::{MoveKind, Outcome, Position, Variant};

/// Every tag OpenTafl writes or its specification names; any other is refused.
pub const KNOWN_TAGS: &[&str] = &[
    "event",
    "site",
    "date",
    "round",
    "attackers",
    "defenders",
    "result",
    "annotator",
    "compiler",
    "time-control",
    "time-remaining",
    "termination",
    "variant",
    "starting-comment",
    "start-comment",
    "position",
    "puzzle-mode",
    "puzzle-prestart",
    "puzzle-start",
    "rules",
];

/// Tags about the game's circumstances, kept as comments of the tavlei record an import writes.
const DESCRIPTIVE_TAGS: &[&str] = &[
    "event",
    "site",
    "date",
    "round",
    "attackers",
    "defenders",
    "annotator",
];

#[derive(Debug, thiserror::Error)]
pub enum OtgError {
    #[error("line {line}: {reason}")]
    Syntax { line: usize, reason: String },
    #[error("line {line}: unknown tag `{name}` (OpenTafl's tags: {})", KNOWN_TAGS.join(", "))]
    UnknownTag { line: usize, name: String },
    #[error(
        "no `[rules:...]` tag: an OpenTafl game file names its rules (an OTN rules string) in one"
    )]
    MissingRules,
    #[error("the rules tag: {0}")]
    Rules(RulesError),
    #[error("the position tag: {0}")]
    Position(RulesError),
    #[error("move {turn} ({side}: `{text}`): {reason}")]
    Move {
        turn: usize,
        side: &'static str,
        text: String,
        reason: String,
    },
    #[error("the result tag says {claimed}, but the moves end with {found}")]
    Result { claimed: String, found: String },
    #[error("ply {ply} (`{text}`): {reason}")]
    Record {
        ply: usize,
        text: String,
        reason: String,
    },
    #[error("the record is a game of `{record}`, not of the variant given (`{given}`)")]
    WrongVariant { record: String, given: String },
    #[error("the game starts from `[position:{0}]`, which this command does not take from the file: give it with --position (and --to-move), or import the file with `tavlei record import-otg`")]
    StartsElsewhere(String),
}

/// The value of a `[result:...]` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtgResult {
    /// `1`
    Attackers,
    /// `-1`
    Defenders,
    /// `0`
    Draw,
    /// `?`: unfinished, or ended some other way.
    Other,
}

impl OtgResult {
    pub fn parse(text: &str) -> Option<OtgResult> {
        match text.trim() {
            "1" => Some(OtgResult::Attackers),
            "-1" => Some(OtgResult::Defenders),
            "0" => Some(OtgResult::Draw),
            "?" => Some(OtgResult::Other),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            OtgResult::Attackers => "1",
            OtgResult::Defenders => "-1",
            OtgResult::Draw => "0",
            OtgResult::Other => "?",
        }
    }

    /// The result of a game that ended this way (`?` for an unfinished one).
    pub fn of(outcome: Option<Outcome>) -> OtgResult {
        match outcome.map(|o| o.winner) {
            Some(Some(Side::Attackers)) => OtgResult::Attackers,
            Some(Some(Side::Defenders)) => OtgResult::Defenders,
            Some(None) => OtgResult::Draw,
            None => OtgResult::Other,
        }
    }

    /// In words, as tavlei's results read: `attackers`, `defenders`, `draw`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            OtgResult::Attackers => "attackers",
            OtgResult::Defenders => "defenders",
            OtgResult::Draw => "draw",
            OtgResult::Other => "unknown",
        }
    }
}

/// One numbered line of moves (OpenTafl's turn: the first mover's moves, then the other side's).
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub number: usize,
    /// Where the line is in the file (1 = the first line).
    pub line: usize,
    /// The OTN move records as written.
    pub moves: Vec<String>,
    /// The comment of each move, where the line has a comment block.
    pub comments: Vec<String>,
}

/// An `.otg` file read, not yet played: its tags in file order and its numbered move lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OtgFile {
    pub tags: Vec<(String, String)>,
    pub turns: Vec<Turn>,
    /// The `[result:...]` tag.
    pub result: Option<OtgResult>,
    /// A player resigned (`---`) after the last move.
    pub resigned: bool,
    /// Variation lines (`8a.1.1a. ...`) skipped: only the main line is read.
    pub variations: usize,
}

impl OtgFile {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The rules tag (a file without one is refused by [`parse`]).
    pub fn rules(&self) -> &str {
        self.tag("rules").unwrap_or_default()
    }

    /// Every move of the main line with the number of its line, in order.
    pub fn moves(&self) -> impl Iterator<Item = (usize, &str)> {
        self.turns
            .iter()
            .flat_map(|t| t.moves.iter().map(move |m| (t.number, m.as_str())))
    }

    /// The game as a tavlei record reads it (moves rewritten by [`tavlei_move`]), without
    /// playing it: what `replay`, `render` and `viewer` step through.
    pub fn recorded_game(&self) -> RecordedGame {
        let moves: Vec<String> = self.moves().map(|(_, m)| tavlei_move(m)).collect();
        let mut tags = vec![("rules".to_string(), self.rules().to_string())];
        if let Some(name) = self.tag("variant") {
            tags.insert(0, ("variant".to_string(), name.to_string()));
        }
        if let Some(result) = self.result.filter(|&r| r != OtgResult::Other) {
            tags.push(("result".to_string(), result.name().to_string()));
        }
        RecordedGame {
            comments: vec![self.title()],
            tags,
            moves: moves.join(" "),
        }
    }

    /// The starting comment, else the players, else `OpenTafl game`.
    fn title(&self) -> String {
        if let Some(c) = self.tag("start-comment").or(self.tag("starting-comment")) {
            return one_line(c);
        }
        match (self.tag("attackers"), self.tag("defenders")) {
            (Some(a), Some(d)) => format!("{a} (attackers) vs {d} (defenders)"),
            _ => "OpenTafl game".to_string(),
        }
    }
}

/// Whether a text is an OpenTafl game file rather than a tavlei record: its first line is a tag
/// written `[name:value]` (tavlei writes `[name "value"]`).
pub fn is_otg(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let Some(body) = first.strip_prefix('[') else {
        return false;
    };
    match body.split_once(':') {
        Some((name, _)) => {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        }
        None => false,
    }
}

/// Reads an `.otg` file's tags and numbered move lines (comments kept, variations skipped).
pub fn parse(text: &str) -> Result<OtgFile, OtgError> {
    let line_at = |i: usize| text[..i].matches('\n').count() + 1;
    let bytes = text.as_bytes();
    let mut file = OtgFile::default();
    let mut in_moves = false;
    // a comment block after a variation line belongs to the variation: dropped with it
    let mut comments_to: Option<usize> = None;
    let mut i = 0;
    while i < text.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let line = line_at(i);
        if c == b'[' {
            let close = text[i..].find(']').map(|e| i + e).ok_or(OtgError::Syntax {
                line,
                reason: "a `[` is never closed by `]`".into(),
            })?;
            let body = &text[i + 1..close];
            if let Some(open) = body.find('[') {
                return Err(OtgError::Syntax {
                    line: line_at(i + 1 + open),
                    reason: format!("a `[` on line {line} is not closed by `]` before this one"),
                });
            }
            if in_moves {
                if let Some(turn) = comments_to.and_then(|t| file.turns.get_mut(t)) {
                    turn.comments = body.split('|').map(|c| c.trim().to_string()).collect();
                }
                comments_to = None;
            } else {
                read_tag(&mut file, body, line)?;
            }
            i = close + 1;
            continue;
        }
        let end = text[i..].find(['\n', '[']).map_or(text.len(), |e| i + e);
        let words: Vec<&str> = text[i..end].split_whitespace().collect();
        i = end;
        in_moves = true;
        let Some(&number) = words.first() else {
            continue;
        };
        if is_variation(number) {
            file.variations += 1;
            comments_to = None;
            continue;
        }
        let expected = file.turns.len() + 1;
        let n: usize = number
            .strip_suffix('.')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| OtgError::Syntax {
                line,
                reason: format!(
                    "expected a tag `[name:value]` or a numbered move line like `{expected}. e5-e8 d6-d4`, found `{}`",
                    shortened(number)
                ),
            })?;
        if n != expected {
            return Err(OtgError::Syntax {
                line,
                reason: format!("move line {n} where move line {expected} was expected"),
            });
        }
        if file.resigned {
            return Err(OtgError::Syntax {
                line,
                reason: "moves after a resignation (`---`)".into(),
            });
        }
        let mut moves = Vec::new();
        for &word in &words[1..] {
            if file.resigned {
                return Err(OtgError::Syntax {
                    line,
                    reason: format!("`{}` after a resignation (`---`)", shortened(word)),
                });
            }
            if word == "---" {
                file.resigned = true;
            } else {
                moves.push(word.to_string());
            }
        }
        if moves.is_empty() && !file.resigned {
            return Err(OtgError::Syntax {
                line,
                reason: format!("move line {n} holds no move"),
            });
        }
        comments_to = Some(file.turns.len());
        file.turns.push(Turn {
            number: n,
            line,
            moves,
            comments: vec![],
        });
    }
    if file.tag("rules").is_none() {
        return Err(OtgError::MissingRules);
    }
    Ok(file)
}

/// One `[name:value]` tag of the header.
fn read_tag(file: &mut OtgFile, body: &str, line: usize) -> Result<(), OtgError> {
    let (name, value) = body.split_once(':').ok_or_else(|| OtgError::Syntax {
        line,
        reason: format!(
            "`[{}]` is not a tag: tags are written `[name:value]`",
            shortened(body)
        ),
    })?;
    let (name, value) = (name.trim(), value.trim());
    if !KNOWN_TAGS.contains(&name) {
        return Err(OtgError::UnknownTag {
            line,
            name: shortened(name),
        });
    }
    if file.tag(name).is_some() {
        return Err(OtgError::Syntax {
            line,
            reason: format!("the tag `{name}` is given twice"),
        });
    }
    if name == "result" {
        file.result = Some(OtgResult::parse(value).ok_or_else(|| OtgError::Syntax {
            line,
            reason: format!(
                "`[result:{}]`: a result is `1` (attackers won), `-1` (defenders won), `0` (draw) or `?`",
                shortened(value)
            ),
        })?);
    }
    file.tags.push((name.to_string(), value.to_string()));
    Ok(())
}

/// A variation's address, like `8a.1.1a.` (turn, half, variation, move).
fn is_variation(word: &str) -> bool {
    let rest = word
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .as_bytes();
    rest.len() < word.len() && rest.len() >= 2 && rest[0].is_ascii_lowercase() && rest[1] == b'.'
}

/// At most 40 characters of a text, for error messages.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An OTN move record as tavlei's move reader takes it: the info symbols (`+`, `++`, `-`,
/// `--`) dropped, berserk moves (`=`, `^=`) as plain moves and jumps, and piece letters dropped
/// from the captured squares (`xNe8` → `xe8`); the mover's letter and a die roll (`3:`) stay.
pub fn tavlei_move(otn: &str) -> String {
    let text = otn.trim_end_matches(['+', '-']);
    let (roll, text) = crate::rules::notation::split_roll(text);
    let (main, captures) = match text.split_once('x') {
        Some((main, captures)) => (main, Some(captures)),
        None => (text, None),
    };
    let mut out = String::new();
    if let Some(r) = roll {
        out += &format!("{r}:");
    }
    out += &main.replace("^=", "^").replace('=', "-");
    if let Some(captures) = captures {
        let squares: Vec<&str> = captures
            .split(['x', '/'])
            .filter(|c| !c.is_empty())
            .map(|c| {
                // a letter before a square's file letter names the piece
                let letter_then_file = c.len() > 2
                    && c.as_bytes()[0].is_ascii_alphabetic()
                    && c.as_bytes()[1].is_ascii_alphabetic();
                if letter_then_file {
                    &c[1..]
                } else {
                    c
                }
            })
            .collect();
        if !squares.is_empty() {
            out.push('x');
            out += &squares.join("/");
        }
    }
    out
}

/// The variant of a rules tag: the preset whose OpenTafl rules string it is, letter for letter
/// (so a file tavlei wrote comes back as its preset), else the string imported (with
/// `otn_rules::import`'s approximations).
pub fn variant_of_rules(rules: &str) -> Result<Arc<Variant>, RulesError> {
    match preset_with_rules(rules) {
        Some(v) => Ok(v),
        None => otn_rules::variant(rules.trim()),
    }
}

/// The preset whose OpenTafl rules string is exactly this one.
fn preset_with_rules(rules: &str) -> Option<Arc<Variant>> {
    static PRESET_STRINGS: OnceLock<Vec<(String, Arc<Variant>)>> = OnceLock::new();
    let presets = PRESET_STRINGS.get_or_init(|| {
        PRESET_NAMES
            .iter()
            .filter_map(|name| Variant::load(name).ok())
            .map(|v| (otn_rules::export(&v).text, v))
            .collect()
    });
    let rules = rules.trim();
    presets
        .iter()
        .find(|(text, _)| text == rules)
        .map(|(_, v)| v.clone())
}

/// A game read from an `.otg` file and checked move by move.
#[derive(Clone, Debug)]
pub struct ImportedGame {
    pub variant: Arc<Variant>,
    /// Whether the variant is the preset whose rules string the rules tag is (else it was
    /// imported from the tag, or given).
    pub preset: bool,
    /// The `[position:...]` tag, where the game starts elsewhere than the variant's start.
    pub position: Option<String>,
    /// Every ply as tavlei records write it (captures as the engine found them).
    pub moves: Vec<String>,
    /// Where the moves end, by tavlei's rules.
    pub outcome: Option<Outcome>,
    /// The result tag.
    pub claimed: Option<OtgResult>,
    /// The record's comment lines: the starting comment, the players and the event, and a
    /// result the moves do not reach (a resignation, a lost clock).
    pub comments: Vec<String>,
    /// Variation lines skipped.
    pub variations: usize,
}

impl ImportedGame {
    /// The game as a tavlei record: comment lines, tags and the move line.
    pub fn record(&self) -> String {
        let mut out = String::new();
        for c in &self.comments {
            out += &format!("# {c}\n");
        }
        out + &game_record(&self.variant, &self.moves, self.outcome)
    }
}

/// Reads an `.otg` file and plays it with tavlei's rules: the variant from the rules tag (see
/// [`variant_of_rules`]) unless one is `given`, every move checked (captures written against
/// the engine's), and the result tag against where the moves end. A decided result the moves do
/// not reach is kept as a comment (games are resigned); one they contradict is an error.
pub fn import(text: &str, given: Option<&Arc<Variant>>) -> Result<ImportedGame, OtgError> {
    let file = parse(text)?;
    let preset = preset_with_rules(file.rules());
    let variant = match (given, &preset) {
        (Some(v), _) => v.clone(),
        (None, Some(v)) => v.clone(),
        (None, None) => otn_rules::variant(file.rules()).map_err(OtgError::Rules)?,
    };
    let start = match file.tag("position") {
        Some(p) => {
            parse_otn(&variant, p, variant.rules.movement.first).map_err(OtgError::Position)?
        }
        None => Position::start(&variant),
    };
    let written: Vec<(usize, &str)> = file.moves().collect();
    let line: Vec<String> = written.iter().map(|(_, m)| tavlei_move(m)).collect();
    // each record must stay one ply for the replay (`timeout`, `12.`, a lone `+` would not)
    if let Some(i) = (0..line.len()).find(|&i| move_tokens(&line[i]).count() != 1) {
        let (turn, text) = written[i];
        return Err(OtgError::Syntax {
            line: file.turns[turn - 1].line,
            reason: format!(
                "move {turn}: `{}` is not an OTN move record",
                shortened(text)
            ),
        });
    }
    let line = line.join(" ");
    let size = variant.size;
    let mut side = start.side_to_move();
    let mut last = start.clone();
    let mut ended_at = None;
    let mut moves = Vec::new();
    for step in steps(&start, &line) {
        let step = match step {
            Ok(step) => step,
            Err(illegal) => {
                let (turn, text) = written[illegal.ply];
                return Err(OtgError::Move {
                    turn,
                    side: side.name(),
                    text: text.to_string(),
                    reason: illegal.reason,
                });
            }
        };
        let (turn, text) = written[step.ply];
        if let Some(claimed) = &step.written {
            if *claimed != step.captured {
                let names = |squares: &[u16]| {
                    let names: Vec<String> =
                        squares.iter().map(|&sq| square_name(sq, size)).collect();
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                };
                return Err(OtgError::Move {
                    turn,
                    side: side.name(),
                    text: text.to_string(),
                    reason: format!(
                        "it captures {}, tavlei's rules capture {}",
                        names(claimed),
                        names(&step.captured)
                    ),
                });
            }
        }
        // the move as tavlei writes it (its captures in the engine's order, the roll first)
        let mut replayed = last.clone();
        replayed.set_roll(step.roll);
        moves.push(replayed.play_recorded(step.mv));
        if step.position.outcome().is_some() {
            ended_at = Some(turn);
        }
        side = step.position.side_to_move();
        last = step.position;
    }
    let outcome = last.outcome();
    if let Some(&(turn, text)) = written.get(moves.len()) {
        let reason = match (outcome, ended_at) {
            (Some(o), Some(at)) => format!(
                "played after the game ended ({} won, {}, at move {at})",
                o.result_name(),
                o.reason.name()
            ),
            (Some(o), None) => format!(
                "the start position is already decided ({})",
                o.reason.name()
            ),
            _ => "not played".to_string(),
        };
        return Err(OtgError::Move {
            turn,
            side: side.name(),
            text: text.to_string(),
            reason,
        });
    }
    let found = OtgResult::of(outcome);
    let mut comments = vec![file.title()];
    for name in DESCRIPTIVE_TAGS {
        if let Some(value) = file.tag(name) {
            comments.push(format!("{name}: {}", one_line(value)));
        }
    }
    match (file.result, outcome) {
        (Some(claimed), Some(o)) if claimed != OtgResult::Other && claimed != found => {
            return Err(OtgError::Result {
                claimed: format!("`{}` ({})", claimed.code(), claimed.name()),
                found: format!(
                    "{} ({}) at move {}",
                    o.result_name(),
                    o.reason.name(),
                    ended_at.unwrap_or(0)
                ),
            });
        }
        (Some(claimed), None) if claimed != OtgResult::Other => {
            let how = file
                .tag("termination")
                .map_or(String::new(), |t| format!(" ({})", one_line(t)));
            comments.push(format!(
                "OpenTafl result: {}{how}; the moves do not reach it",
                claimed.name()
            ));
        }
        _ => {}
    }
    let position = file.tag("position").map(|p| {
        comments.push(format!(
            "starts from {} with the {} to move: replay with --position",
            p,
            start.side_to_move().name()
        ));
        p.to_string()
    });
    Ok(ImportedGame {
        variant,
        preset: given.is_none() && preset.is_some(),
        position,
        moves,
        outcome,
        claimed: file.result,
        comments,
        variations: file.variations,
    })
}

/// An `.otg` file written, with what OpenTafl will not read in it.
#[derive(Clone, Debug)]
pub struct OtgExport {
    pub text: String,
    /// Each rule of the variant the rules tag cannot state, and each kind of ply OpenTafl has
    /// no notation for (die rolls, `stop`, `pass`), in words.
    pub notes: Vec<String>,
}

/// Writes a tavlei record's game as an `.otg` file after replaying it from the variant's start:
/// an illegal move, moves after the end, a result tag the moves contradict and a record of
/// another variant are errors. Tags, in OpenTafl's manner (the rules last): `variant`,
/// `result`, `termination` (finished games), `compiler`, `start-comment` (the record's comment
/// lines), `rules`. Moves are grouped into numbered lines of the first mover's plies then the
/// other side's, with OpenTafl's piece letters for kings, commanders and knights and `=` for
/// the moves of a berserk chain.
pub fn export(variant: &Arc<Variant>, game: &RecordedGame) -> Result<OtgExport, OtgError> {
    if let Some(name) = game.tag("variant") {
        if name != variant.rules.name {
            return Err(OtgError::WrongVariant {
                record: name.to_string(),
                given: variant.rules.name.clone(),
            });
        }
    }
    let size = variant.size;
    let start = Position::start(variant);
    let first = start.side_to_move();
    let tokens: Vec<&str> = move_tokens(&game.moves).collect();
    let mut before = start.clone();
    let mut turns: Vec<Vec<String>> = Vec::new();
    let mut last_mover = None;
    let (mut rolls, mut own_plies) = (false, false);
    for step in steps(&start, &game.moves) {
        let step = step.map_err(|illegal| OtgError::Record {
            ply: illegal.ply,
            text: illegal.mv,
            reason: illegal.reason,
        })?;
        let mover = before.side_to_move();
        if turns.is_empty() || (mover == first && last_mover != Some(first)) {
            turns.push(Vec::new());
        }
        last_mover = Some(mover);
        let mut text = String::new();
        if step.roll > 0 {
            rolls = true;
            text += &format!("{}:", step.roll);
        }
        let letter = |sq| {
            before
                .piece_at(sq)
                .filter(|p| p.kind != PieceKind::Taflman)
                .map(|p| p.otn_char().to_string())
                .unwrap_or_default()
        };
        let berserk = before.berserk_piece().is_some();
        let (from, to) = (
            square_name(step.mv.from(), size),
            square_name(step.mv.to(), size),
        );
        match step.mv.kind() {
            MoveKind::Slide => {
                let sep = if berserk { "=" } else { "-" };
                text += &format!("{}{from}{sep}{to}", letter(step.mv.from()));
            }
            MoveKind::Jump => {
                let sep = if berserk { "^=" } else { "^" };
                text += &format!("{}{from}{sep}{to}", letter(step.mv.from()));
            }
            MoveKind::Stop | MoveKind::Pass => {
                own_plies = true;
                text += &step.mv.name(size);
            }
        }
        for (i, &sq) in step.captured.iter().enumerate() {
            text.push(if i == 0 { 'x' } else { '/' });
            text += &letter(sq);
            text += &square_name(sq, size);
        }
        if let Some(turn) = turns.last_mut() {
            turn.push(text);
        }
        before = step.position;
    }
    let plies: usize = turns.iter().map(Vec::len).sum();
    let outcome = before.outcome();
    if let Some(extra) = tokens.get(plies) {
        return Err(OtgError::Record {
            ply: plies,
            text: extra.to_string(),
            reason: "played after the game ended".into(),
        });
    }
    if let Some(claimed) = game.tag("result").filter(|&r| r != "*") {
        let found = outcome.map_or("no result (the moves stop first)".to_string(), |o| {
            format!("{} {}", o.result_name(), o.reason.name())
        });
        if claimed != found {
            return Err(OtgError::Result {
                claimed: format!("`{claimed}`"),
                found,
            });
        }
    }
    let rules = otn_rules::export(variant);
    let mut text = format!("[variant:{}]\n", variant.rules.name);
    text += &format!("[result:{}]\n", OtgResult::of(outcome).code());
    if let Some(o) = outcome {
        let how = o.reason.name().replace('_', " ");
        text += &match o.winner {
            Some(side) => format!("[termination:{} won: {how}]\n", side.name()),
            None => format!("[termination:draw: {how}]\n"),
        };
    }
    text += &format!("[compiler:tavlei {}]\n", env!("CARGO_PKG_VERSION"));
    if !game.comments.is_empty() {
        let comment = game.comments.join("; ").replace('[', "(").replace(']', ")");
        text += &format!("[start-comment:{}]\n", one_line(&comment));
    }
    text += &format!("[rules:{}]\n\n", rules.text);
    for (i, turn) in turns.iter().enumerate() {
        text += &format!("{}. {}\n", i + 1, turn.join(" "));
    }
    let mut notes: Vec<String> = rules
        .inexpressible
        .into_iter()
        .map(|rule| format!("a rule the rules tag cannot state: {rule}"))
        .collect();
    if rolls {
        notes.push(
            "die rolls are written before their moves (`3:e5-e7`), which OpenTafl does not read"
                .into(),
        );
    }
    if own_plies {
        notes.push(
            "`stop` and `pass` plies are tavlei's own: OpenTafl has no notation for them".into(),
        );
    }
    Ok(OtgExport { text, notes })
}

/// The games of a tavlei record file or of an OpenTafl game file, told apart by their content
/// ([`is_otg`]); an `.otg` file's moves are rewritten for tavlei's reader ([`tavlei_move`]) but
/// not played here. An `.otg` game that starts from its own `[position:]` is refused unless the
/// caller gives the start (`start_given`): its moves would otherwise be read from the wrong board.
pub fn read_games(text: &str, start_given: bool) -> Result<Vec<RecordedGame>, OtgError> {
    if is_otg(text) {
        let game = parse(text)?;
        if let (Some(position), false) = (game.tag("position"), start_given) {
            return Err(OtgError::StartsElsewhere(position.to_string()));
        }
        Ok(vec![game.recorded_game()])
    } else {
        Ok(crate::rules::replay::recorded_games(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn otn_move_records_become_what_tavleis_reader_takes() {
        assert_eq!(tavlei_move("e5-e8"), "e5-e8");
        assert_eq!(tavlei_move("Ke1-a1--"), "Ke1-a1");
        assert_eq!(tavlei_move("Ke5-e1-"), "Ke5-e1");
        assert_eq!(tavlei_move("e3-e4++"), "e3-e4");
        assert_eq!(tavlei_move("a3-e3+"), "a3-e3");
        assert_eq!(tavlei_move("Ne6^=e8xce7/ne9/f8/d8"), "Ne6^e8xe7/e9/f8/d8");
        assert_eq!(tavlei_move("Ne8=e4xe3"), "Ne8-e4xe3");
        assert_eq!(tavlei_move("k9=a9xca10"), "k9-a9xa10");
        // squares on the k file keep their letter
        assert_eq!(tavlei_move("k4-k7xk11/Kk8"), "k4-k7xk11/k8");
        assert_eq!(tavlei_move("3:e5-e7xe8"), "3:e5-e7xe8");
        assert_eq!(tavlei_move("d9-d10x"), "d9-d10");
    }

    #[test]
    fn otg_files_are_told_from_tavlei_records_by_their_first_tag() {
        assert!(is_otg("\n[date:2015.01.07]\n[rules:dim:7 start:/7/]\n"));
        assert!(is_otg("[time-control:3600 30/3 3i]"));
        assert!(!is_otg("# game 0\n[variant \"brandubh\"]\nd6-c6\n"));
        assert!(!is_otg("[variant \"x:y\"]\n"));
        assert!(!is_otg("d6-c6 e4-e3\n"));
        assert!(!is_otg(""));
    }

    #[test]
    fn comments_go_with_their_line_and_variations_are_skipped() {
        let text = "[rules:dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n\
                    1. d6-c6 e4-e3 [one|two]\n2. c6-c5\n[three]\n2a.1.1a. d2-c2\n[gone|gone]\n";
        let file = parse(text).expect("parses");
        assert_eq!(file.turns.len(), 2);
        assert_eq!(file.turns[0].comments, ["one", "two"]);
        assert_eq!(file.turns[1].comments, ["three"]);
        assert_eq!((file.turns[1].line, file.variations), (4, 1));
        let e = parse("[rules:dim:7]\n1. d6-c6\n1. e4-e3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: move line 1 where move line 2 was expected"
        );
        let e = parse("[rules:dim:7]\n1.\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: move line 1 holds no move");
        let e = parse("[rules:dim:7]\n1. d6-c6 --- e4-e3\n").unwrap_err();
        assert!(e.to_string().contains("`e4-e3` after a resignation"), "{e}");
    }
}
