//! A board as a picture (SVG or PNG): the squares with throne, corners and camps, the pieces, the
//! last move (its squares shaded and joined), the pieces it captured (crossed out where they
//! stood) and the coordinates on all four sides, as OpenTafl notation names them (a1 bottom left).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::{Picture, FONT};
use crate::rules::piece::{Piece, PieceKind, Side};
use crate::rules::square::square_name;
use crate::rules::variant::{CAMP, CORNER, THRONE};
use crate::rules::{Move, Position, Square};

const MARGIN: i32 = 28;
const CAPTION: i32 = 30;
const BOARD: RGBColor = RGBColor(0xe8, 0xd3, 0xa2);
const GRID: RGBColor = RGBColor(0x9c, 0x7b, 0x4f);
const THRONE_FILL: RGBColor = RGBColor(0xb5, 0x83, 0x5a);
const CORNER_FILL: RGBColor = RGBColor(0x8b, 0x5a, 0x2b);
const CAMP_FILL: RGBColor = RGBColor(0xcd, 0xb3, 0x7a);
const DARK: RGBColor = RGBColor(0x1d, 0x1d, 0x1d);
const LIGHT: RGBColor = RGBColor(0xf7, 0xf7, 0xf2);
const GOLD: RGBColor = RGBColor(0xb8, 0x86, 0x0b);
const MOVE: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
const MOVE_FILL: RGBColor = RGBColor(0x90, 0xcd, 0xf4);
const CAPTURE: RGBColor = RGBColor(0xd6, 0x27, 0x28);

/// A position drawn with the move that led to it.
#[derive(Clone, Debug)]
pub struct BoardPicture {
    size: usize,
    cells: Vec<u8>,
    flags: Vec<u8>,
    last_move: Option<(Square, Square)>,
    captures: Vec<Square>,
    caption: String,
}

impl BoardPicture {
    /// The position, captioned with its variant and the side to move.
    pub fn new(pos: &Position) -> BoardPicture {
        let v = pos.variant();
        BoardPicture {
            size: v.size,
            cells: pos.cells().to_vec(),
            flags: v.flags.clone(),
            last_move: None,
            captures: Vec::new(),
            caption: format!("{} — {} to move", v.rules.title, pos.side_to_move().name()),
        }
    }

    /// Marks the move that led here and the squares it captured on.
    pub fn with_move(mut self, mv: Move, captures: &[Square]) -> BoardPicture {
        self.last_move = Some((mv.from(), mv.to()));
        self.captures = captures.to_vec();
        self
    }

    pub fn with_caption(mut self, caption: String) -> BoardPicture {
        self.caption = caption;
        self
    }

    /// Pixels per square: boards of every size come out about the same size.
    fn cell(&self) -> i32 {
        (520 / self.size as i32).clamp(28, 64)
    }

    /// The top-left pixel of a square (rank 1 at the bottom).
    fn corner(&self, sq: Square) -> (i32, i32) {
        let (file, rank) = (sq as usize % self.size, sq as usize / self.size);
        let cell = self.cell();
        (
            MARGIN + file as i32 * cell,
            CAPTION + MARGIN + (self.size - 1 - rank) as i32 * cell,
        )
    }

    fn centre(&self, sq: Square) -> (i32, i32) {
        let (x, y) = self.corner(sq);
        (x + self.cell() / 2, y + self.cell() / 2)
    }

