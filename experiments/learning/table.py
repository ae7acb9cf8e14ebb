#!/usr/bin/env python3
"""Summarises the learning experiments from their committed files: self-play outcomes by
generation and the last network's direct matches. Prints a markdown table.
    python3 experiments/learning/table.py [NAME...]"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).parent


def pct(x, n):
    return f"{100 * x / max(n, 1):.0f}"


def elo(m):
    e = m["elo_pairs"]
    f = lambda x: x if isinstance(x, str) else f"{x:+.0f}"
    return f"{f(e['elo'])} [{f(e['low'])}, {f(e['high'])}]"


def wdl(w):
    return f"{w['wins']}-{w['draws']}-{w['losses']}"


names = sys.argv[1:] or sorted(p.name for p in HERE.iterdir() if (p / "summary.md").exists())
print("| experiment | self-play attackers % by generation | draws % (by repetition) by generation | last network vs gen 0 | as attacker | as defender | vs anchor (att / def) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name in names:
    d = HERE / name
    gens = sorted(d.glob("gen-*"))
    sp = [json.loads((g / "selfplay.json").read_text()) for g in gens if (g / "selfplay.json").exists()]
    att = ", ".join(pct(s["attacker_wins"], s["games"]) for s in sp)
    draws = ", ".join(f"{pct(s['draws'], s['games'])} ({pct(s.get('repetitions', 0), s['games'])})" for s in sp)
    last = gens[-1]
    g0 = json.loads((last / "vs-gen0.json").read_text())
    an = json.loads((last / "vs-anchor.json").read_text())
    print(f"| {name} | {att} | {draws} | {elo(g0)} | {wdl(g0['as_attacker'])} | {wdl(g0['as_defender'])} | {wdl(an['as_attacker'])} / {wdl(an['as_defender'])} |")
