#!/usr/bin/env python3
"""The ablation's results as a Markdown table, from the match files ablation.sh leaves here:
each arm and seed against the base arm of the same seed (50 pairs at 32 simulations) and
against alpha-beta to depth 2 (50 pairs), with Elo over pairs and its 95 % interval as the
match command computed it, and the per-side records; then each match's attacking wins, both
sides', by end reason (issue 44).
    python3 experiments/learning/ablation/table.py [DIR]   (DIR: another round, e.g. ../ablation2)"""
import json
import math
import pathlib
import sys

# experiments/: how games ended is read and written as the other studies' tables do it
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from end_reasons import end_counts, ends_cell, match_games  # noqa: E402

HERE = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent)
ARMS = ["base", "discount", "forced", "gumbel16", "gumbel16eq", "noteacher", "reply", "short"]


def side(record):
    return f"{record['wins']}-{record['draws']}-{record['losses']}"


def cell(path):
    if not path.is_file():
        return "—"
    m = json.loads(path.read_text())
    e = m["elo_pairs"]
    return (f"{m['score']:.3f}, {e['elo']:+.0f} [{e['low']:+.0f}, {e['high']:+.0f}]; "
            f"att {side(m['as_attacker'])}, def {side(m['as_defender'])}")


def pooled(arm):
    """Score against ab:2 over both seeds' pairs (a pair, the two games of one opening, is the
    independent unit: its share is 0, 1/4, ..., 1 from the pentanomial counts), with a normal
    95 % interval of the mean pair share."""
    counts = [0] * 5
    for d in sorted(HERE.glob(f"{arm}-seed*")):
        p = d / "vs-ab2" / "match.json"
        if p.is_file():
            for k, c in enumerate(json.loads(p.read_text())["pentanomial"]):
                counts[k] += c
    n = sum(counts)
    if n < 2:
        return "—"
    mean = sum(c * k / 4 for k, c in enumerate(counts)) / n
    var = sum(c * (k / 4 - mean) ** 2 for k, c in enumerate(counts)) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return f"{mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] over {n} pairs"


def selfplay_cpu(run):
    """CPU seconds of self-play (and of teacher games beside it) over the run's generations."""
    total = [0.0, 0.0]
    for t in sorted(run.glob("gen-*/time.json")):
        stages = json.loads(t.read_text())
        for k, name in enumerate(["selfplay", "teacher_beside"]):
            total[k] += stages.get(name, {}).get("cpu", 0.0)
    return f"{total[0] / 60:.0f} + {total[1] / 60:.0f}"


def ends(match):
    """Each side's wins of a stored match by end reason, from agent A's view: (A's attacking wins,
    B's attacking wins), each a Counter reason -> games; None without stored games. Reads
    `games.jsonl` (agent 0 is A) or the `games.txt` records (end_reasons.match_games)."""
    report = match / "match.json"
    # a match still playing has its store but no report yet: its agents are 0 and 1 there
    a, b = (json.loads(report.read_text())[k] for k in "ab") if report.is_file() else (0, 1)
    games = match_games(match, a, b)
    if games is None:
        return None
    return tuple(end_counts([g for g in games if g["attacker"] == agent])["attackers"] for agent in (a, b))


def ends_rows():
    """The attacking wins of every stored match, both sides, by end reason (in Brandubh a
    position's fourth occurrence loses for the defenders: a win by repetition is not a capture)."""
    rows = ["| arm | seed | match | the arm's attacking wins | the opponent's attacking wins |",
            "| --- | --- | --- | --- | --- |"]
    for arm in ARMS:
        for d in sorted(HERE.glob(f"{arm}-seed*")):
            seed = d.name.split("seed")[-1]
            for match, name in [("vs-base", "vs base"), ("vs-ab2", "vs ab:2")]:
                found = ends(d / match) if arm != "base" or match != "vs-base" else None
                if found:
                    rows.append(f"| {arm} | {seed} | {name} | {ends_cell(found[0])} | {ends_cell(found[1])} |")
    return rows


def main():
    rows = ["| arm | seed | self-play + teacher CPU min | vs base, same seed (score, Elo [95 %], per side) | vs ab:2 (score, Elo [95 %], per side) |",
            "| --- | --- | --- | --- | --- |"]
    for arm in ARMS:
        for d in sorted(HERE.glob(f"{arm}-seed*")):
            seed = d.name.split("seed")[-1]
            rows.append(f"| {arm} | {seed} | {selfplay_cpu(d)} | {cell(d / 'vs-base' / 'match.json') if arm != 'base' else '(itself)'} "
                        f"| {cell(d / 'vs-ab2' / 'match.json')} |")
    rows += ["", "| arm | vs ab:2, both seeds pooled (score [95 %] over pairs) |", "| --- | --- |"]
    rows += [f"| {arm} | {pooled(arm)} |" for arm in ARMS if any(HERE.glob(f"{arm}-seed*"))]
    rows += ["", "How the attacking wins ended (each match's stored games):", ""] + ends_rows()
    print("\n".join(rows))


if __name__ == "__main__":
    sys.exit(main())
