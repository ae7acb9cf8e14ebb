//! Random games of every preset, played by the engine and by the independent reference side by
//! side and compared at every ply: the legal move sets, the captured squares, the board, the
//! side to move, the berserk piece and the outcome. The first divergence fails the test with
//! the variant, the game's seed, the ply, the move and the position in OTN.
//!
//! The random mover is biased so that games last and capture: it often prefers a capturing
//! move, rarely lets the king escape at once, and now and then shuffles pieces back and forth
//! to reach the repetition rules. Rules that random games almost never reach (shieldwall, edge
//! fort, encirclement, the king's pair, commanders) are compared from prepared positions.

mod reference;

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::RefBoard;
use tavlei_rules::notation::position_to_otn;
use tavlei_rules::presets::{preset_text, PRESET_NAMES};
use tavlei_rules::{Move, MoveKind, Piece, PieceKind, Position, Reason, Side, Variant};

/// Games per preset by board side, and the longest game: the variant's own cap, at most 400
/// plies. Sized so that every preset sees hundreds of captures while the whole file runs in
/// seconds in the test profile (opt-level 1).
fn budget(v: &Variant) -> (u64, u32) {
    let games = match v.size {
        7 => 60,
        9 => 40,
        11 => 20,
        13 => 12,
        _ => 6,
    };
    let cap = v.rules.end.max_plies;
    (games, if cap == 0 { 400 } else { cap.min(400) })
}

#[derive(Default, Debug)]
struct Tally {
    plies: u64,
    captures: u64,
    /// Moves after which the same piece went on capturing (berserk chains).
    chains: u64,
    /// Pieces taken that were not next to the moved piece: shieldwalls and the king's pair.
    far: u64,
    ends: BTreeMap<&'static str, u32>,
}

/// The move that undoes `mv` (for shuffling back and forth).
fn reverse(mv: Move) -> Move {
    match mv.kind() {
        MoveKind::Jump => Move::jump(mv.to(), mv.from()),
        _ => Move::slide(mv.to(), mv.from()),
    }
}

struct Mover {
    rng: ChaCha8Rng,
    /// Each side's last piece move.
    last: [Option<Move>; 2],
    /// Plies left in a back-and-forth spell.
    shuffle: u32,
    /// The chance per ply that a spell begins.
    spells: f64,
}

impl Mover {
    fn choose(&mut self, board: &RefBoard, moves: &[Move]) -> Move {
        let me = (board.side == Side::Defenders) as usize;
        if self.shuffle > 0 {
            self.shuffle -= 1;
            if let Some(back) = self.last[me].map(reverse) {
                if moves.contains(&back) {
                    return back;
                }
            }
        } else if self.rng.random_bool(self.spells) {
            // long enough to repeat a position twice or thrice, so some games end there
            self.shuffle = self.rng.random_range(2..14);
        }
        let escapes = |mv: &Move| {
            mv.moves_a_piece()
                && board
                    .piece_at(mv.from())
                    .is_some_and(|p| p.kind == PieceKind::King)
                && board.geo.is_escape(board.geo.coord(mv.to()))
        };
        // most random games end with an early escape; keep most of them going
        let mut pool: Vec<Move> = moves.to_vec();
        if self.rng.random_bool(0.8) && pool.iter().any(|m| !escapes(m)) {
            pool.retain(|m| !escapes(m));
        }
        if self.rng.random_bool(0.6) {
            let capturing: Vec<Move> = pool
                .iter()
                .copied()
                .filter(|&m| !board.captures_of(m).is_empty())
                .collect();
            if !capturing.is_empty() {
                pool = capturing;
            }
        }
        pool[self.rng.random_range(0..pool.len())]
    }
}

fn names(moves: &[Move], size: usize) -> Vec<String> {
    moves.iter().map(|m| m.name(size)).collect()
}

fn square_names(squares: &[u16], size: usize) -> Vec<String> {
    let mut names: Vec<String> = squares
        .iter()
        .map(|&sq| tavlei_rules::square::square_name(sq, size))
        .collect();
    names.sort();
    names
}

