//! OpenTafl rules strings (`dim:11 name:Copenhagen atkf:y tfr:w ... start:/.../`), both ways.
//! Export writes every rule OpenTafl can state and names each one it cannot (dice, camps, ...);
//! import builds variant rules from a string, names every setting tavlei only approximates, and
//! refuses the ones it does not have. Key meanings and defaults follow OpenTafl's notation
//! specification (summarised in docs/interop.md).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::rules::error::RulesError;
use crate::rules::notation::{cells_to_otn, parse_otn_cells};
use crate::rules::piece::{Piece, Side};
use crate::rules::presets::{preset_text, PRESET_NAMES};
use crate::rules::rules::{
    Armed, BoardRules, CaptureRules, Dice, EndRules, Escape, Hostility, KingCapture, KingRules,
    MovementRules, NoMoves, Repetition, Rules, ThronePass,
};
use crate::rules::square::{parse_square, square_name};
use crate::rules::variant::{corner_squares, Variant};

/// OTN letters of the attackers' and the defenders' non-king pieces (taflman, commander,
/// knight, mercenary, guard), for the piece sets of hostility and passage keys.
const ATTACKER_LETTERS: &str = "tcnmg";
const DEFENDER_LETTERS: &str = "TCNMG";

/// A variant as an OpenTafl rules string, with the rules the string cannot carry.
#[derive(Debug, Clone)]
pub struct OtnExport {
    pub text: String,
    /// Each rule of the variant that OpenTafl cannot express (or expresses only approximately),
    /// in words.
    pub inexpressible: Vec<String>,
}

/// Rules read from an OpenTafl rules string, with what had to be approximated.
#[derive(Debug, Clone)]
pub struct OtnImport {
    pub rules: Rules,
    /// Each OpenTafl setting tavlei plays a little differently, and each tavlei setting the
    /// string does not give (chosen here), in words.
    pub approximations: Vec<String>,
}

