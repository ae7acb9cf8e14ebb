//! Balance studies to browse: every directory under the given roots that holds a study's output
//! (`balance.json` beside `games/`), its table, its plots, and any game of any cell replayed
//! position by position. Only the directories found are served, so a request cannot name a path
//! outside them.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::view::{BoardView, MoveView};
use crate::eval::balance::store_path;
use crate::interop::otg::{read_games, variant_of_rules};
use crate::report::viewer::{board_cells, frame_moves, game_frames, game_title, result_text};
use crate::rules::presets::preset_text;
use crate::rules::{Position, Square, Variant};

/// How deep below a root a study is looked for.
const DEPTH: usize = 4;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StudyEntry {
    /// The directory as found (root-relative paths keep the roots' spelling).
    pub dir: String,
    pub cells: usize,
    /// The plots (SVG, PNG) beside the table.
    pub plots: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StudyGame {
    pub board: BoardView,
    pub title: String,
    pub result: String,
    pub moves: Vec<String>,
    pub plies: Vec<FrameView>,
    /// Games in the cell.
    pub games: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FrameView {
    pub cells: String,
    pub mv: Option<MoveView>,
    pub captured: Vec<Square>,
}

pub struct Studies {
    found: Vec<(StudyEntry, PathBuf)>,
}

fn is_study(dir: &Path) -> bool {
    dir.join("balance.json").is_file() && dir.join("games").is_dir()
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if is_study(dir) {
        out.push(dir.to_path_buf());
    }
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        walk(&d, depth - 1, out);
    }
}

impl Studies {
    /// Every study under `roots`.
    pub fn find(roots: &[PathBuf]) -> Studies {
        let mut dirs = Vec::new();
        for root in roots {
            walk(root, DEPTH, &mut dirs);
        }
        let found = dirs
            .into_iter()
            .map(|dir| {
                let cells = cells(&dir).map_or(0, |c| c.len());
                let mut plots: Vec<String> = std::fs::read_dir(&dir)
                    .into_iter()
                    .flatten()
                    .filter_map(Result::ok)
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| n.ends_with(".svg") || n.ends_with(".png"))
                    .collect();
                plots.sort();
                // a PNG beside its SVG is the same picture
                let svgs: Vec<String> = plots
                    .iter()
                    .filter(|p| p.ends_with(".svg"))
                    .cloned()
                    .collect();
                plots.retain(|p| {
                    !(p.ends_with(".png") && svgs.contains(&p.replace(".png", ".svg")))
                });
                let entry = StudyEntry {
                    dir: dir.display().to_string(),
                    cells,
                    plots,
                };
                (entry, dir)
            })
            .collect();
        Studies { found }
    }

    pub fn list(&self) -> Vec<StudyEntry> {
        self.found.iter().map(|(e, _)| e.clone()).collect()
    }

    fn dir(&self, name: &str) -> Result<&Path, String> {
        self.found
            .iter()
            .find(|(e, _)| e.dir == name)
            .map(|(_, p)| p.as_path())
            .ok_or_else(|| format!("no study `{name}` (GET /api/studies lists them)"))
    }

    /// The study's cells as its `balance.json` has them.
    pub fn table(&self, name: &str) -> Result<Vec<serde_json::Value>, String> {
        cells(self.dir(name)?)
    }

    /// A plot beside the table: its bytes and content type.
    pub fn plot(&self, name: &str, file: &str) -> Result<(Vec<u8>, &'static str), String> {
        let (entry, dir) = self
            .found
            .iter()
            .find(|(e, _)| e.dir == name)
            .ok_or_else(|| format!("no study `{name}`"))?;
        if !entry.plots.iter().any(|p| p == file) {
            return Err(format!("`{file}` is not a plot of {name}"));
        }
        let kind = if file.ends_with(".svg") {
            "image/svg+xml"
        } else {
            "image/png"
        };
        std::fs::read(dir.join(file))
            .map(|bytes| (bytes, kind))
            .map_err(|e| format!("{file}: {e}"))
    }

    /// Game `index` of the cell (`variant`, `agent`), position by position. Only a cell the
    /// study's table lists is read, and its variant is a preset or the one its records carry
    /// (their OpenTafl rules tag): a request never names a file.
    pub fn game(
        &self,
        name: &str,
        variant: &str,
        agent: &str,
        index: usize,
    ) -> Result<StudyGame, String> {
        let dir = self.dir(name)?;
        let listed = cells(dir)?
            .iter()
            .any(|c| c["variant"] == variant && c["agent"] == agent);
        if !listed {
            return Err(format!(
                "the study {name} has no cell {variant} / {agent} (its table lists its cells)"
            ));
        }
        // the records beside the store (a study's committed games are these)
        let file = store_path(&dir.join("games"), variant, agent).with_extension("txt");
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let games = read_games(&text, false).map_err(|e| format!("{}: {e}", file.display()))?;
        let game = games.get(index).ok_or_else(|| {
            format!(
                "the cell {variant} / {agent} has {} games (0 to {})",
                games.len(),
                games.len().saturating_sub(1)
            )
        })?;
        let v = match (preset_text(variant), game.tag("rules")) {
            (Some(_), _) => Variant::load(variant),
            (None, Some(rules)) => variant_of_rules(rules),
            (None, None) => {
                return Err(format!(
                    "{}: game {index} names no rules, and {variant} is not a preset",
                    file.display()
                ))
            }
        }
        .map_err(|e| format!("{}: game {index}: {e}", file.display()))?;
        let start = Position::start(&v);
        let (frames, illegal) = game_frames(&start, &game.moves);
        let size = v.size;
        let result = result_text(&frames, illegal.as_ref(), game);
        Ok(StudyGame {
            board: BoardView::of(&v),
            title: game_title(game, index),
            result,
            moves: frame_moves(&frames, size),
            plies: frames
                .iter()
                .map(|f| FrameView {
                    cells: board_cells(&f.position),
                    mv: f.last.as_ref().map(|(mv, _)| MoveView::of(*mv, size)),
                    captured: f.last.as_ref().map_or(vec![], |(_, c)| c.clone()),
                })
                .collect(),
            games: games.len(),
        })
    }
}

fn cells(dir: &Path) -> Result<Vec<serde_json::Value>, String> {
    let path = dir.join("balance.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
