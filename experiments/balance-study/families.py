#!/usr/bin/env python3
"""The reading of one variant's strength ladder (ladder.sh): each family's levels with the trend
and equivalence verdict `tavlei balance` computed, the two families compared at their strongest
levels (TOST), and the cross-family games: whose attack and whose defence is stronger.

    python3 experiments/balance-study/families.py experiments/balance-study/ladders/VARIANT [SCRIPT]

Reads DIR/ab/balance.json, DIR/net/balance.json and DIR/cross/match.json (the last two where
they exist) and prints Markdown; SCRIPT names the script that made the ladder (ladder.sh unless
given). Shares are in points of 100; Wilson intervals at 95 %; a
difference of two shares has Newcombe's hybrid score interval (each share's Wilson interval
combined), at 90 % for an equivalence test (TOST at 5 %) and at 95 % for a difference.
"""
import json
import math
import sys
from pathlib import Path

Z95 = 1.959963984540054
Z90 = 1.644853626951472
MARGIN = 0.075  # the study's default equivalence margin (tavlei balance --margin 7.5)
# Balance in recorded human play, as docs/rules.md gives it.
HUMANS = {
    "copenhagen": "1,752 games: attackers 43.8 %, defenders 55.8 %, draws 0.4 %",
    "brandubh": "523 games: attackers 40.2 %, defenders 59.5 %, draws 0.4 %",
    "fetlar": "the defenders win 58.7 % of the decisive games",
}