/// The OpenTafl rules string of a variant.
pub fn export(v: &Variant) -> OtnExport {
    let r = &v.rules;
    let yn = |b: bool| if b { "y" } else { "n" };
    let mut missing = Vec::new();
    let mut parts = vec![
        format!("dim:{}", v.size),
        format!("name:{}", r.name.replace(' ', "_")),
        format!(
            "esc:{}",
            match r.end.escape {
                Escape::Corners => "c",
                Escape::Edge => "e",
            }
        ),
        format!("surf:{}", yn(r.end.encirclement)),
        format!("atkf:{}", yn(r.movement.first == Side::Attackers)),
    ];
    let tfr = match r.end.repetition {
        Repetition::Ignore => "i",
        Repetition::Draw => "d",
        Repetition::DefendersLose => {
            missing.push(format!(
                "the defenders lose when a position occurs {} times (written as tfr:w, where whoever moves into the third repetition wins)",
                r.end.repetition_count
            ));
            "w"
        }
        Repetition::Illegal => {
            missing.push(format!(
                "a move that makes a position occur {} times is illegal (written as tfr:l, where whoever moves into the third repetition loses)",
                r.end.repetition_count
            ));
            "l"
        }
    };
    parts.push(format!("tfr:{tfr}"));
    if r.end.repetition == Repetition::Draw && r.end.repetition_count != 3 {
        missing.push(format!(
            "the repetition rule acts on the {}th occurrence (OpenTafl: the third)",
            r.end.repetition_count
        ));
    }
    parts.push(format!(
        "ka:{}",
        match r.king.armed {
            Armed::Yes => "y",
            Armed::No => "n",
            Armed::Anvil => "a",
            Armed::Hammer => "h",
        }
    ));
    parts.push(format!(
        "ks:{}",
        match r.king.capture {
            KingCapture::Custodial => "w",
            KingCapture::ThroneSensitive => "c",
            KingCapture::Enclosed => "s",
        }
    ));
    if r.king.hostile_edge {
        missing.push("the board edge counts as an attacker against the king".into());
    }
    if r.king.pair_capture {
        missing.push(
            "the king and one adjacent defender are captured together when both are enclosed"
                .into(),
        );
    }
    if r.king.commanders_capture {
        missing.push("commanders capture the king against another commander or a corner".into());
    }
    // tavlei's jumps: the king and commanders jump without capturing, the knight captures
    let (kj, nj, cj) = if r.movement.jumps {
        ("j", "c", "j")
    } else {
        ("n", "n", "n")
    };
    parts.push(format!("kj:{kj} nj:{nj} cj:{cj}"));
    if r.movement.king_max == r.movement.taflman_max {
        parts.push(format!("spd:{}", speed(r.movement.king_max)));
    } else {
        parts.push(format!("spd:{}", speed(r.movement.taflman_max)));
        missing.push(format!(
            "the king moves at most {} squares, other pieces {}",
            r.movement.king_max,
            if r.movement.taflman_max == 0 {
                "any distance".to_string()
            } else {
                format!("at most {}", r.movement.taflman_max)
            }
        ));
    }
    let corners = corner_squares(v.size, r.board.corners).unwrap_or_default();
    parts.push(format!("cor:{}", square_list(&corners, v.size)));
    let mut corh = String::new();
    if r.capture.corners_hostile {
        corh += ATTACKER_LETTERS;
        corh += DEFENDER_LETTERS;
    }
    if r.king.hostile_corners {
        corh.push('K');
    }
    parts.push(format!("corh:{corh}"));
    // the centre's settings are written even without a throne, so a string reads back exactly
    parts.push(format!(
        "cen:{}",
        square_list(&v.throne.into_iter().collect::<Vec<_>>(), v.size)
    ));
    let (mut always, mut empty) = (String::new(), String::new());
    for (hostility, letters) in [
        (r.capture.throne_hostile_to_attackers, ATTACKER_LETTERS),
        (r.capture.throne_hostile_to_defenders, DEFENDER_LETTERS),
    ] {
        if hostility == Hostility::Always {
            always += letters;
        }
        if hostility != Hostility::Never {
            empty += letters;
        }
    }
    if r.king.hostile_throne {
        empty.push('K');
    }
    let pass = match r.movement.throne_pass {
        ThronePass::Nobody => String::new(),
        ThronePass::King => "K".into(),
        ThronePass::All => format!("{ATTACKER_LETTERS}{DEFENDER_LETTERS}K"),
    };
    let reenter = if r.movement.king_reenters_throne {
        "K"
    } else {
        ""
    };
    parts.push(format!(
        "cenh:{always} cenhe:{empty} cenp:{pass} cens:K cenre:{reenter}"
    ));
    parts.push(format!(
        "sw:{}",
        if r.capture.shieldwall { "s" } else { "n" }
    ));
    parts.push(format!("efe:{}", yn(r.end.edge_fort)));
    parts.push(format!(
        "ber:{}",
        if r.movement.berserk_chains { "c" } else { "n" }
    ));
    if !r.board.camps.is_empty() {
        missing.push(format!(
            "camps ({}): squares the attackers start on and may not re-enter, hostile to pieces beside them{}",
            r.board
                .camps
                .iter()
                .map(|c| c.join(","))
                .collect::<Vec<_>>()
                .join("; "),
            if r.king.hostile_camps {
                " and to the king"
            } else {
                ""
            }
        ));
    }
    match r.movement.dice {
        Dice::Off => {}
        Dice::Distance => missing.push("a die roll caps the length of every move".into()),
        Dice::Parity => missing.push("a die roll decides each turn: even moves, odd passes".into()),
    }
    if r.end.no_moves == NoMoves::Draw {
        missing.push("a side without a legal move draws (OpenTafl: it loses)".into());
    }
    if r.end.max_plies > 0 {
        missing.push(format!(
            "draw after {} plies (tavlei's length cap)",
            r.end.max_plies
        ));
    }
    if r.end.max_plies_without_capture > 0 {
        missing.push(format!(
            "draw after {} plies without a capture",
            r.end.max_plies_without_capture
        ));
    }
    parts.push(format!("start:{}", cells_to_otn(&v.start, v.size)));
    OtnExport {
        text: parts.join(" "),
        inexpressible: missing,
    }
}