/// The start position's pieces on random plain squares (no throne, corner or camp; the king
/// not where he would have escaped already).
fn scattered(v: &Arc<Variant>, rng: &mut ChaCha8Rng) -> Position {
    let start = RefBoard::from_position(&Position::start(v));
    let geo = &start.geo;
    let mut cells = vec![0u8; v.squares];
    for c in geo.all() {
        let Some(piece) = start.grid.at(c) else {
            continue;
        };
        loop {
            let spot = (rng.random_range(0..v.size), rng.random_range(0..v.size));
            let plain = !geo.is_throne(spot) && !geo.is_corner(spot) && geo.camp(spot).is_none();
            let escaped = piece.kind == PieceKind::King && geo.is_escape(spot);
            let sq = geo.index(spot) as usize;
            if plain && !escaped && cells[sq] == 0 {
                cells[sq] = piece.code();
                break;
            }
        }
    }
    Position::from_cells(v, &cells, v.rules.movement.first).expect("a scattered position")
}

/// Plays one game from `start`, or else from the variant's start or a scattered position,
/// beginning with `first` when given; panics at the first divergence.
fn play_game(
    v: &Arc<Variant>,
    start: Option<&Position>,
    first: Option<Move>,
    seed: u64,
    max_plies: u32,
    tally: &mut Tally,
) {
    let size = v.size;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // half the games start from the start position's pieces scattered at random: pieces on the
    // edges and kings in the open from the first move
    let mut pos = match start {
        Some(pos) => pos.clone(),
        None if seed % 2 == 1 => scattered(v, &mut rng),
        None => Position::start(v),
    };
    let mut board = RefBoard::from_position(&pos);
    let mut mover = Mover {
        rng,
        last: [None, None],
        shuffle: 0,
        // a third of the games shuffle now and then, to reach the repetition rules
        spells: if seed.is_multiple_of(3) { 0.01 } else { 0.0 },
    };
    for ply in 0..=max_plies {
        let fail = |pos: &Position, what: String| -> ! {
            panic!(
                "{} seed {seed} ply {ply}, {} {} to move (roll {}, engine status {:?}): {what}",
                v.name(),
                position_to_otn(pos),
                pos.side_to_move().name(),
                pos.roll(),
                pos.status(),
            )
        };
        if board.needs_roll() != pos.needs_roll() {
            fail(
                &pos,
                format!("reference needs a roll: {}", board.needs_roll()),
            );
        }
        if board.needs_roll() {
            let roll = mover.rng.random_range(1..=6);
            pos.set_roll(roll);
            board.roll = roll;
        }
        let ours = board.legal_moves();
        let mut theirs = Vec::new();
        pos.legal_moves(&mut theirs);
        theirs.sort_by_key(|m| m.bits());
        if ours != theirs {
            let only = |a: &[Move], b: &[Move]| {
                let diff: Vec<Move> = a.iter().copied().filter(|m| !b.contains(m)).collect();
                names(&diff, size)
            };
            fail(
                &pos,
                format!(
                    "move lists differ: engine only {:?}, reference only {:?}",
                    only(&theirs, &ours),
                    only(&ours, &theirs)
                ),
            );
        }
        let (engine_end, reference_end) = (pos.outcome(), board.outcome(&ours));
        if engine_end != reference_end {
            fail(
                &pos,
                format!("outcome: engine {engine_end:?}, reference {reference_end:?}"),
            );
        }
        if let Some(end) = engine_end {
            *tally.ends.entry(end.reason.name()).or_default() += 1;
            return;
        }
        if ply == max_plies {
            *tally.ends.entry("unfinished").or_default() += 1;
            return;
        }
        let mv = match first {
            Some(mv) if ply == 0 => mv,
            _ => mover.choose(&board, &ours),
        };
        let before = pos.clone();
        let mut engine_took: Vec<u16> = Vec::new();
        pos.play_with(mv, &mut engine_took);
        let reference_took = board.play(mv);
        let fail_after = |what: String| -> ! {
            fail(&before, format!("after {}: {what}", mv.name(size)));
        };
        let (a, b) = (
            square_names(&engine_took, size),
            square_names(&reference_took, size),
        );
        if a != b {
            fail_after(format!("captures: engine {a:?}, reference {b:?}"));
        }
        let differ: Vec<String> = (0..v.squares as u16)
            .filter(|&sq| pos.piece_at(sq) != board.piece_at(sq))
            .map(|sq| tavlei_rules::square::square_name(sq, size))
            .collect();
        if !differ.is_empty() {
            fail_after(format!("the boards differ on {differ:?}"));
        }
        if pos.side_to_move() != board.side {
            fail_after(format!(
                "side to move: engine {:?}, reference {:?}",
                pos.side_to_move(),
                board.side
            ));
        }
        let engine_berserk = pos.berserk_piece().map(|sq| board.geo.coord(sq));
        if engine_berserk != board.berserk {
            fail_after(format!(
                "berserk piece: engine {engine_berserk:?}, reference {:?}",
                board.berserk
            ));
        }
        tally.plies += 1;
        tally.captures += b.len() as u64;
        tally.chains += board.berserk.is_some() as u64;
        if mv.moves_a_piece() {
            let (f, r) = board.geo.coord(mv.to());
            tally.far += reference_took
                .iter()
                .map(|&sq| board.geo.coord(sq))
                .filter(|&(x, y)| x.abs_diff(f) + y.abs_diff(r) > 1)
                .count() as u64;
        }
        if mv.moves_a_piece() {
            let side = before.side_to_move();
            mover.last[(side == Side::Defenders) as usize] = Some(mv);
        }
    }
}

