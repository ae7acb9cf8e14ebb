//! One-move tactics both searches use: whether a move wins at once (the tree search proves such
//! moves, alpha-beta orders them first and searches them in quiescence) and the king's open lines
//! to an escape square (rollouts block them; alpha-beta's quiescence searches the blocks and the
//! king's forks).
//!
//! Only the public `Position` API is used. Two kinds of move can win at once and both are cheap
//! to spot: the king reaching an escape square, and an attacker landing next to the king (which
//! may capture it; confirmed by playing it on a copy). Rarer endings (encirclement, edge forts,
//! no moves left) are left to the searches, which find them when they visit them.

use crate::rules::{Move, Position, Side, Square};

/// Whether squares `a` and `b` are orthogonal neighbours.
pub fn adjacent(pos: &Position, a: Square, b: Square) -> bool {
    (0..4).any(|d| pos.variant().neighbour(a, d) == Some(b))
}

/// Whether `mv` (legal in `pos`) ends the game at once in the mover's favour, for the two
/// endings a single move usually brings: an escape, or the capture of the king.
pub fn wins_at_once(pos: &Position, mv: Move) -> bool {
    let Some(king) = pos.king() else {
        return false;
    };
    if !mv.moves_a_piece() {
        return false;
    }
    match pos.side_to_move() {
        Side::Defenders => mv.from() == king && pos.variant().is_escape(mv.to()),
        Side::Attackers => {
            if !adjacent(pos, mv.to(), king) {
                return false;
            }
            let mut next = pos.clone();
            next.play_unchecked(mv);
            next.status()
                .is_some_and(|o| o.winner == Some(Side::Attackers))
        }
    }
}

/// Whether the line from `start` in direction `d` runs over empty squares (and `vacated`, the
/// square a moving king leaves) to an escape square; `on_line` sees each square walked.
fn line_to_escape(
    pos: &Position,
    start: Square,
    d: usize,
    vacated: Option<Square>,
    mut on_line: impl FnMut(Square),
) -> bool {
    let v = pos.variant();
    let mut sq = start;
    while let Some(n) = v.neighbour(sq, d) {
        if Some(n) != vacated && pos.piece_at(n).is_some() {
            return false;
        }
        on_line(n);
        if v.is_escape(n) {
            return true;
        }
        sq = n;
    }
    false
}

/// The squares on the king's open lines to an escape square (the escape square included): an
/// attacker landing on one of them closes that line. Returns how many lines are open. Move
/// limits of the king are ignored, so a threat may be overstated on variants that cap them.
pub fn escape_lines(pos: &Position, out: &mut Vec<Square>) -> usize {
    out.clear();
    let Some(king) = pos.king() else {
        return 0;
    };
    let mut lines = 0;
    for d in 0..4 {
        let start = out.len();
        if line_to_escape(pos, king, d, None, |sq| out.push(sq)) {
            lines += 1;
        } else {
            out.truncate(start);
        }
    }
    lines
}

/// How many free lines to an escape square the king would have on `to` after moving there from
/// `from` (which then counts as empty): two or more is a fork, since one move blocks one line.
/// Like `escape_lines`, it ignores move limits of the king.
pub fn open_lines_from(pos: &Position, from: Square, to: Square) -> usize {
    (0..4)
        .filter(|&d| line_to_escape(pos, to, d, Some(from), |_| {}))
        .count()
}