fn speed(limit: u8) -> String {
    if limit == 0 {
        "-1".into()
    } else {
        limit.to_string()
    }
}

/// Squares as OpenTafl lists them: each followed by a comma (`a1,k1,`).
fn square_list(squares: &[u16], size: usize) -> String {
    squares
        .iter()
        .map(|&sq| format!("{},", square_name(sq, size)))
        .collect()
}

/// The variant of an OpenTafl rules string (see `import` for what is approximated).
pub fn variant(text: &str) -> Result<Arc<Variant>, RulesError> {
    Variant::new(import(text)?.rules).map(Arc::new)
}

/// Reads an OpenTafl rules string.
pub fn import(text: &str) -> Result<OtnImport, RulesError> {
    let fail = |key: &str, reason: String| RulesError::OtnRules {
        key: key.to_string(),
        reason,
    };
    let entries = entries(text)?;
    let get = |key: &str| entries.get(key).map(String::as_str);
    let size: usize = get("dim")
        .ok_or_else(|| fail("dim", "missing: the board size is required".into()))?
        .parse()
        .map_err(|_| fail("dim", "not a number".into()))?;
    if !(7..=19).contains(&size) || size.is_multiple_of(2) {
        return Err(fail(
            "dim",
            format!("{size}: the board must be odd, 7 to 19"),
        ));
    }
    for key in entries.keys() {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            let reason = if key.starts_with("afor") || key.starts_with("dfor") {
                "forts are not tavlei rules".to_string()
            } else {
                "not an OpenTafl rules key tavlei knows".to_string()
            };
            return Err(fail(key, reason));
        }
    }
    let start = get("start").ok_or_else(|| fail("start", "missing".into()))?;
    let layout = layout_rows(start, size).map_err(|reason| fail("start", reason))?;
    let mut notes = Vec::new();
    let yes_no = |key: &str, default: bool| -> Result<bool, RulesError> {
        match get(key) {
            None => Ok(default),
            Some("y") => Ok(true),
            Some("n") => Ok(false),
            Some(other) => Err(fail(key, format!("`{other}`: expected y or n"))),
        }
    };
    let one_of = |key: &str, default: &'static str, allowed: &[&'static str]| {
        let value = get(key).unwrap_or(default);
        allowed
            .iter()
            .find(|&&a| a == value)
            .copied()
            .ok_or_else(|| {
                fail(
                    key,
                    format!("`{value}`: expected one of {}", allowed.join(", ")),
                )
            })
    };
    let escape = match one_of("esc", "c", &["c", "e"])? {
        "e" => Escape::Edge,
        _ => Escape::Corners,
    };
    let corners = match get("cor") {
        None => 1,
        Some(list) => {
            let mut squares = square_set(list, size).map_err(|reason| fail("cor", reason))?;
            squares.sort_unstable();
            (0..=2u8)
                .find(|&c| corner_squares(size, c).as_deref() == Some(&squares[..]))
                .ok_or_else(|| {
                    fail(
                        "cor",
                        "tavlei's corner squares are none, the four corners or their 2x2 blocks"
                            .into(),
                    )
                })?
        }
    };
    // variant files mark empty corner squares `#`
    let mut layout = layout;
    for sq in corner_squares(size, corners).unwrap_or_default() {
        let (file, rank) = (sq as usize % size, sq as usize / size);
        let row = &mut layout[size - 1 - rank];
        let mut cells: Vec<&str> = row.split(' ').collect();
        if cells[file] == "." {
            cells[file] = "#";
        }
        *row = cells.join(" ");
    }
    let centre = (size * size / 2) as u16;
    let throne = match get("cen") {
        None => true,
        Some(list) => match square_set(list, size).map_err(|reason| fail("cen", reason))?[..] {
            [] => false,
            [sq] if sq == centre => true,
            _ => {
                return Err(fail(
                    "cen",
                    "tavlei's throne is the centre square or none".into(),
                ))
            }
        },
    };
    let letters = |key: &str, default: &str| -> Result<String, RulesError> {
        let value = get(key).unwrap_or(default).to_string();
        match value.chars().find(|c| !"tcnkmgTCNKMG".contains(*c)) {
            Some(c) => Err(fail(key, format!("`{c}` is not an OpenTafl piece letter"))),
            None => Ok(value),
        }
    };
    let all = format!("{ATTACKER_LETTERS}k{DEFENDER_LETTERS}K");
    let cenh = letters("cenh", &format!("{ATTACKER_LETTERS}k"))?;
    let cenhe = letters("cenhe", &all)?;
    let corh = letters("corh", &all)?;
    let cenp = letters("cenp", "K")?;
    let cens = letters("cens", "K")?;
    let cenre = letters("cenre", "K")?;
    for (key, value) in [
        ("cors", get("cors")),
        ("corp", get("corp")),
        ("corre", get("corre")),
    ] {
        if value.is_some_and(|v| v != "K") {
            return Err(fail(key, "tavlei's corners take the king alone".into()));
        }
    }
    if throne && cens != "K" {
        return Err(fail("cens", "tavlei's throne takes the king alone".into()));
    }
    let hostility = |taflman: char| {
        if cenh.contains(taflman) {
            Hostility::Always
        } else if cenhe.contains(taflman) {
            Hostility::WhenEmpty
        } else {
            Hostility::Never
        }
    };
    let throne_pass = if cenp.contains('t') && cenp.contains('T') {
        ThronePass::All
    } else if cenp.contains('K') {
        ThronePass::King
    } else {
        ThronePass::Nobody
    };
    let (repetition, repetition_count) = match one_of("tfr", "d", &["i", "d", "w", "l"])? {
        "i" => (Repetition::Ignore, 3),
        "w" => {
            notes.push("tfr:w (whoever moves into the third repetition wins) is played as: the defenders lose on the third occurrence".into());
            (Repetition::DefendersLose, 3)
        }
        "l" => {
            notes.push("tfr:l (whoever moves into the third repetition loses) is played as: a move that makes a position occur a third time is illegal".into());
            (Repetition::Illegal, 3)
        }
        _ => (Repetition::Draw, 3),
    };
    let armed = match one_of("ka", "y", &["y", "n", "a", "h"])? {
        "n" => Armed::No,
        "a" => Armed::Anvil,
        "h" => Armed::Hammer,
        _ => Armed::Yes,
    };
    let capture = match one_of("ks", "s", &["s", "c", "w", "m", "y", "n"])? {
        "c" => KingCapture::ThroneSensitive,
        "w" | "n" => KingCapture::Custodial,
        "m" => {
            return Err(fail(
                "ks",
                "the middleweight king (m) is not a tavlei rule".into(),
            ))
        }
        _ => KingCapture::Enclosed,
    };
    let kj = one_of("kj", "n", &["n", "r", "j", "c"])?;
    let jumps = match kj {
        "n" => false,
        "j" => true,
        _ => {
            return Err(fail(
                "kj",
                format!("`{kj}`: tavlei's king jumps without capturing (j) or not at all (n)"),
            ))
        }
    };
    let (king_max, taflman_max) = match get("spd").unwrap_or("-1") {
        "-1" => (0, 0),
        value => {
            let n: u8 = value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                fail(
                    "spd",
                    format!("`{value}`: tavlei reads one speed limit for every piece (or -1)"),
                )
            })?;
            (n, n)
        }
    };
    let shieldwall = match one_of("sw", "n", &["n", "w", "s"])? {
        "n" => false,
        "w" => {
            notes.push("sw:w (a weak shieldwall, which corners cannot close) is played as tavlei's shieldwall, which a corner may close".into());
            true
        }
        _ => true,
    };
    if shieldwall && get("swf") == Some("n") {
        notes.push("swf:n (a shieldwall captured without a flanking move) is played with the flanking move tavlei requires".into());
    }
    if yes_no("linc", false)? {
        return Err(fail(
            "linc",
            "the Linnaean capture is not a tavlei rule".into(),
        ));
    }
    let berserk_chains = match one_of("ber", "n", &["n", "c", "m"])? {
        "n" => false,
        "c" => true,
        _ => {
            return Err(fail(
                "ber",
                "berserk by move (m) is not a tavlei rule; only by capture (c)".into(),
            ))
        }
    };
    let max_plies = 40 * size as u32;
    notes.push(format!(
        "a length cap OpenTafl does not have: a draw after {max_plies} plies (end.max_plies; 0 removes it)"
    ));
    let name = get("name")
        .map(|n| n.to_lowercase().replace(['_', ' '], "_"))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("opentafl_{size}"));
    let title = get("name")
        .map(|n| n.replace('_', " "))
        .unwrap_or_else(|| format!("OpenTafl rules {size}x{size}"));
    let rules = Rules {
        name,
        title,
        source: "imported from an OpenTafl rules string".into(),
        board: BoardRules {
            layout,
            corners,
            throne,
            camps: vec![],
        },
        movement: MovementRules {
            first: if yes_no("atkf", true)? {
                Side::Attackers
            } else {
                Side::Defenders
            },
            throne_pass,
            king_reenters_throne: cenre.contains('K'),
            king_max,
            taflman_max,
            jumps,
            berserk_chains,
            dice: Dice::Off,
        },
        capture: CaptureRules {
            throne_hostile_to_attackers: hostility('t'),
            throne_hostile_to_defenders: hostility('T'),
            corners_hostile: corh.contains('t') || corh.contains('T'),
            shieldwall,
        },
        king: KingRules {
            armed,
            capture,
            hostile_throne: cenh.contains('K') || cenhe.contains('K'),
            hostile_corners: corh.contains('K'),
            hostile_edge: false,
            hostile_camps: false,
            pair_capture: false,
            commanders_capture: false,
        },
        end: EndRules {
            escape,
            edge_fort: yes_no("efe", false)?,
            encirclement: yes_no("surf", true)?,
            no_moves: NoMoves::Loss,
            repetition,
            repetition_count,
            max_plies,
            max_plies_without_capture: 0,
        },
    };
    // the rules must make a playable variant (one king, corners empty, ...)
    Variant::new(rules.clone())?;
    Ok(OtnImport {
        rules,
        approximations: notes,
    })
}

