// The page of `tavlei serve`: a game against an agent (click a piece, then a target; or type a
// move), its moves to step through, the agent's analysis with its expected line drawn on the
// board, and the balance studies with any game of any cell. The body's data- attributes say
// what is shown (the browser test reads them).
"use strict";

window.addEventListener("error", (e) => { document.body.dataset.errors += (e.message || "error") + ";"; });
window.addEventListener("unhandledrejection", (e) => { document.body.dataset.errors += String(e.reason) + ";"; });

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let game = null;        // the game as the server last sent it
let shown = null;       // the ply shown (null: the current position)
let selected = null;    // the square of the piece the person picked
let busy = false;       // a request is on its way

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(error) {
  $("error").textContent = error || "";
  document.body.dataset.error = error || "";
}

// ---- the board -------------------------------------------------------------------------------

function squareName(sq, n) { return "abcdefghijklmnopqrstuvwxyz"[sq % n] + (Math.floor(sq / n) + 1); }

/// Draws `cells` on `board` (BoardView) into `host`; `marks`: last move, captures, targets,
/// the selected square and a line of moves to draw as numbered arrows.
function drawBoard(host, board, cells, marks) {
  const n = board.size;
  const room = Math.min(window.innerWidth - 32, 560);
  const margin = 20, cell = Math.max(22, Math.floor((room - 2 * margin) / n));
  const side = 2 * margin + n * cell;
  const at = (sq) => [margin + (sq % n) * cell, margin + (n - 1 - Math.floor(sq / n)) * cell];
  const mid = (sq) => { const [x, y] = at(sq); return [x + cell / 2, y + cell / 2]; };
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", side); svg.setAttribute("height", side);
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  const add = (name, attrs, text) => {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  for (let sq = 0; sq < n * n; sq++) {
    const [x, y] = at(sq), f = board.flags[sq];
    let fill = f & 2 ? "#8b5a2b" : f & 1 ? "#b5835a" : f & 4 ? "#cdb37a" : "#e8d3a2";
    if (marks.last && (sq === marks.last.from || sq === marks.last.to)) fill = "#90cdf4";
    if (sq === marks.selected) fill = "#f6e05e";
    add("rect", { x, y, width: cell, height: cell, fill, stroke: "#9c7b4f", class: "square", "data-sq": sq });
  }
  for (let i = 0; i < n; i++) {
    add("text", { x: margin + i * cell + cell / 2, y: margin - 6, "text-anchor": "middle", "font-size": 11, fill: "#555" }, "abcdefghijklmnopqrstuvwxyz"[i]);
    add("text", { x: margin - 10, y: margin + (n - 1 - i) * cell + cell / 2 + 4, "text-anchor": "middle", "font-size": 11, fill: "#555" }, i + 1);
  }
  for (const sq of marks.captured || []) {
    const [x, y] = mid(sq), r = cell * 0.3;
    add("path", { d: `M${x - r} ${y - r}L${x + r} ${y + r}M${x + r} ${y - r}L${x - r} ${y + r}`, stroke: "#d62728", "stroke-width": 3, "pointer-events": "none" });
  }
  for (let sq = 0; sq < n * n; sq++) {
    const c = cells[sq];
    if (c === ".") continue;
    const [x, y] = mid(sq), attacker = c === c.toLowerCase(), king = c === "K" || c === "k";
    add("circle", { cx: x, cy: y, r: cell * 0.38, fill: attacker ? "#1d1d1d" : "#f7f7f2", stroke: king ? "#b8860b" : "#333",
      "stroke-width": king ? 3 : 1.5, "data-sq": sq, class: "square piece" });
    if (king || "cnCN".includes(c)) {
      add("text", { x, y: y + 5, "text-anchor": "middle", "font-size": cell * 0.4, fill: attacker ? "#fff" : "#b8860b", "pointer-events": "none" }, c.toUpperCase());
    }
  }
  for (const sq of marks.targets || []) {
    const [x, y] = mid(sq);
    add("circle", { cx: x, cy: y, r: cell * 0.14, fill: "#2b6cb0", opacity: 0.75, "pointer-events": "none", class: "target" });
  }
  (marks.line || []).forEach((mv, i) => {
    if (mv.from === null) return;
    const [x1, y1] = mid(mv.from), [x2, y2] = mid(mv.to);
    const colour = i % 2 ? "#c05621" : "#2f855a";
    add("line", { x1, y1, x2, y2, stroke: colour, "stroke-width": 4, opacity: 0.7, "pointer-events": "none", class: "line" });
    add("circle", { cx: x2, cy: y2, r: 9, fill: colour, "pointer-events": "none" });
    add("text", { x: x2, y: y2 + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff", "pointer-events": "none" }, i + 1);
  });
  host.replaceChildren(svg);
  return svg;
}

// ---- a game ----------------------------------------------------------------------------------

function personToMove() { return game && !game.end && !game.agent_to_move && shown === null; }

function show() {
  if (!game) return;
  const plies = game.plies;
  const at = shown === null ? plies.length : shown;
  const cells = at === 0 ? game.board.start : plies[at - 1].cells;
  const last = at > 0 ? plies[at - 1] : null;
  const targets = selected === null ? [] : game.legal.filter((m) => m.from === selected).map((m) => m.to);
  const analysis = game.analysis;
  // the expected line from the position shown now: a hint's from its first move, the agent's
  // from the reply it expects to the move it played
  const played = analysis ? plies.length - analysis.ply : -1;
  const line = shown === null && (played === 0 || played === 1) && analysis.candidates.length
    ? analysis.candidates[0].line.slice(played, played + 6) : [];
  drawBoard($("board"), game.board, cells, {
    last: last && last.mv, captured: last ? last.captured : [], targets, selected, line,
  });
  const list = $("moves");
  list.replaceChildren(...plies.map((p, i) => {
    const li = document.createElement("li");
    li.textContent = p.text + (p.by === "agent" ? " ·" : "");
    li.title = p.by;
    if (i + 1 === at) li.className = "current";
    li.onclick = () => { shown = i + 1 === plies.length ? null : i + 1; selected = null; show(); };
    return li;
  }));
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
  let status;
  if (game.end) status = `Game over: ${game.end.text}. ` + (game.end.winner === null ? "Nobody wins." : game.end.winner === game.person ? "You win!" : "You lose.");
  else if (game.agent_to_move) status = `${game.agent} is thinking…`;
  else status = `Move ${Math.floor(plies.length / 2) + 1}: you (the ${game.person}) to move` + (game.roll ? `, the die shows ${game.roll}` : "") + ".";
  if (shown !== null) status += ` (showing ply ${shown} of ${plies.length})`;
  $("status").textContent = status;
  document.body.dataset.status = game.end ? "over" : game.agent_to_move ? "agent" : "person";
  document.body.dataset.plies = plies.length;
  document.body.dataset.game = game.id;
  $("pass").hidden = !game.legal.some((m) => m.from === null);
  $("undo").disabled = busy || !plies.some((p) => p.by === "person") && !(game.end && game.end.text.includes("resigned"));
  $("resign").disabled = busy || !!game.end;
  $("hint").disabled = busy || !!game.end;
  $("save-record").href = `/api/games/${game.id}/record`;
  $("save-otg").href = `/api/games/${game.id}/otg`;
  showAnalysis(analysis);
}

function fmt(v, digits) { return v === null || v === undefined ? "–" : v.toFixed(digits); }

function showAnalysis(a) {
  const host = $("analysis");
  if (!a) { host.innerHTML = '<p class="quiet">The agent\'s view of its last move appears here.</p>'; return; }
  const work = a.depth !== null ? `depth ${a.depth}, ${a.work} nodes` : `${a.work} simulations`;
  const rows = a.candidates.map((c) => `<tr><td>${c.mv.name}</td><td>${c.visits}</td><td>${fmt(c.prior, 3)}</td><td>${fmt(c.value, 2)}</td><td class="pv">${c.line.map((m) => m.name).join(" ")}</td></tr>`);
  host.innerHTML = `<p>${a.agent} for the ${a.side} at ply ${a.ply}: plays <b>${a.best.name}</b>, value ${fmt(a.value, 2)} (${work}).</p>` +
    `<table><tr><th>move</th><th>visits</th><th>prior</th><th>value</th><th>expected line</th></tr>${rows.join("")}</table>`;
}

async function act(request) {
  if (busy) return;
  busy = true;
  say("");
  try {
    game = await request();
    shown = null; selected = null;
    location.hash = `game=${game.id}`;
    show();
    busy = false;
    if (game.agent_to_move) {
      busy = true;
      show();
      game = await api("POST", `/api/games/${game.id}/reply`);
    }
  } catch (e) {
    say(e.message);
  }
  busy = false;
  show();
}

function play(text) { return act(() => api("POST", `/api/games/${game.id}/move`, { move: text })); }

function clickSquare(sq) {
  if (!personToMove() || busy) return;
  const piece = game.legal.some((m) => m.from === sq);
  if (selected !== null && game.legal.some((m) => m.from === selected && m.to === sq)) {
    const from = selected;
    selected = null;
    play(`${squareName(from, game.board.size)}-${squareName(sq, game.board.size)}`);
    return;
  }
  if (piece) selected = selected === sq ? null : sq;
  else if (selected !== null) {
    // a target the piece cannot reach: the server says why
    const from = selected;
    selected = null;
    play(`${squareName(from, game.board.size)}-${squareName(sq, game.board.size)}`);
    return;
  } else selected = null;
  show();
}

$("board").addEventListener("click", (e) => {
  const sq = e.target.getAttribute && e.target.getAttribute("data-sq");
  if (sq !== null && sq !== undefined) clickSquare(Number(sq));
});

$("move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("move-text").value.trim();
  if (!text || !game) return;
  $("move-text").value = "";
  play(text);
});
$("pass").onclick = () => play("pass");
$("undo").onclick = () => act(() => api("POST", `/api/games/${game.id}/undo`));
$("resign").onclick = () => act(() => api("POST", `/api/games/${game.id}/resign`));
$("hint").onclick = () => act(() => api("POST", `/api/games/${game.id}/analyse`));
$("load").onclick = () => { $("load-box").hidden = !$("load-box").hidden; };
$("load-file").onchange = async () => { const f = $("load-file").files[0]; if (f) $("load-text").value = await f.text(); };
$("load-go").onclick = () => act(() => api("POST", "/api/games", { ...newGameRequest(), record: $("load-text").value }));

function step(to) {
  if (!game) return;
  const n = game.plies.length;
  const at = Math.max(0, Math.min(n, to));
  shown = at === n ? null : at;
  selected = null;
  show();
}
const here = () => (shown === null ? game.plies.length : shown);
$("first").onclick = () => step(0);
$("back").onclick = () => step(here() - 1);
$("forward").onclick = () => step(here() + 1);
$("last").onclick = () => step(Infinity);

function newGameRequest() {
  const request = { variant: $("variant").value, agent: $("agent").value.trim() };
  if ($("side").value) request.side = $("side").value;
  return request;
}

$("new-game").addEventListener("submit", (e) => {
  e.preventDefault();
  act(() => api("POST", "/api/games", newGameRequest()));
});

async function fillAgents() {
  const list = $("agents");
  const agents = await api("GET", `/api/agents?variant=${encodeURIComponent($("variant").value)}`);
  list.replaceChildren(...agents.map((a) => { const o = document.createElement("option"); o.value = a; return o; }));
}
$("variant").onchange = fillAgents;

// ---- balance studies --------------------------------------------------------------------------

let study = null;   // { dir, cells }
let studyGame = null, studyPly = 0, studyCell = null;

async function openStudies() {
  const studies = await api("GET", "/api/studies");
  const select = $("study");
  if (!select.options.length) {
    select.replaceChildren(...studies.map((s) => { const o = document.createElement("option"); o.value = s.dir; o.textContent = `${s.dir} (${s.cells} cells)`; return o; }));
  }
  if (studies.length) await openStudy(select.value, studies.find((s) => s.dir === select.value));
  else $("study-table").innerHTML = '<p class="quiet">No study found (a directory with balance.json and games/).</p>';
}

function pct(share) { return share ? `${(100 * share.value).toFixed(0)} % [${(100 * share.low).toFixed(0)}, ${(100 * share.high).toFixed(0)}]` : "–"; }

async function openStudy(dir, entry) {
  const cells = await api("GET", `/api/studies/table?dir=${encodeURIComponent(dir)}`);
  study = { dir, cells };
  const rows = cells.map((c, i) => `<tr class="cell" data-cell="${i}"><td>${c.variant}</td><td>${c.agent}</td><td>${c.games}</td><td>${pct(c.attackers)}</td><td>${pct(c.defenders)}</td><td>${pct(c.draw)}</td><td>${c.mean_length ? c.mean_length.toFixed(0) : "–"}</td></tr>`);
  $("study-table").innerHTML = `<table><tr><th>variant</th><th>agent</th><th>games</th><th>attackers win</th><th>defenders win</th><th>draws</th><th>mean plies</th></tr>${rows.join("")}</table>`;
  $("study-table").querySelectorAll("tr.cell").forEach((tr) => { tr.onclick = () => openCell(Number(tr.dataset.cell), 0); });
  $("plots").replaceChildren(...((entry && entry.plots) || []).map((file) => {
    const img = document.createElement("img");
    img.src = `/api/studies/plot?dir=${encodeURIComponent(dir)}&file=${encodeURIComponent(file)}`;
    img.alt = file;
    return img;
  }));
}
$("study").onchange = () => openStudies();

async function openCell(index, gameIndex) {
  const cell = study.cells[index];
  studyCell = index;
  $("study-table").querySelectorAll("tr.cell").forEach((tr) => tr.classList.toggle("current", Number(tr.dataset.cell) === index));
  try {
    studyGame = await api("GET", `/api/studies/game?dir=${encodeURIComponent(study.dir)}&variant=${encodeURIComponent(cell.variant)}&agent=${encodeURIComponent(cell.agent)}&game=${gameIndex}`);
    say("");
  } catch (e) { say(e.message); return; }
  $("study-game").hidden = false;
  $("study-index").value = gameIndex;
  $("study-index").max = studyGame.games - 1;
  $("study-count").textContent = studyGame.games;
  $("study-title").textContent = `${cell.variant} · ${cell.agent} · ${studyGame.title}`;
  $("study-result").textContent = studyGame.result;
  studyPly = 0;
  showStudyGame();
}
$("study-index").onchange = () => openCell(studyCell, Number($("study-index").value));

function showStudyGame() {
  const g = studyGame, frame = g.plies[studyPly];
  drawBoard($("study-board"), g.board, frame.cells, { last: frame.mv, captured: frame.captured });
  $("study-ply").textContent = `ply ${studyPly} of ${g.plies.length - 1}`;
  document.body.dataset.studyPly = studyPly;
  const list = $("study-moves");
  list.replaceChildren(...g.moves.map((m, i) => {
    const li = document.createElement("li");
    li.textContent = m;
    if (i + 1 === studyPly) li.className = "current";
    li.onclick = () => { studyPly = i + 1; showStudyGame(); };
    return li;
  }));
}
function studyStep(to) { if (studyGame) { studyPly = Math.max(0, Math.min(studyGame.plies.length - 1, to)); showStudyGame(); } }
$("s-first").onclick = () => studyStep(0);
$("s-back").onclick = () => studyStep(studyPly - 1);
$("s-forward").onclick = () => studyStep(studyPly + 1);
$("s-last").onclick = () => studyStep(Infinity);

// ---- views and keys ---------------------------------------------------------------------------

function route() {
  const studies = location.hash.startsWith("#studies");
  $("play-view").hidden = studies;
  $("studies-view").hidden = !studies;
  document.body.dataset.view = studies ? "studies" : "play";
  if (studies) openStudies().catch((e) => say(e.message));
}
window.addEventListener("hashchange", () => { if (!location.hash.startsWith("#game=")) route(); });
$("to-play").onclick = (e) => { e.preventDefault(); location.hash = game ? `game=${game.id}` : ""; route(); };

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT") return;
  const studies = document.body.dataset.view === "studies";
  const keys = studies
    ? { ArrowLeft: () => studyStep(studyPly - 1), ArrowRight: () => studyStep(studyPly + 1), Home: () => studyStep(0), End: () => studyStep(Infinity) }
    : { ArrowLeft: () => step(here() - 1), ArrowRight: () => step(here() + 1), Home: () => step(0), End: () => step(Infinity),
        Escape: () => { selected = null; show(); }, u: () => $("undo").click(), h: () => $("hint").click() };
  if (keys[e.key] && (studies || game)) { e.preventDefault(); keys[e.key](); }
});
window.addEventListener("resize", () => { show(); if (studyGame) showStudyGame(); });

async function start() {
  const variants = await api("GET", "/api/variants");
  $("variant").replaceChildren(...variants.map((v) => { const o = document.createElement("option"); o.value = v.variant; o.textContent = v.title; return o; }));
  $("variant").value = "brandubh";
  await fillAgents();
  const wanted = /^#game=(\d+)/.exec(location.hash);
  if (wanted) {
    // a reload finds its game (and asks for the agent's reply if it was thinking)
    await act(() => api("GET", `/api/games/${wanted[1]}`));
    if (game) { $("variant").value = game.board.variant; $("agent").value = game.agent; }
  }
  route();
  document.body.dataset.ready = "1";
}
start().catch((e) => say(e.message));
