#!/usr/bin/env python3
"""The measured table of a model card, read from its evidence directory: one row per match
report (`*/match.json`), from the card's network's view (agent A), each side's W-D-L with the
win share and its 95% Wilson interval. Prints markdown rows.
    python3 models/card_table.py models/brandubh-evidence"""
import json
import pathlib
import sys


def num(x):
    return x if isinstance(x, str) else f"{x:+.0f}"


def wilson(k, n, z=1.96):
    """95% Wilson interval of a share k / n, in percent."""
    if n == 0:
        return 0.0, 100.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, 100 * (centre - half)), min(100.0, 100 * (centre + half))


def wdl(w):
    """W-D-L and the win share with its 95% Wilson interval."""
    n = w["wins"] + w["draws"] + w["losses"]
    low, high = wilson(w["wins"], n)
    return f"{w['wins']}-{w['draws']}-{w['losses']} ({100 * w['wins'] / max(n, 1):.0f} % [{low:.0f}, {high:.0f}])"


def budget(spec):
    b = spec.rsplit(":", 1)[-1]
    return f"{b[2:]} a move" if b.startswith("t=") else f"{b} simulations"


evidence = pathlib.Path(sys.argv[1])
print("| opponent | budget (both sides) | pairs | score | Elo | as attacker | as defender | file |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for path in sorted(evidence.glob("*/match.json")):
    m = json.loads(path.read_text())
    e = m["elo_pairs"]
    print(
        f"| `{m['b']}` | {budget(m['a'])} | {m['pairs']} | {m['score']:.3f} | {num(e['elo'])} "
        f"[{num(e['low'])}, {num(e['high'])}] | {wdl(m['as_attacker'])} | {wdl(m['as_defender'])} "
        f"| `{path.parent.name}/` |"
    )