/// The keys this reader understands.
const KNOWN_KEYS: &[&str] = &[
    "dim", "name", "esc", "surf", "atkf", "tfr", "ka", "ks", "kj", "nj", "cj", "mj", "gj", "spd",
    "cor", "cen", "corh", "cenh", "cenhe", "corp", "cenp", "cors", "cens", "corre", "cenre", "sw",
    "swf", "efe", "linc", "ber", "start", "starti",
];

/// `key:value` entries; `start:` (or `starti:`) takes the rest of the string.
fn entries(text: &str) -> Result<BTreeMap<String, String>, RulesError> {
    let mut map = BTreeMap::new();
    for word in text.split_whitespace() {
        let (key, value) = word.split_once(':').ok_or_else(|| RulesError::OtnRules {
            key: word.to_string(),
            reason: "not a `key:value` entry".into(),
        })?;
        let key = if key == "starti" { "start" } else { key };
        if map.insert(key.to_string(), value.to_string()).is_some() {
            return Err(RulesError::OtnRules {
                key: key.to_string(),
                reason: "given twice".into(),
            });
        }
    }
    Ok(map)
}

/// Squares from a comma-terminated list (`a1,k1,`).
fn square_set(list: &str, size: usize) -> Result<Vec<u16>, String> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            parse_square(s, size)
                .ok_or_else(|| format!("`{s}` is not a square of a {size}x{size} board"))
        })
        .collect()
}

