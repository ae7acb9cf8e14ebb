//! Games to look at: the positions of a recorded game ply by ply (what `tavlei render` draws),
//! and one self-contained HTML page that steps through any number of games (`tavlei viewer`):
//! buttons and arrow keys, a move list, the result. The page draws the board itself (inline SVG
//! from a few lines of script), so it needs no network and no other file.

use serde::Serialize;

use crate::rules::notation::move_with_captures;
use crate::rules::replay::{steps, Illegal, RecordedGame};
use crate::rules::{Move, Position, Square, Variant};

/// One character per square, a1 first: OpenTafl's letters (attackers lower case), `.` empty.
pub fn board_cells(pos: &Position) -> String {
    pos.cells()
        .iter()
        .map(|&c| crate::rules::Piece::from_code(c).map_or('.', |p| p.otn_char()))
        .collect()
}

/// A position of a game and the move that led to it (none at the start).
#[derive(Clone, Debug)]
pub struct Frame {
    pub position: Position,
    pub last: Option<(Move, Vec<Square>)>,
}

/// Every position of a recorded game from `start`, up to its end or its first illegal move
/// (returned beside them).
pub fn game_frames(start: &Position, moves: &str) -> (Vec<Frame>, Option<Illegal>) {
    let mut frames = vec![Frame {
        position: start.clone(),
        last: None,
    }];
    for step in steps(start, moves) {
        match step {
            Ok(step) => frames.push(Frame {
                position: step.position,
                last: Some((step.mv, step.captured)),
            }),
            Err(illegal) => return (frames, Some(illegal)),
        }
    }
    (frames, None)
}

/// A recorded game's result: the board's outcome (else its `result` tag, else unfinished), and
/// where it stopped when a move was illegal.
pub fn result_text(frames: &[Frame], illegal: Option<&Illegal>, game: &RecordedGame) -> String {
    let mut result = match frames.last().and_then(|f| f.position.outcome()) {
        Some(o) => format!("{} ({})", o.result_name(), o.reason.name()),
        None => game.tag("result").unwrap_or("unfinished").to_string(),
    };
    if let Some(illegal) = illegal {
        result += &format!(
            "; stopped at ply {}: {} is illegal ({})",
            illegal.ply, illegal.mv, illegal.reason
        );
    }
    result
}

/// The moves that led to each frame, as records write them (captures included).
pub fn frame_moves(frames: &[Frame], size: usize) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| f.last.as_ref())
        .map(|(mv, captures)| move_with_captures(*mv, captures, size))
        .collect()
}

/// A recorded game's title: its first comment, or its number.
pub fn game_title(game: &RecordedGame, index: usize) -> String {
    game.comments
        .first()
        .cloned()
        .unwrap_or_else(|| format!("game {index}"))
}

#[derive(Serialize)]
struct PageFrame {
    /// One character per square, a1 first: OTN piece letters, `.` empty.
    cells: String,
    from: Option<Square>,
    to: Option<Square>,
    captures: Vec<Square>,
}

#[derive(Serialize)]
struct PageGame {
    title: String,
    result: String,
    moves: Vec<String>,
    frames: Vec<PageFrame>,
}

#[derive(Serialize)]
struct PageData {
    variant: String,
    size: usize,
    /// Per square: 1 throne, 2 corner, 4 camp (as in the engine).
    flags: Vec<u8>,
    games: Vec<PageGame>,
}

