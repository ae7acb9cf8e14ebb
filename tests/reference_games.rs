//! Random games of every preset, played by the engine and by the independent reference side by
//! side and compared at every ply: the legal move sets, the captured squares, the board, the
//! side to move, the berserk piece and the outcome. The first divergence fails the test with
//! the variant, the game's seed, the ply, the move and the position in OTN.
//!
//! The random mover is biased so that games last and capture: it often prefers a capturing
//! move, rarely lets the king escape at once, and now and then shuffles pieces back and forth
//! to reach the repetition rules.

mod reference;

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::RefBoard;
use tavlei::rules::notation::position_to_otn;
use tavlei::rules::presets::{preset_text, PRESET_NAMES};
use tavlei::rules::{Move, MoveKind, PieceKind, Position, Side, Variant};

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
    /// Pieces taken away from the moved piece's side squares: shieldwalls and the king's pair.
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
        .map(|&sq| tavlei::rules::square::square_name(sq, size))
        .collect();
    names.sort();
    names
}

/// Plays one game; panics at the first divergence.
fn play_game(v: &Arc<Variant>, seed: u64, max_plies: u32, tally: &mut Tally) {
    let size = v.size;
    let mut pos = Position::start(v);
    let mut board = RefBoard::from_position(&pos);
    let mut mover = Mover {
        rng: ChaCha8Rng::seed_from_u64(seed),
        last: [None, None],
        shuffle: 0,
        // a third of the games shuffle now and then, to reach the repetition rules
        spells: if seed % 3 == 0 { 0.01 } else { 0.0 },
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
        let mv = mover.choose(&board, &ours);
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
            .map(|sq| tavlei::rules::square::square_name(sq, size))
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
        play_game(v, base + game, max_plies, &mut tally);
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
        .replace("dice = \"distance\"", "dice = \"parity\"");
    check(&Variant::from_toml(&text, "parity dice").expect("variant"));
}