/// The variant file's layout rows (top rank first) from an OTN position (rank 1 first).
fn layout_rows(position: &str, size: usize) -> Result<Vec<String>, String> {
    let cells = parse_otn_cells(position, size).map_err(|e| e.to_string())?;
    let mut rows: Vec<String> = cells
        .chunks(size)
        .enumerate()
        .map(|(rank, squares)| {
            let letters = squares.iter().map(|&code| match Piece::from_code(code) {
                None => Ok('.'),
                // a layout letter names a piece and side only where it reads back as that piece
                Some(piece) => Some(piece.layout_char())
                    .filter(|&c| Piece::from_layout_char(c) == Some(piece))
                    .ok_or_else(|| {
                        format!(
                            "rank {}: tavlei has no `{}` piece in its variants",
                            rank + 1,
                            piece.otn_char()
                        )
                    }),
            });
            letters
                .map(|c| c.map(String::from))
                .collect::<Result<Vec<_>, _>>()
                .map(|cells| cells.join(" "))
        })
        .collect::<Result<_, _>>()?;
    rows.reverse();
    Ok(rows)
}

/// One rule that two variants set differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// `section.field` as in a variant file, e.g. `king.capture`.
    pub field: String,
    pub here: String,
    pub there: String,
}

/// The rules `a` and `b` set differently (their names, titles and sources aside). Start
/// layouts that differ are summarised by the number of squares that differ.
pub fn differences(a: &Rules, b: &Rules) -> Vec<Difference> {
    let (fa, fb) = (flatten(a), flatten(b));
    fa.iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "title" | "source"))
        .filter_map(|(k, va)| {
            let vb = fb.get(k).cloned().unwrap_or_default();
            if *va == vb {
                return None;
            }
            let (here, there) = if k == "board.layout" {
                let squares = |r: &Rules| -> Vec<String> {
                    r.board
                        .layout
                        .iter()
                        .flat_map(|row| row.split_whitespace().map(str::to_string))
                        .collect()
                };
                let (sa, sb) = (squares(a), squares(b));
                let differ = sa.iter().zip(&sb).filter(|(x, y)| x != y).count()
                    + sa.len().abs_diff(sb.len());
                (
                    format!("a start {differ} squares apart"),
                    "its start".into(),
                )
            } else {
                (va.clone(), vb)
            };
            Some(Difference {
                field: k.clone(),
                here,
                there,
            })
        })
        .collect()
}