/// The viewer page for these games of one variant, each from `start`.
pub fn viewer_html(variant: &Variant, start: &Position, games: &[RecordedGame]) -> String {
    let size = variant.size;
    let page_games = games
        .iter()
        .enumerate()
        .map(|(i, game)| {
            let (frames, illegal) = game_frames(start, &game.moves);
            let title = game_title(game, i);
            let result = result_text(&frames, illegal.as_ref(), game);
            PageGame {
                title,
                result,
                moves: frame_moves(&frames, size),
                frames: frames
                    .iter()
                    .map(|f| PageFrame {
                        cells: board_cells(&f.position),
                        from: f.last.as_ref().map(|(mv, _)| mv.from()),
                        to: f.last.as_ref().map(|(mv, _)| mv.to()),
                        captures: f.last.as_ref().map_or(vec![], |(_, c)| c.clone()),
                    })
                    .collect(),
            }
        })
        .collect();
    let data = PageData {
        variant: variant.rules.title.clone(),
        size,
        flags: variant.flags.clone(),
        games: page_games,
    };
    // inside <script>, "</" would end the element early
    let json = serde_json::to_string(&data)
        .unwrap_or_else(|_| "{}".into())
        .replace("</", "<\\/");
    PAGE.replace("{{TITLE}}", &escape(&variant.rules.title))
        .replace("{{DATA}}", &json)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The page: data in a JSON script element, the board drawn as inline SVG. `#game=G&ply=P`
/// opens a game at a ply; `&keys=ArrowRight,...` replays key presses (the browser test uses it).
/// The body's `data-game`, `data-ply` and `data-errors` attributes say what is shown.
const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{TITLE}} — tavlei viewer</title>
<style>
body { font-family: sans-serif; margin: 16px; color: #222; }
#main { display: flex; gap: 24px; align-items: flex-start; }
#board svg { display: block; }
#side { min-width: 240px; }
#moves { max-height: 480px; overflow-y: auto; padding-left: 2.5em; margin: 8px 0; }
#moves li { cursor: pointer; padding: 1px 4px; }
#moves li.current { background: #90cdf4; }
button { font-size: 16px; min-width: 40px; }
#result { font-weight: bold; margin: 8px 0; }
</style>
</head>
<body data-game="0" data-ply="0" data-errors="">
<h2 id="title"></h2>
<div id="main">
  <div id="board"></div>
  <div id="side">
    <select id="games"></select>
    <div>
      <button id="first" title="start (Home)">|&#x25C0;</button>
      <button id="back" title="back (Left)">&#x25C0;</button>
      <button id="forward" title="forward (Right)">&#x25B6;</button>
      <button id="last" title="end (End)">&#x25B6;|</button>
      <span id="ply"></span>
    </div>
    <div id="result"></div>
    <ol id="moves" start="1"></ol>
  </div>
</div>
<script type="application/json" id="data">{{DATA}}</script>
<script>
"use strict";
window.addEventListener("error", function (e) {
  document.body.dataset.errors += (e.message || "error") + ";";
});
const data = JSON.parse(document.getElementById("data").textContent);
const n = data.size, cell = Math.max(28, Math.min(64, Math.floor(520 / n))), margin = 28;
let game = 0, ply = 0;

function square(sq) { return [margin + (sq % n) * cell, margin + (n - 1 - Math.floor(sq / n)) * cell]; }
function centre(sq) { const [x, y] = square(sq); return [x + cell / 2, y + cell / 2]; }

function boardSvg(frame) {
  const side = 2 * margin + n * cell, r = cell * 0.4;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" font-family="sans-serif" font-size="13">`];
  for (let sq = 0; sq < n * n; sq++) {
    const [x, y] = square(sq), f = data.flags[sq];
    let fill = f & 2 ? "#8b5a2b" : f & 1 ? "#b5835a" : f & 4 ? "#cdb37a" : "#e8d3a2";
    if (sq === frame.from || sq === frame.to) fill = "#90cdf4";
    out.push(`<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${fill}" stroke="#9c7b4f"/>`);
  }
  if (frame.from !== null) {
    const [x1, y1] = centre(frame.from), [x2, y2] = centre(frame.to);
    out.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#2b6cb0" stroke-width="3"/>`);
  }
  for (let sq = 0; sq < n * n; sq++) {
    const c = frame.cells[sq];
    if (c === ".") continue;
    const [x, y] = centre(sq), attacker = c === c.toLowerCase();
    const fill = attacker ? "#1d1d1d" : "#f7f7f2", ink = attacker ? "#f7f7f2" : "#1d1d1d";
    out.push(`<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}" stroke="#1d1d1d"/>`);
    const kind = c.toLowerCase();
    if (kind === "k") {
      const a = r / 2;
      out.push(`<circle cx="${x}" cy="${y}" r="${r - 2}" fill="none" stroke="#b8860b" stroke-width="3"/>`);
      out.push(`<path d="M${x - a} ${y}H${x + a}M${x} ${y - a}V${y + a}" stroke="#b8860b" stroke-width="3"/>`);
    } else if (kind !== "t") {
      out.push(`<text x="${x}" y="${y}" fill="${ink}" text-anchor="middle" dominant-baseline="central" font-size="${cell / 2}">${kind.toUpperCase()}</text>`);
    }
  }
  for (const sq of frame.captures) {
    const [x, y] = centre(sq), a = cell / 3;
    out.push(`<path d="M${x - a} ${y - a}L${x + a} ${y + a}M${x - a} ${y + a}L${x + a} ${y - a}" stroke="#d62728" stroke-width="4"/>`);
  }
  for (let i = 0; i < n; i++) {
    const file = String.fromCharCode(97 + i), x = margin + i * cell + cell / 2, y = margin + (n - 1 - i) * cell + cell / 2;
    out.push(`<text x="${x}" y="${margin / 2 + 4}" text-anchor="middle">${file}</text>`);
    out.push(`<text x="${x}" y="${side - margin / 2 + 4}" text-anchor="middle">${file}</text>`);
    out.push(`<text x="${margin / 2}" y="${y + 4}" text-anchor="middle">${i + 1}</text>`);
    out.push(`<text x="${side - margin / 2}" y="${y + 4}" text-anchor="middle">${i + 1}</text>`);
  }
  out.push("</svg>");
  return out.join("");
}

function show() {
  const g = data.games[game];
  ply = Math.max(0, Math.min(ply, g.frames.length - 1));
  document.getElementById("board").innerHTML = boardSvg(g.frames[ply]);
  document.getElementById("ply").textContent = `ply ${ply} of ${g.frames.length - 1}`;
  document.querySelectorAll("#moves li").forEach(function (li, i) {
    li.classList.toggle("current", i === ply - 1);
  });
  document.body.dataset.game = String(game);
  document.body.dataset.ply = String(ply);
}

function openGame(index) {
  game = index; ply = 0;
  const g = data.games[game];
  document.getElementById("result").textContent = g.result;
  const list = document.getElementById("moves");
  list.innerHTML = "";
  g.moves.forEach(function (m, i) {
    const li = document.createElement("li");
    li.textContent = m;
    li.addEventListener("click", function () { ply = i + 1; show(); });
    list.appendChild(li);
  });
  document.getElementById("games").value = String(game);
  show();
}

function key(name) {
  const last = data.games[game].frames.length - 1;
  if (name === "ArrowRight") ply = Math.min(ply + 1, last);
  else if (name === "ArrowLeft") ply = Math.max(ply - 1, 0);
  else if (name === "Home") ply = 0;
  else if (name === "End") ply = last;
  else return false;
  show();
  return true;
}

document.getElementById("title").textContent = data.variant;
const select = document.getElementById("games");
data.games.forEach(function (g, i) {
  const option = document.createElement("option");
  option.value = String(i);
  option.textContent = `${g.title}: ${g.result}`;
  select.appendChild(option);
});
select.hidden = data.games.length < 2;
select.addEventListener("change", function () { openGame(Number(select.value)); });
document.getElementById("first").addEventListener("click", function () { key("Home"); });
document.getElementById("back").addEventListener("click", function () { key("ArrowLeft"); });
document.getElementById("forward").addEventListener("click", function () { key("ArrowRight"); });
document.getElementById("last").addEventListener("click", function () { key("End"); });
document.addEventListener("keydown", function (e) { if (key(e.key)) e.preventDefault(); });

const params = new URLSearchParams(location.hash.slice(1));
openGame(Math.max(0, Math.min(Number(params.get("game")) || 0, data.games.length - 1)));
if (params.has("ply")) { ply = Number(params.get("ply")) || 0; show(); }
for (const k of (params.get("keys") || "").split(",").filter(Boolean)) {
  document.dispatchEvent(new KeyboardEvent("keydown", { key: k }));
}
</script>
</body>
</html>
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::replay::recorded_games;

    #[test]
    fn frames_follow_the_record_and_stop_at_an_illegal_move() {
        let v = Variant::load("brandubh").expect("preset");
        let start = Position::start(&v);
        let (frames, illegal) = game_frames(&start, "d6-c6 e4-e3 a4-a7");
        assert_eq!(frames.len(), 3, "the start and two legal plies");
        assert!(frames[0].last.is_none());
        assert_eq!(
            frames[2].last.as_ref().map(|(m, _)| m.name(7)),
            Some("e4-e3".into())
        );
        assert_eq!(illegal.map(|i| i.ply), Some(2));
    }

    #[test]
    fn the_page_holds_every_game_and_no_early_script_end() {
        let v = Variant::load("brandubh").expect("preset");
        let start = Position::start(&v);
        let games = recorded_games("# game 0 </script>\nd6-c6 e4-e3\n# game 1\nd6-c6\n");
        let html = viewer_html(&v, &start, &games);
        assert_eq!(html.matches("</script>").count(), 2, "only the page's own");
        let json_start = html.find("id=\"data\">").expect("data") + "id=\"data\">".len();
        let json_end = json_start + html[json_start..].find("</script>").expect("end");
        let data: serde_json::Value =
            serde_json::from_str(&html[json_start..json_end].replace("<\\/", "</")).expect("json");
        assert_eq!(data["games"].as_array().map(Vec::len), Some(2));
        assert_eq!(data["games"][0]["frames"].as_array().map(Vec::len), Some(3));
        assert_eq!(data["games"][0]["moves"][1], "e4-e3");
        assert_eq!(
            data["games"][0]["frames"][0]["cells"]
                .as_str()
                .map(str::len),
            Some(49)
        );
    }
}
