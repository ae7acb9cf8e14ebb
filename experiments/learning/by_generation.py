#!/usr/bin/env python3
"""One pipeline run, generation by generation, from its committed files (a run directory or the
`run/` folder of a model's evidence): self-play and teacher outcomes, and each candidate's direct
matches against generation 0 and the classical anchor, per side. Prints a markdown table.
    python3 experiments/learning/by_generation.py models/brandubh-evidence/run"""
import json
import pathlib
import sys


def load(path):
    return json.loads(path.read_text()) if path.exists() else None


def shares(s):
    if s is None:
        return "-"
    n = max(s["games"], 1)
    return f"{100 * s['attacker_wins'] / n:.0f} / {100 * s['defender_wins'] / n:.0f} / {100 * s['draws'] / n:.0f}"


def sides(m):
    if m is None:
        return "-", "-"
    w = lambda x: f"{x['wins']}-{x['draws']}-{x['losses']}"
    return w(m["as_attacker"]), w(m["as_defender"])


run = pathlib.Path(sys.argv[1])
print("| gen | self-play att / def / draw % | repetition % | teacher att / def / draw % | network g+1 vs gen 0: as attacker, as defender | network g+1 vs anchor: as attacker, as defender |")
print("| --- | --- | --- | --- | --- | --- |")
for g in sorted(run.glob("gen-*")):
    k = int(g.name.split("-")[1])
    sp = load(g / "selfplay.json")
    nxt = run / f"gen-{k + 1:03d}"
    g0 = sides(load(nxt / "vs-gen0.json"))
    an = sides(load(nxt / "vs-anchor.json"))
    rep = "-" if sp is None else f"{100 * sp.get('repetitions', 0) / max(sp['games'], 1):.0f}"
    if sp is None and g0 == ("-", "-"):
        continue
    print(f"| {k} | {shares(sp)} | {rep} | {shares(load(g / 'teacher.json'))} | {g0[0]}, {g0[1]} | {an[0]}, {an[1]} |")