/// Every field of the rules as `section.field` → its value in TOML.
fn flatten(rules: &Rules) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Ok(toml::Value::Table(table)) = toml::Value::try_from(rules) {
        for (key, value) in table {
            match value {
                toml::Value::Table(section) => {
                    for (field, v) in section {
                        out.insert(format!("{key}.{field}"), v.to_string());
                    }
                }
                v => {
                    out.insert(key, v.to_string());
                }
            }
        }
    }
    out
}

/// The preset closest to these rules (same board size first, then fewest differences), and the
/// differences.
pub fn nearest_preset(rules: &Rules) -> Option<(&'static str, Vec<Difference>)> {
    let size = rules.board.layout.len();
    PRESET_NAMES
        .iter()
        .filter_map(|&name| {
            let preset: Rules = toml::from_str(preset_text(name)?).ok()?;
            let diffs = differences(rules, &preset);
            Some((preset.board.layout.len() != size, diffs.len(), name, diffs))
        })
        .min_by_key(|(other_size, count, _, _)| (*other_size, *count))
        .map(|(_, _, name, diffs)| (name, diffs))
}

/// What each field means, for the comments of an imported variant file.
const FIELD_NOTES: &[(&str, &str)] = &[
    ("layout", "Start position, top rank first: A attacker, D defender, K king, C commander, N knight, . empty"),
    ("corners", "Corner squares: 0 none, 1 the four corners, 2 the four 2x2 blocks"),
    ("throne", "Whether the centre square is a throne"),
    ("camps", "Camps (Tablut): lists of squares"),
    ("first", "The side that moves first"),
    ("throne_pass", "Who may pass over the empty throne: nobody, all, king"),
    ("king_reenters_throne", "Whether the king may stop on the throne again"),
    ("king_max", "Longest king move in squares (0 = unlimited)"),
    ("taflman_max", "Longest move of other pieces (0 = unlimited)"),
    ("jumps", "King, knights and commanders jump an adjacent enemy"),
    ("berserk_chains", "A capturing piece may move again while it captures"),
    ("dice", "A die before every move: off, distance, parity"),
    ("throne_hostile_to_attackers", "The throne as an anvil against attackers: never, when_empty, always"),
    ("throne_hostile_to_defenders", "The throne as an anvil against defenders: never, when_empty, always"),
    ("corners_hostile", "Corners are anvils against every taflman"),
    ("shieldwall", "Edge rows bracketed at both ends are captured"),
    ("armed", "The king captures: yes, no, anvil, hammer"),
    ("capture", "How the king is captured: custodial (2 sides), throne_sensitive, enclosed (4 sides)"),
    ("hostile_throne", "The empty throne counts against the king"),
    ("hostile_corners", "Corners count against the king"),
    ("hostile_edge", "The board edge counts against the king"),
    ("hostile_camps", "Empty camps count against the king"),
    ("pair_capture", "The king and one adjacent defender are captured together"),
    ("commanders_capture", "Commanders capture the king (Berserk)"),
    ("escape", "Where the king escapes: corners or edge"),
    ("edge_fort", "An unbreakable edge fort around the king wins for the defenders"),
    ("encirclement", "Attackers win by enclosing every defender"),
    ("no_moves", "A side without a legal move: loss or draw"),
    ("repetition", "A repeated position: ignore, draw, defenders_lose, illegal"),
    ("repetition_count", "Occurrences that trigger the repetition rule"),
    ("max_plies", "Draw after this many plies (0 = no cap)"),
    ("max_plies_without_capture", "Draw after this many plies without a capture (0 = no cap)"),
];

