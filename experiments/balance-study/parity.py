#!/usr/bin/env python3
"""Do alpha-beta's even and odd depths agree on a variant's balance? The table of every
fixed-depth ladder (depth-ladder.sh) with both halves stored: the attackers' share at each depth,
and the deepest even level against the deepest odd one (a difference of two shares with
Newcombe's interval, as families.py computes it).

    python3 experiments/balance-study/parity.py [DEPTH_LADDERS_DIR]

Verdict per side (balance_stats.py's vocabulary): **equivalent** when the 90 % interval of the
difference lies within ±7.5 points (TOST at 5 %), **different** when the 95 % interval excludes
0, otherwise **underpowered (n of N games a level needed)** or **not equivalent**. A variant's
alpha-beta balance can be cited only where both sides are equivalent.
"""
import sys
from pathlib import Path

from balance_stats import comparison_verdict, games_for_tost
from families import MARGIN, Z90, Z95, difference, load, points, share

SIDES = (("attackers", "attacker_wins"), ("defenders", "defender_wins"))


def halves(root):
    """(variant, search, even reports, odd reports) of every ladder with both halves stored."""
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        even, odd = load(d / "even/ab/balance.json"), load(d / "odd/ab/balance.json")
        if even and odd:
            variant = even[0]["variant"]
            search = d.name[len(variant) + 1 :] or "plain"
            yield variant, search, even, odd


def verdict(x, y, key):
    """x's share minus y's (90 %), and one label of the study's vocabulary: equivalent,
    different, underpowered (n of N games a level needed) or not equivalent."""
    d90 = difference(x[key], x["games"], y[key], y["games"], Z90)
    d95 = difference(x[key], x["games"], y[key], y["games"], Z95)
    needed = games_for_tost((x[key] + y[key] + 0.5) / (x["games"] + y["games"] + 1), MARGIN)
    word = comparison_verdict([d90], d95[1] > 0 or d95[2] < 0, min(x["games"], y["games"]), needed, MARGIN)
    return f"{points(d90, 0)}: **{word}**"


def main(root):
    ladders = list(halves(Path(root)))
    if not ladders:
        sys.exit(f"parity.py: no depth ladder with both halves under {root}")
    depths = sorted({r["simulations"] for _, _, e, o in ladders for r in e + o})
    lines = [
        "| variant | search | games a level | "
        + " | ".join(f"depth {d}" for d in depths)
        + " | attackers, even − odd | defenders, even − odd |",
        "| --- | --- | --- | " + " | ".join("---" for _ in depths) + " | --- | --- |",
    ]
    for variant, search, even, odd in ladders:
        by_depth = {r["simulations"]: r for r in even + odd}
        cells = [
            share(by_depth[d]["attacker_wins"], by_depth[d]["games"], 0) if d in by_depth else ""
            for d in depths
        ]
        games = sorted({r["games"] for r in even + odd})
        x, y = even[-1], odd[-1]
        sides = [verdict(x, y, key) for _, key in SIDES]
        lines.append(
            f"| {variant} | {search} | {'/'.join(map(str, games))} | "
            + " | ".join(cells)
            + f" | {sides[0]} | {sides[1]} |"
        )
    lines += [
        "",
        "Shares in % with 95 % Wilson intervals. The last two columns: the deepest even depth "
        "minus the deepest odd depth, in points with the 90 % interval, and the verdict "
        f"(`balance_stats.py`'s vocabulary): **equivalent** (within ±{100 * MARGIN:.1f}, TOST), "
        "**different** (the 95 % interval excludes 0), otherwise **underpowered** (with the games "
        "a level 80 % power needs) or **not equivalent**.",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "depth-ladders")