fn check(v: &Arc<Variant>) {
    let (games, max_plies) = budget(v);
    let mut tally = Tally::default();
    // a fixed seed per variant and game, so a failure names a game that can be replayed
    let base = v
        .name()
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31) ^ b as u64)
        << 16;
    for game in 0..games {
        play_game(v, None, None, base + game, max_plies, &mut tally);
    }
    eprintln!("{}: {games} games, {tally:?}", v.name());
    assert!(tally.captures > 0, "{}: no capture in any game", v.name());
}

fn preset(name: &str) {
    check(&Variant::load(name).expect("preset"));
}

macro_rules! presets {
    ($($name:ident),* $(,)?) => {
        /// One test per preset, so that they run in parallel and fail one by one.
        mod games {
            $(
                #[test]
                fn $name() {
                    super::preset(stringify!($name));
                }
            )*
        }
        const TESTED: &[&str] = &[$(stringify!($name)),*];
    };
}

presets!(
    tavlei,
    hnefatafl,
    copenhagen,
    fetlar,
    skalk,
    skalk_9,
    sea_tafl,
    sea_tafl_king4,
    sea_tafl_11,
    berserk,
    tablut,
    saami_tablut,
    saami_tablut_11,
    tawlbwrdd,
    brown,
    old_tablut,
    reconstruction,
    reconstruction_13,
    reconstruction_dice,
    brandubh,
    alea_evangelii,
);

#[test]
fn every_preset_is_played() {
    for name in PRESET_NAMES {
        assert!(TESTED.contains(name), "{name} has no random-games test");
    }
}

/// No preset rolls the parity die; this one does (odd roll: pass), on the 11×11 reconstruction.
#[test]
fn parity_dice() {
    let text = preset_text("reconstruction_dice")
        .expect("preset")
        .replace("dice = \"distance\"", "dice = \"parity\"")
        .replace(
            "name = \"reconstruction_dice\"",
            "name = \"reconstruction_parity\"",
        );
    check(&Variant::from_toml(&text, "parity dice").expect("variant"));
}

/// A position from an ASCII board, top rank first: `A` attacker, `D` defender, `K` king,
/// `C` commander, `N` knight, anything else empty; rank numbers and spaces are skipped.
fn setup(v: &Arc<Variant>, rows: &str, side: Side) -> Position {
    let rows: Vec<Vec<char>> = rows
        .lines()
        .map(|l| {
            let l = l.trim().trim_start_matches(|c: char| c.is_ascii_digit());
            l.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<Vec<char>>()
        })
        .filter(|r| r.len() == v.size)
        .collect();
    assert_eq!(rows.len(), v.size, "the board needs {} rows", v.size);
    let mut cells = vec![0u8; v.squares];
    for (i, row) in rows.iter().enumerate() {
        for (file, &c) in row.iter().enumerate() {
            if let Some(piece) = Piece::from_layout_char(c) {
                cells[(v.size - 1 - i) * v.size + file] = piece.code();
            }
        }
    }
    Position::from_cells(v, &cells, side).expect("a fixture position")
}

/// Every legal move of a prepared position, then seeded random games from it: these rules
/// (shieldwall, edge fort, encirclement, the king's pair, commanders, the king beside the
/// throne) almost never come up in random games from the start.
fn fixture(name: &str, rows: &str, side: Side, expect: &[Reason]) {
    let v = Variant::load(name).expect("preset");
    let pos = setup(&v, rows, side);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut tally = Tally::default();
    for (i, &mv) in moves.iter().enumerate() {
        play_game(&v, Some(&pos), Some(mv), i as u64, 1, &mut tally);
    }
    for seed in 0..10 {
        play_game(&v, Some(&pos), None, 1000 + seed, 120, &mut tally);
    }
    eprintln!("{name} fixture: {tally:?}");
    for reason in expect {
        assert!(
            tally.ends.contains_key(reason.name()),
            "{name}: no game ended by {}",
            reason.name()
        );
    }
}