/// The imported rules as a commented variant file: the string it came from, what was
/// approximated, the differences from the nearest preset, and a note on every field.
pub fn variant_file(imported: &OtnImport, source: &str) -> String {
    let mut out = String::from("# A tavlei variant imported from an OpenTafl rules string:\n");
    out += &format!("#   {}\n", source.trim());
    if !imported.approximations.is_empty() {
        out += "# Approximations (OpenTafl settings tavlei plays differently, and settings it adds):\n";
        for note in &imported.approximations {
            out += &format!("#   - {note}\n");
        }
    }
    if let Some((preset, diffs)) = nearest_preset(&imported.rules) {
        if diffs.is_empty() {
            out += &format!("# The same rules as the preset `{preset}`.\n");
        } else {
            out += &format!("# Differences from the nearest preset, `{preset}` (here / there):\n");
            for d in &diffs {
                out += &format!("#   - {}: {} / {}\n", d.field, d.here, d.there);
            }
        }
    }
    out.push('\n');
    let text = toml::to_string_pretty(&imported.rules).unwrap_or_default();
    for line in text.lines() {
        let key = line.split(" = ").next().unwrap_or("");
        if let Some((_, note)) = FIELD_NOTES.iter().find(|(k, _)| *k == key) {
            out += &format!("# {note}\n");
        }
        out += line;
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_take_empty_values_and_refuse_repeats() {
        let e = entries("dim:7 cenh: start:/7/").unwrap();
        assert_eq!(e["cenh"], "");
        assert!(matches!(
            entries("dim:7 dim:9"),
            Err(RulesError::OtnRules { key, .. }) if key == "dim"
        ));
        assert!(entries("dim:7 oops").is_err());
    }

    #[test]
    fn layout_rows_put_rank_one_last() {
        let rows = layout_rows("/t6/7/7/3K3/7/7/6T/", 7).unwrap();
        assert_eq!(rows[6], "A . . . . . .");
        assert_eq!(rows[0], ". . . . . . D");
        assert!(layout_rows("/7/7/", 7).unwrap_err().contains("2 ranks"));
        assert!(layout_rows("/t5/7/7/3K3/7/7/7/", 7)
            .unwrap_err()
            .contains("rank 1 has 6"));
        assert!(layout_rows("/99999999999999/7/7/3K3/7/7/7/", 7)
            .unwrap_err()
            .contains("do not fit"));
    }
}
