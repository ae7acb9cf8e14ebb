#!/usr/bin/env python3
"""The learned evaluation's matches as one table (results.md): for every match directory under
experiments/nnue (a `match.json` beside its `games.jsonl`), the score with its interval over
pairs, each side's wins, draws and losses, and how the learned player's wins ended (a win by the
opponent's repetition is not an attack). Also checks that matches of one variant and seed
played the same openings.

    python3 experiments/nnue/table.py          # writes experiments/nnue/results.md
    python3 experiments/nnue/table.py --check  # fails if results.md is not what the files give
"""

import collections
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def opening(game, plies):
    return tuple(game["moves"][:plies])


def row(match_dir):
    report = json.loads((match_dir / "match.json").read_text())
    games = [json.loads(line) for line in (match_dir / "games.jsonl").read_text().splitlines()]
    ends = collections.Counter()
    for g in games:
        side = "attackers" if g["attacker"] == 0 else "defenders"
        if g["outcome"]["winner"] == side:
            ends[(side, g["outcome"]["reason"])] += 1

    def wdl(part):
        return f"{part['wins']}-{part['draws']}-{part['losses']}"

    def reasons(side):
        found = sorted((r, n) for (s, r), n in ends.items() if s == side)
        return ", ".join(f"{r} {n}" for r, n in found) or "none"

    # an interval's end is the string "inf" where the score is at or next to 1 (or 0)
    elo = {k: float(v) for k, v in report["elo_pairs"].items()}
    plies = report["openings"]["plies"]
    return {
        "dir": match_dir.relative_to(HERE).as_posix(),
        "a": report["a"],
        "b": report["b"],
        "pairs": report["pairs"],
        "score": f"{report['score']:.3f}",
        "elo": f"{elo['elo']:+.0f} [{elo['low']:+.0f}, {elo['high']:+.0f}]",
        "attacking": wdl(report["as_attacker"]),
        "defending": wdl(report["as_defender"]),
        "wins_attacking": reasons("attackers"),
        "wins_defending": reasons("defenders"),
        "openings": sorted({opening(g, plies) for g in games}),
        "seed": json.loads((match_dir / "settings.json").read_text())["seed"],
    }


def table():
    rows = [row(p.parent) for p in sorted(HERE.glob("**/match.json"))]
    lines = [
        "# Learned evaluation: matches",
        "",
        "Made by `python3 experiments/nnue/table.py` from each match's `match.json` and",
        "`games.jsonl`. Score and Elo are the learned player's (A), Elo with its 95 % interval",
        "over pairs; W-D-L per side; the learned player's wins by end reason.",
        "",
        "| match | A | B | pairs | score | Elo | A attacking | A defending | A's attacking wins | A's defending wins |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['dir']} | `{r['a']}` | `{r['b']}` | {r['pairs']} | {r['score']} | {r['elo']} "
            f"| {r['attacking']} | {r['defending']} | {r['wins_attacking']} | {r['wins_defending']} |"
        )
    # same openings: matches of one variant, opponent, length and seed (the seed draws them)
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["dir"].split("/")[0], r["b"], r["pairs"], r["seed"])].append(r)
    lines += [
        "",
        "Openings compared between matches of one variant, opponent, length and seed:",
        "",
    ]
    for (variant, b, pairs, seed), group in sorted(groups.items()):
        if len(group) < 2:
            continue
        same = all(g["openings"] == group[0]["openings"] for g in group)
        names = ", ".join(g["dir"] for g in group)
        verdict = "the same openings" if same else "different openings"
        lines.append(f"- {variant} against `{b}`, {pairs} pairs, seed {seed} ({names}): {verdict}")
    return "\n".join(lines) + "\n"


def main():
    text = table()
    out = HERE / "results.md"
    if "--check" in sys.argv:
        if out.read_text() != text:
            sys.exit("experiments/nnue/results.md is not what table.py makes; rerun it")
        return
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