    fn squares<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let cell = self.cell();
        for sq in 0..self.cells.len() as Square {
            let (x, y) = self.corner(sq);
            let flags = self.flags[sq as usize];
            let fill = if flags & CORNER != 0 {
                CORNER_FILL
            } else if flags & THRONE != 0 {
                THRONE_FILL
            } else if flags & CAMP != 0 {
                CAMP_FILL
            } else {
                BOARD
            };
            let moved = self
                .last_move
                .is_some_and(|(from, to)| sq == from || sq == to);
            let fill = if moved { MOVE_FILL } else { fill };
            area.draw(&Rectangle::new(
                [(x, y), (x + cell, y + cell)],
                fill.filled(),
            ))
            .and_then(|_| {
                area.draw(&Rectangle::new(
                    [(x, y), (x + cell, y + cell)],
                    GRID.stroke_width(1),
                ))
            })
            .map_err(|e| e.to_string())?;
        }
        if let Some((from, to)) = self.last_move {
            area.draw(&PathElement::new(
                vec![self.centre(from), self.centre(to)],
                MOVE.stroke_width(3),
            ))
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn pieces<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let radius = self.cell() * 2 / 5;
        let letter =
            TextStyle::from((FONT, self.cell() / 2)).pos(Pos::new(HPos::Center, VPos::Center));
        for (sq, &code) in self.cells.iter().enumerate() {
            let Some(piece) = Piece::from_code(code) else {
                continue;
            };
            let centre = self.centre(sq as Square);
            let (fill, ink) = match piece.side {
                Side::Attackers => (DARK, LIGHT),
                Side::Defenders => (LIGHT, DARK),
            };
            area.draw(&Circle::new(centre, radius, fill.filled()))
                .and_then(|_| area.draw(&Circle::new(centre, radius, DARK.stroke_width(1))))
                .map_err(|e| e.to_string())?;
            match piece.kind {
                PieceKind::Taflman => {}
                PieceKind::King => {
                    let arm = radius / 2;
                    let (x, y) = centre;
                    area.draw(&Circle::new(centre, radius - 2, GOLD.stroke_width(3)))
                        .and_then(|_| {
                            area.draw(&PathElement::new(
                                vec![(x - arm, y), (x + arm, y)],
                                GOLD.stroke_width(3),
                            ))
                        })
                        .and_then(|_| {
                            area.draw(&PathElement::new(
                                vec![(x, y - arm), (x, y + arm)],
                                GOLD.stroke_width(3),
                            ))
                        })
                        .map_err(|e| e.to_string())?;
                }
                PieceKind::Commander | PieceKind::Knight => {
                    let mark = if piece.kind == PieceKind::Commander {
                        "C"
                    } else {
                        "N"
                    };
                    area.draw(&Text::new(mark, centre, letter.color(&ink)))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }

    fn captures<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let arm = self.cell() / 3;
        for &sq in &self.captures {
            let (x, y) = self.centre(sq);
            for line in [
                [(x - arm, y - arm), (x + arm, y + arm)],
                [(x - arm, y + arm), (x + arm, y - arm)],
            ] {
                area.draw(&PathElement::new(line.to_vec(), CAPTURE.stroke_width(4)))
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn coordinates<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let style = TextStyle::from((FONT, 13)).pos(Pos::new(HPos::Center, VPos::Center));
        let cell = self.cell();
        let n = self.size as i32;
        let (top, bottom) = (
            CAPTION + MARGIN / 2,
            CAPTION + MARGIN + n * cell + MARGIN / 2,
        );
        let (left, right) = (MARGIN / 2, MARGIN + n * cell + MARGIN / 2);
        for i in 0..self.size {
            // the square names of the bottom rank and the left file give the labels
            let file = square_name(i as Square, self.size);
            let file = file
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .to_string();
            let rank = (i + 1).to_string();
            let x = MARGIN + i as i32 * cell + cell / 2;
            let y = CAPTION + MARGIN + (n - 1 - i as i32) * cell + cell / 2;
            for (text, at) in [
                (&file, (x, top)),
                (&file, (x, bottom)),
                (&rank, (left, y)),
                (&rank, (right, y)),
            ] {
                area.draw(&Text::new(text.clone(), at, style.clone()))
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
}

impl Picture for BoardPicture {
    fn size(&self) -> (u32, u32) {
        let side = (2 * MARGIN + self.size as i32 * self.cell()) as u32;
        (side, side + CAPTION as u32)
    }

    fn title(&self) -> String {
        self.caption.clone()
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(|e| e.to_string())?;
        let (width, _) = self.size();
        area.draw(&Text::new(
            self.caption.clone(),
            (width as i32 / 2, CAPTION / 2 + 4),
            TextStyle::from((FONT, 15)).pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(|e| e.to_string())?;
        self.squares(area)?;
        self.pieces(area)?;
        self.captures(area)?;
        self.coordinates(area)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn squares_are_placed_with_rank_one_at_the_bottom() {
        let pos = Position::start(&Variant::load("brandubh").expect("preset"));
        let picture = BoardPicture::new(&pos);
        let cell = picture.cell();
        let (a1, a7) = (picture.corner(0), picture.corner(42));
        assert_eq!(a1.0, a7.0, "same file");
        assert_eq!(a1.1 - a7.1, 6 * cell, "a1 six squares below a7");
        let (width, height) = picture.size();
        assert_eq!(height - width, CAPTION as u32);
    }

    #[test]
    fn the_picture_shows_pieces_move_and_captures() {
        let v = Variant::load("brandubh").expect("preset");
        let mut pos = Position::start(&v);
        let plain = BoardPicture::new(&pos).svg().expect("svg");
        // three pieces of each kind show as circles; the king's cross as lines
        let circles = plain.matches("<circle").count();
        assert!(circles >= 2 * 13, "{circles} circles for 13 pieces");
        let mv = pos.parse_move("d6-c6").expect("legal").mv;
        pos.play_unchecked(mv);
        let moved = BoardPicture::new(&pos)
            .with_move(mv, &[24])
            .svg()
            .expect("svg");
        assert_ne!(plain, moved);
        assert!(
            moved.contains("#D62728") || moved.contains("#d62728"),
            "the capture cross"
        );
        let compact: String = moved.split_whitespace().collect();
        for label in ["a", "g", "1", "7"] {
            assert!(
                compact.contains(&format!(">{label}<")),
                "coordinate {label}"
            );
        }
    }
}
