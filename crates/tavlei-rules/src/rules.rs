//! The rule parameters of a variant, exactly as a variant file (`configs/variants/*.toml`) states
//! them. Every decision RULES.md leaves open is a named field here, so a user can flip it.

use serde::{Deserialize, Serialize};

use super::piece::Side;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Short identifier, e.g. `copenhagen`.
    pub name: String,
    /// Human title, e.g. "Copenhagen Hnefatafl 11×11".
    pub title: String,
    /// Where the rules come from (seed document and section, or a public reference).
    pub source: String,
    pub board: BoardRules,
    pub movement: MovementRules,
    pub capture: CaptureRules,
    pub king: KingRules,
    pub end: EndRules,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardRules {
    /// Start position, top rank first, squares separated by spaces: `A` attacker, `D` defender,
    /// `K` king, `C` commander, `N` knight, `#` empty corner square, `.` empty.
    pub layout: Vec<String>,
    /// Corner squares (refuges): 0 none, 1 the four corner squares, 2 the four 2×2 blocks.
    pub corners: u8,
    /// Whether the centre square is a throne.
    pub throne: bool,
    /// Camps (Tablut): each a list of squares such as `["d1", "e1", "f1", "e2"]`.
    #[serde(default)]
    pub camps: Vec<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementRules {
    pub first: Side,
    /// Who may pass over the empty throne: nobody, all pieces, or the king only.
    pub throne_pass: ThronePass,
    /// Whether the king may stop on the throne again after leaving it.
    pub king_reenters_throne: bool,
    /// Longest move of the king, in squares (0 = unlimited).
    #[serde(default)]
    pub king_max: u8,
    /// Longest move of every other piece (0 = unlimited).
    #[serde(default)]
    pub taflman_max: u8,
    /// The king, knights and commanders may jump an adjacent enemy to the empty square behind.
    #[serde(default)]
    pub jumps: bool,
    /// After a capture, the same piece may move again while it can capture (Berserk).
    #[serde(default)]
    pub berserk_chains: bool,
    /// A die rolled before every move: off, distance (caps the move), parity (even: move, odd: pass).
    #[serde(default)]
    pub dice: Dice,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureRules {
    /// Whether the throne is hostile to attackers (an anvil against them).
    pub throne_hostile_to_attackers: Hostility,
    /// Whether the throne is hostile to defenders.
    pub throne_hostile_to_defenders: Hostility,
    /// Corner squares are hostile to every taflman.
    pub corners_hostile: bool,
    /// Shieldwall: a row of enemy taflmen on an edge, bracketed at both ends (a corner may close
    /// one end) and each pressed from inside, is captured by the move that closes the bracket.
    #[serde(default)]
    pub shieldwall: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KingRules {
    /// Whether the king takes part in captures: yes, no, as anvil only, as hammer only.
    pub armed: Armed,
    /// How the king is captured.
    pub capture: KingCapture,
    /// The empty throne counts as an attacker when capturing the king.
    pub hostile_throne: bool,
    /// Corner squares count as attackers when capturing the king.
    pub hostile_corners: bool,
    /// The board edge counts as an attacker when capturing the king (`enclosed` mode).
    #[serde(default)]
    pub hostile_edge: bool,
    /// Empty camp squares count as attackers when capturing the king.
    #[serde(default)]
    pub hostile_camps: bool,
    /// The king and one adjacent defender are captured together when both are enclosed.
    #[serde(default)]
    pub pair_capture: bool,
    /// Away from the throne and its neighbours, a commander captures the king against another
    /// commander or a corner (Berserk).
    #[serde(default)]
    pub commanders_capture: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndRules {
    /// Where the king escapes: a corner square, or any edge square.
    pub escape: Escape,
    /// Defenders win when the king sits on an edge in a fort the attackers can never break.
    #[serde(default)]
    pub edge_fort: bool,
    /// Attackers win when no defender can reach the edge any more.
    #[serde(default)]
    pub encirclement: bool,
    /// The side to move with no legal move loses, or the game is drawn.
    pub no_moves: NoMoves,
    /// What a repeated position does.
    pub repetition: Repetition,
    /// How many occurrences of a position trigger the repetition rule.
    pub repetition_count: u8,
    /// Draw after this many plies (0 = no cap; self-play needs one).
    pub max_plies: u32,
    /// Draw after this many plies without a capture (0 = no cap).
    #[serde(default)]
    pub max_plies_without_capture: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThronePass {
    Nobody,
    All,
    King,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hostility {
    Never,
    WhenEmpty,
    Always,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Armed {
    Yes,
    No,
    Anvil,
    Hammer,
}

impl Armed {
    pub fn hammer(self) -> bool {
        matches!(self, Armed::Yes | Armed::Hammer)
    }
    pub fn anvil(self) -> bool {
        matches!(self, Armed::Yes | Armed::Anvil)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KingCapture {
    /// Like a taflman: between the moving attacker and an attacker or king-hostile square.
    Custodial,
    /// Four attackers on the throne, the three other sides next to it, two elsewhere.
    ThroneSensitive,
    /// Every side an attacker or a king-hostile square (throne, corner, camp, edge as set).
    Enclosed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Escape {
    Corners,
    Edge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoMoves {
    Loss,
    Draw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repetition {
    Ignore,
    Draw,
    DefendersLose,
    /// The move that would make the position occur `repetition_count` times is illegal,
    /// unless no other move is legal.
    Illegal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dice {
    #[default]
    Off,
    Distance,
    Parity,
}