def wilson(k, n, z):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def difference(k1, n1, k2, n2, z):
    """k1/n1 - k2/n2 with Newcombe's hybrid score interval."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def share(k, n, digits=1):
    low, high = wilson(k, n, Z95)
    return f"{100 * k / n:.{digits}f} [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def points(d, digits=1):
    return f"{100 * d[0]:+.{digits}f} [{100 * d[1]:+.{digits}f}, {100 * d[2]:+.{digits}f}]"


def load(path):
    """A stored JSON report, or None where the ladder has none."""
    return json.loads(path.read_text()) if path.exists() else None


def level_name(r):
    if r["time_ms"] > 0:
        return f"{r['time_ms']:g} ms"
    # alpha-beta's budget without a time is its depth
    return f"depth {r['simulations']}" if r["agent"].startswith("ab:") else f"{r['simulations']} sims"


def family_table(name, reports):
    lines = [
        f"### {name}",
        "",
        "| level | games (distinct) | openings | attackers % | defenders % | draws % | mean length |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in reports:
        n = r["games"]
        o = r.get("openings", {})
        drawn = (
            f"{o.get('plies', 0)} plies, sampled by {o['sampled_by']}"
            if o.get("sampled_by")
            else f"{o.get('plies', 0)} plies of {o.get('available', 0)}"
        )
        lines.append(
            f"| {level_name(r)} | {n} ({r.get('distinct_games', n)}) | {drawn} | "
            f"{share(r['attacker_wins'], n)} | {share(r['defender_wins'], n)} | "
            f"{share(r['draws'], n)} | {r['mean_length']:.0f} |"
        )
    top = reports[-1]
    c = top.get("convergence")
    if c:
        t = lambda x: f"{x['slope']:+.2f} [{x['low']:+.2f}, {x['high']:+.2f}]"
        e = lambda x: points((x["difference"], x["low"], x["high"]))
        lines += [
            "",
            f"Verdict at {level_name(top)}: **{c['verdict']}**. Log-odds slope a doubling of the "
            f"{'depth' if level_name(top).startswith('depth') else 'budget'} (95 %): attackers "
            f"{t(c['attacker_trend'])}, defenders "
            f"{t(c['defender_trend'])}. Difference to the level below (90 %, margin "
            f"±{100 * c['attacker_equivalence']['margin']:.1f} points): attackers "
            f"{e(c['attacker_equivalence'])}, defenders {e(c['defender_equivalence'])}.",
        ]
    duplicated = [r for r in reports if r.get("distinct_games", r["games"]) < r["games"]]
    for r in duplicated:
        lines.append(
            f"\n{level_name(r)} holds {r['games'] - r['distinct_games']} copies of other games: "
            "its intervals count them as independent and are too narrow."
        )
    return lines


def cross_rows(m):
    """(attack, defence, attacker wins, draws, defender wins) of both ways of a match."""
    a, b = m["a"], m["b"]
    att, dfn = m["as_attacker"], m["as_defender"]
    return [
        (a, b, att["wins"], att["draws"], att["losses"]),
        (b, a, dfn["losses"], dfn["draws"], dfn["wins"]),
    ]


SIDES = (("attackers", "attacker_wins"), ("defenders", "defender_wins"))


def sides(x, y, z):
    """(side, difference of x's share minus y's at confidence z) for attackers and defenders."""
    return [(side, difference(x[key], x["games"], y[key], y["games"], z)) for side, key in SIDES]


def apart(x, y):
    """The sides whose shares differ between reports x and y at 95 %."""
    return [(side, d) for side, d in sides(x, y, Z95) if d[1] > 0 or d[2] < 0]


def equivalent(*differences):
    return all(-MARGIN < d[1] and d[2] < MARGIN for d in differences)


def read(families):
    """The ladder's reading, a list of clauses whose first word (bold) is its label: measured /
    trending / families disagree / consistent, not yet measured; with one family (no network for
    the variant) "measured" cannot be said, as it needs both."""
    verdicts = {name: (r[-1].get("convergence") or {}).get("verdict", "one level") for name, r in families}
    reading = []
    # a family whose two strongest levels differ (95 %) has not settled, trend or not
    moving = sorted(
        {
            name.split(",")[0].lower()
            for name, r in families
            if verdicts[name] == "trending" or (len(r) > 1 and apart(r[-1], r[-2]))
        }
    )
    if moving:
        reading.append(
            "**trending**: " + " and ".join(moving) + (" still moves" if len(moving) == 1 else " still move")
            + " with strength"
        )
    (_, top), *rest = [(name, r[-1]) for name, r in families]
    own = families[0][1]
    # the level the strongest is compared with: the other family's strongest, else the one below
    other = rest[0][1] if rest else own[-2] if len(own) > 1 else top
    if rest and apart(top, other):
        reading.append(
            "**families disagree**: at their strongest levels alpha-beta minus the network is "
            + ", ".join(f"{side} {points(d)} points (95 %)" for side, d in apart(top, other))
        )
    if reading:
        return reading
    (_, att), (_, dfn) = sides(top, other, Z90)
    if all(v == "measured" for v in verdicts.values()):
        if not rest:
            return [
                "**one family settled**: alpha-beta does not trend and its two strongest levels agree "
                f"within ±{100 * MARGIN:.1f} points; \"measured\" needs a second family to agree"
            ]
        if equivalent(att, dfn):
            return ["**measured**: both families agree at their strongest levels and neither trends"]
    # games a level for TOST to pass on both sides were the shares equal: the 90 % interval of a
    # difference of two shares near p is about ±z·sqrt(2p(1-p)/n); the share nearer one half
    # needs the most
    def needed_for(wins):
        p = (top[wins] + other[wins]) / (top["games"] + other["games"])
        p = min(max(p, 0.01), 0.99)
        return math.ceil(2 * p * (1 - p) * (Z90 / MARGIN) ** 2)

    needed = max(needed_for("attacker_wins"), needed_for("defender_wins"))
    where = (
        "in either family or between them (the strongest levels"
        if rest
        else "and one family only (alpha-beta's two strongest levels"
    )
    return [
        f"**consistent, not yet measured**: no trend and no difference shown, {where} "
        f"{100 * abs(att[0]):.1f} and {100 * abs(dfn[0]):.1f} points apart), but {top['games']} and "
        f"{other['games']} games cannot show agreement within ±{100 * MARGIN:.1f} points; were the "
        f"shares equal, about {needed} games a level would"
    ]


def main(directory, made_by="ladder.sh"):
    d = Path(directory)
    ab, net, cross = load(d / "ab/balance.json"), load(d / "net/balance.json"), load(d / "cross/match.json")
    if not ab:
        sys.exit(f"families.py: no {d / 'ab/balance.json'}")
    variant = ab[0]["variant"]
    out = [f"# {variant}: balance along strength ladders of two player families (issue 26)", ""]
    out.append(
        f"Made by `experiments/balance-study/{made_by} "
        f"{variant}` (seed 1, one game a core, one libtorch thread a search), read by "
        "`families.py`. Shares in %, 95 % Wilson intervals over distinct games; draws count as "
        "neither side's win."
    )
    out.append("")
    families = [("Alpha-beta, both sides", ab)] + ([("The shipped network, both sides", net)] if net else [])
    for name, reports in families:
        out += family_table(name, reports) + [""]

    reading = read(families)
    if net:
        a, b = ab[-1], net[-1]
        (_, att), (_, dfn) = sides(a, b, Z90)
        out += [
            "### The two families at their strongest levels",
            "",
            f"Alpha-beta at {level_name(a)} minus the network at {level_name(b)} (90 %, TOST at "
            f"±{100 * MARGIN:.1f} points): attackers {points(att)}, defenders {points(dfn)}: "
            + ("**equivalent**." if equivalent(att, dfn) else "**not shown equivalent**."),
            "",
        ]
    if cross:
        rows = cross_rows(cross)
        out += [
            "### Cross-family games",
            "",
            f"`tavlei match` at the strongest levels, {cross['pairs']} pairs: each opening played "
            "once each way.",
            "",
            "| attack | defence | games | attackers % | defenders % | draws % |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for attack, defence, w, dr, l in rows:
            n = w + dr + l
            out.append(f"| `{attack}` | `{defence}` | {n} | {share(w, n)} | {share(l, n)} | {share(dr, n)} |")
        out.append("")
        # the same defence met by both attacks, the same attack met by both defences (95 %)
        (_, _, nw, ndr, nl), (_, _, aw, adr, al) = rows
        nn, an = nw + ndr + nl, aw + adr + al
        a_top, n_top = ab[-1], net[-1] if net else None
        lines = []
        verdict = lambda x: "stronger" if x[1] > 0 else ("weaker" if x[2] < 0 else "not shown different")

        def compare(what, against, mine, theirs, d):
            lines.append(
                f"- {what}, against {against}: {mine} minus {theirs}, {points(d)} points of "
                f"{'attacker' if what == 'Attack' else 'defender'} wins: {mine} "
                f"{what.lower()} is {verdict(d)}."
            )

        compare("Attack", "alpha-beta's defence", "the network's", "alpha-beta's own",
                difference(nw, nn, a_top["attacker_wins"], a_top["games"], Z95))
        compare("Defence", "alpha-beta's attack", "the network's", "alpha-beta's own",
                difference(al, an, a_top["defender_wins"], a_top["games"], Z95))
        if n_top:
            compare("Attack", "the network's defence", "alpha-beta's", "the network's own",
                    difference(aw, an, n_top["attacker_wins"], n_top["games"], Z95))
            compare("Defence", "the network's attack", "alpha-beta's", "the network's own",
                    difference(nl, nn, n_top["defender_wins"], n_top["games"], Z95))
        out += lines + [
            "",
            "(Self-play rows are the families' strongest balance levels, whose openings are drawn "
            "apart from the match's; the differences are at 95 %.)",
            "",
        ]
    if reading:
        out += ["### Reading", "", "; ".join(reading) + "."]
    if variant in HUMANS:
        out += ["", f"Human play (`docs/rules.md`): {HUMANS[variant]}."]
    print("\n".join(out))


if __name__ == "__main__":
    main(*(sys.argv[1:3] or ["."]))
