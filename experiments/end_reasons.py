"""How stored games ended, by end reason (issue 44: in Brandubh and Copenhagen a position's fourth
occurrence loses for the defenders, so a win by repetition is not a capture, and a table of wins
alone hides which it was). The balance study's readings (balance-study/families.py), the
ablations' table (learning/ablation/table.py) and the baselines' per-side tables
(baselines/per_side.py) read games and write their ends through this module, so that they read
the same records alike and write "king captured 23, repetition 1" the same way; the balance
study's count of copies (balance-study/distinct.py) reads its records here too.

A game here is a record as read_games gives it: a dict of its attacker's and defender's agent
specs and its tags, among them `result`, "WINNER REASON" (attackers, defenders or draw, then the
reason as `tavlei` names it, e.g. king_captured). Standard library only.
"""
import json
import re
from collections import Counter
from pathlib import Path

# a record's header: one agent playing itself (`tavlei balance`) or two (`tavlei match`)
HEADER = re.compile(
    r"# game \d+(?: \((?P<self>.+) vs itself\)|: (?P<attacker>.+) \(attackers\) vs (?P<defender>.+) \(defenders\))$"
)


def read_games(path):
    """Every game of a record file (the format `tavlei replay` reads) as a dict of its
    attacker's and defender's agent specs, its tags (variant, rules, result) and its moves: a
    `# game N (AGENT vs itself)` or `# game N: A (attackers) vs B (defenders)` header, tag
    lines in brackets, then the moves."""
    games = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# game "):
            m = HEADER.match(line)
            if not m:
                # a header read wrong would fold one game's moves into another's
                raise ValueError(f"{path}: a game header of no known form: {line}")
            attacker, defender = m["self"] or m["attacker"], m["self"] or m["defender"]
            games.append({"attacker": attacker, "defender": defender, "moves": ""})
        elif games and line.startswith("[") and line.endswith('"]'):
            tag, value = line[1:-2].split(' "', 1)
            games[-1][tag] = value
        elif games and line.strip():
            games[-1]["moves"] = f"{games[-1]['moves']} {line.strip()}".strip()
    return games


def match_games(folder, a, b):
    """A stored match's games (`tavlei match --out FOLDER`) as records of attacker, defender and
    result: its `games.jsonl`, where agent 0 is `a` and 1 is `b` (the store a match fills as its
    games end), else its `games.txt` records (written with the report when it is done); None
    where it holds neither."""
    store, records = Path(folder) / "games.jsonl", Path(folder) / "games.txt"
    if store.exists():
        games = [json.loads(line) for line in store.read_text().splitlines() if line.strip()]
        names = (a, b)
        return [
            {"attacker": names[g["attacker"]], "defender": names[1 - g["attacker"]],
             "result": f"{g['outcome'].get('winner') or 'draw'} {g['outcome'].get('reason', '')}".strip()}
            for g in games
        ]
    return read_games(records) if records.exists() else None


def end_counts(games):
    """The games' results, each side's wins and the draws, counted by end reason: a Counter
    reason -> games under "attackers", "defenders" and "draw"."""
    counts = {"attackers": Counter(), "defenders": Counter(), "draw": Counter()}
    for g in games:
        winner, _, reason = g.get("result", "").partition(" ")
        counts.setdefault(winner, Counter())[reason or "no reason"] += 1
    return counts


def ends_cell(counts):
    """End reasons with their counts, the most frequent first (ties by name), underscores as
    spaces, "none" where there are none: "king captured 23, repetition 1"."""
    ranked = sorted(counts.items(), key=lambda c: (-c[1], c[0]))
    return ", ".join(f"{reason.replace('_', ' ')} {n}" for reason, n in ranked) or "none"
