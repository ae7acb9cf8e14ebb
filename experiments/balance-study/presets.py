#!/usr/bin/env python3
"""Issue 26's table of every preset: one row per player family of each strength ladder under
ladders/ (ladder.sh), with its levels, the attackers' share at each, its strongest level's
shares, the trend and equivalence tests `tavlei balance` computed, and the variant's reading
(families.py's label; the full reading is in ladders/VARIANT/README.md), and the alpha-beta
ladder with a quiescence search (quiescence/VARIANT/) where one was run.

    python3 experiments/balance-study/presets.py > experiments/balance-study/ladders/README.md

Presets without a ladder yet are listed at the end, so the table says what is missing.
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from families import HUMANS, level_name, load, points, read, share  # noqa: E402

HERE = Path(__file__).parent
LADDERS = HERE / "ladders"
QUIESCENCE = HERE / "quiescence"


def presets():
    """(name, board) of every preset, in `tavlei rules list`'s order."""
    binary = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "target/release/tavlei"
    listing = subprocess.run([str(binary), "rules", "list"], capture_output=True, text=True, check=True)
    return [tuple(line.split()[:2]) for line in listing.stdout.splitlines()[1:] if line.strip()]


def signed(x):
    return f"{x['slope']:+.2f} [{x['low']:+.2f}, {x['high']:+.2f}]"


def difference(e):
    return points((e["difference"], e["low"], e["high"]), digits=0)


def family_row(variant, board, family, reports, reading):
    top = reports[-1]
    n = top["games"]
    games = sorted({r["games"] for r in reports})
    distinct = all(r.get("distinct_games", r["games"]) == r["games"] for r in reports)
    c = top.get("convergence")
    tests = (
        [f"{signed(c['attacker_trend'])} / {signed(c['defender_trend'])}",
         f"{difference(c['attacker_equivalence'])} / {difference(c['defender_equivalence'])}",
         c["verdict"]]
        if c
        else ["", "", "one level"]
    )
    return [
        f"[{variant}]({variant}/README.md)" if reading else "",
        board if reading else "",
        family,
        " / ".join(level_name(r) for r in reports),
        "/".join(map(str, games)) + ("" if distinct else " (copies)"),
        ", ".join(f"{100 * r['attacker_wins'] / r['games']:.0f}" for r in reports),
        f"{share(top['attacker_wins'], n, 0)} / {share(top['defender_wins'], n, 0)} / {share(top['draws'], n, 0)}",
        *tests,
        reading,
    ]


def main():
    header = [
        "variant", "board", "family", "levels", "games a level",
        "attackers % by level", "strongest level: attackers / defenders / draws %",
        "trend a doubling, attackers / defenders (log-odds, 95 %)",
        "strongest minus next, attackers / defenders (points, 90 %)", "verdict", "reading",
    ]
    rows, missing = [], []
    for variant, board in presets():
        ab, net = load(LADDERS / variant / "ab/balance.json"), load(LADDERS / variant / "net/balance.json")
        if not ab:
            missing.append(variant)
            continue
        families = [("Alpha-beta, both sides", ab)] + ([("The shipped network, both sides", net)] if net else [])
        label = read(families)
        label = ", ".join(clause.split("**")[1] for clause in label)
        rows.append(family_row(variant, board, "alpha-beta", ab, label))
        # the same family with a quiescence search (quiescence/ladder.sh), where it has been run
        quiet = load(QUIESCENCE / variant / "ab/balance.json")
        if quiet:
            rows.append(family_row(variant, board, "alpha-beta, quiescence", quiet, ""))
        if net:
            rows.append(family_row(variant, board, "network", net, ""))
    out = [
        "# Every preset's strength ladder (issue 26)",
        "",
        "Made by `python3 experiments/balance-study/presets.py > "
        "experiments/balance-study/ladders/README.md` from the stored ladders "
        "(`experiments/balance-study/ladder.sh VARIANT` each, or `study.sh` for all). One row a "
        "player family: alpha-beta plays both sides at equal time a move, the variant's shipped "
        "network (where there is one) at its simulation counts. Shares in %, 95 % Wilson intervals "
        "over distinct games (every game opens from its own opening drawn without replacement; a "
        "level with copies says so); draws count as neither side's win. The trend is the slope of "
        "a logistic fit of the share on log2 of the budget; \"strongest minus next\" is TOST at "
        "±7.5 points between the two strongest levels. Verdict (`tavlei balance`): trending (a "
        "slope's interval excludes 0), measured (both tests pass), not equivalent (neither). "
        "Reading (`families.py`): measured needs both families equivalent at their strongest "
        "levels with neither trending; with one family it can at best be \"one family settled\". "
        "Rows \"alpha-beta, quiescence\" are the same time ladder with a quiescence search "
        "(`quiescence/ladder.sh VARIANT`, `../quiescence/VARIANT/README.md`): without one, alpha-beta's "
        "balance follows the parity of the depth its search stops at (`../depth-ladders/README.md`), "
        "so the plain rows and the readings made from them measure the search's horizon as much "
        "as the rules. "
        "Each variant's README gives the full reading, the cross-family games and the plots.",
        "",
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
    ]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    humans = [f"- {v}: {HUMANS[v]}" for v in HUMANS]
    out += ["", "Human play (`docs/rules.md`), for the variants it exists for:", "", *humans]
    if missing:
        out += ["", "No ladder yet: " + ", ".join(f"`{v}`" for v in missing) + "."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