#[test]
fn copenhagen_shieldwalls() {
    let wall = "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . . . . . . . . .
         8 . . . . . . . . . . .
         7 . . . . . . . K . . .
         6 . . . . . . . . . . .
         5 . . . . A . A . . . .
         4 . . . . . . . . . . .
         3 . . . . . . . . . . .
         2 . A A A A A . . . . .
         1 # D D D D D . . . . #";
    // g5-g1 closes b1..f1 against the corner; e5 cannot reach the edge
    fixture("copenhagen", wall, Side::Attackers, &[]);
    let v = Variant::load("copenhagen").expect("preset");
    let mut pos = setup(&v, wall, Side::Attackers);
    let mut took = Vec::new();
    pos.play_with(Move::slide(4 * 11 + 6, 6), &mut took);
    assert_eq!(took.len(), 5, "g5-g1 takes the wall b1..f1");
}

#[test]
fn copenhagen_edge_fort() {
    // g5-g2 closes a fort around the king on e1
    let fort = "
        11 # . . . . . . . . . #
        10 . . . A . . . A . . .
         9 . . . . . . . . . . .
         8 . A . . . . . . . A .
         7 . . . . . . . . . . .
         6 . . . . . . . . . . .
         5 . . . . . . D . . . .
         4 . . . . . . . . . . .
         3 . . . . D D . . . . .
         2 . . . D . . . . . . .
         1 # . . D K . D . . . #";
    fixture("copenhagen", fort, Side::Defenders, &[Reason::EdgeFort]);
}

const RING: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . A . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . A A . . . . .
     6 . . . A D K D A . . .
     5 . . . . A A A . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #";

#[test]
fn encirclement() {
    // g10-g7 closes the ring (and takes g6)
    fixture("copenhagen", RING, Side::Attackers, &[Reason::Encirclement]);
    fixture("brown", RING, Side::Attackers, &[Reason::Encirclement]);
    fixture(
        "old_tablut",
        &nine(RING),
        Side::Attackers,
        &[Reason::Encirclement],
    );
}

/// The 11×11 ring cut down to 9×9 (files b..j, ranks 2..10), centred on the 9×9 throne.
fn nine(rows: &str) -> String {
    let lines: Vec<&str> = rows.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[1..10]
        .iter()
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().skip(1).collect();
            cells[1..10].join(" ") + "\n"
        })
        .collect()
}

#[test]
fn reconstruction_pair_capture() {
    // e4-b4 shuts in the king on a5 and the defender on a4 against the edge
    let pair = "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . . . . . . . . .
         8 . . . . . . . . . . .
         7 . . . . . . . . . . .
         6 A . . . . . . . . . .
         5 K A . . . . . . . . .
         4 D . . . A . . . . . .
         3 A . . . . . . D . . .
         2 . . . . . . . . . . .
         1 # . . . . . . . . . #";
    fixture(
        "reconstruction",
        pair,
        Side::Attackers,
        &[Reason::KingCaptured],
    );
}

#[test]
fn berserk_commanders_and_knight() {
    // h7-d7 takes the king between two commanders; the knight may jump and take
    let board = "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . C . . . . . . .
         8 . . . K . . . . . . .
         7 . . . . . . . C . . .
         6 . . . . . . . . . . .
         5 . . . . . . . . . . .
         4 . . . . A N A A . . .
         3 . . . . . . . . . . .
         2 . . . . . . . . . . .
         1 # . . . . . . . . . #";
    fixture("berserk", board, Side::Attackers, &[Reason::KingCaptured]);
}

#[test]
fn fetlar_king_beside_the_throne() {
    // f9-f8: three attackers round the king beside the empty throne (f6)
    let board = "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . . . A . . . . .
         8 . . . . . . . . . . .
         7 . . . . A K A . . . .
         6 . . . . . . . . . . .
         5 . . . . . . . . . . .
         4 . . . . . . . . . . .
         3 . . . . . . D . . . .
         2 . . . . . . . . . . .
         1 # . . . . . . . . . #";
    fixture("fetlar", board, Side::Attackers, &[]);
}
