#!/usr/bin/env python3
"""Issue 26's table of every preset: one row per player family of each strength ladder under
ladders/ (ladder.sh), with its levels, the attackers' share at each, its strongest level's
shares, the trend and equivalence tests `tavlei balance` computed, and the variant's reading
(families.py's label; the full reading is in ladders/VARIANT/README.md), and the alpha-beta
ladder with a quiescence search (quiescence/VARIANT/) and the learned evaluation's ladder
(learned/VARIANT/) where they were run; then the defenders' advantage over every game of a
variant stored anywhere in the study, and its constancy across strength bands (`pooled`); then
how far each variant with two player families stored is from "measured" (`distances`, issue 45
item 5): what blocks it, the games still to play and their core-hours.

    python3 experiments/balance-study/presets.py > experiments/balance-study/ladders/README.md

Presets without a ladder yet are listed at the end, so the table says what is missing.
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from balance_stats import BAND_GAMES, DIFFERENT, LEVELS_DIFFER, NOT_EQUIVALENT, TRENDING, elo, side_fit  # noqa: E402
from families import (  # noqa: E402
    HUMANS, MARGIN, convergence, kind, level_name, load, nearest, plain_alpha_beta, points, pooled_bands,
    pooled_games, pooled_side, read, share, shortfall, stored_games, variant_games,
)

HERE = Path(__file__).parent
LADDERS = HERE / "ladders"
QUIESCENCE = HERE / "quiescence"
LEARNED = HERE / "learned"
DEPTHS = HERE / "depth-ladders"


def markdown_table(header, rows):
    """A Markdown table's lines: the header, its rule, one line a row of cells."""
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def presets():
    """(name, board) of every preset, in `tavlei rules list`'s order."""
    binary = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "target/release/tavlei"
    listing = subprocess.run([str(binary), "rules", "list"], capture_output=True, text=True, check=True)
    return [tuple(line.split()[:2]) for line in listing.stdout.splitlines()[1:] if line.strip()]


def signed(t):
    """A slope with its overdispersion-aware interval."""
    return f"{t['slope']:+.2f} [{t['quasi_low']:+.2f}, {t['quasi_high']:+.2f}]"


def family_row(variant, board, family, reports, reading, edge, lead=None):
    """One family's cells; the variant and board lead the variant's first row (`lead`, default:
    the row that carries a reading)."""
    lead = bool(reading) if lead is None else lead
    top = reports[-1]
    n = top["games"]
    games = sorted({r["games"] for r in reports})
    distinct = all(r.get("distinct_games", r["games"]) == r["games"] for r in reports)
    c = convergence(reports)
    tests = (
        [" / ".join(signed(t) for t in c["trends"]),
         " / ".join(points(e, digits=0) for e in c["equivalences"]),
         str(c["needed"]),
         c["verdict"]]
        if c
        else ["", "", "", "one level"]
    )
    return [
        f"[{variant}]({variant}/README.md)" if lead else "",
        board if lead else "",
        family,
        " / ".join(level_name(r) for r in reports),
        "/".join(map(str, games)) + ("" if distinct else " (copies)"),
        ", ".join(f"{100 * r['attacker_wins'] / r['games']:.0f}" for r in reports),
        f"{share(top['attacker_wins'], n, 0)} / {share(top['defender_wins'], n, 0)} / {share(top['draws'], n, 0)}",
        *tests,
        edge,
        reading,
    ]


def edge(directory, families):
    """The defenders' advantage over every game of a ladder, and whether it drifts by band."""
    players, games = variant_games(directory, families)
    s = side_fit(len(players), games)
    return f"{elo(s['pooled'])}" + (f" (drifts, p = {s['p']:.2g})" if s["drifts"] else "")


def by_band(s):
    """The cells of a pooled fit's strength bands: each band's edge, one edge's p-value, and a
    word for it."""
    if not s["bands"]:
        return ["none: no player met another", "", ""]
    if s["df"] == 0:
        return [f"one band ({s['bands'][0]['games']} games)", "", ""]
    return [" / ".join(f"{elo(b)} ({b['games']})" for b in s["bands"]),
            f"{s['p']:.2g} (likelihood ratio {s['lr']:.1f}, {s['df']} df)",
            "drifts" if s["drifts"] else "constant"]


def pooled(variants):
    """The section of the defenders' advantage over every stored game of each variant, with and
    without plain alpha-beta."""
    records = stored_games(HERE)
    rows, copies, across, other, older_folders, quiet_bands, mixed = [], 0, 0, 0, set(), {}, []
    left = {"copies": 0, "across_folders": 0}
    for variant in variants:
        # the variant's rules as its ladder's records carry them
        rules = next(g["rules"] for g in records if g["variant"] == variant and g["folder"] == f"ladders/{variant}/ab")
        every = pooled_games(records, variant, rules)
        quiet = pooled_games(records, variant, rules, keep=lambda agent: not plain_alpha_beta(agent))
        copies, across = copies + every["copies"], across + every["across_folders"]
        other += every["other_rules"]
        older_folders.update(f.split("/")[0] for f in every["other_folders"])
        # copies among the records left out, counted the same way, so the text says where they are
        for older in {g["rules"] for g in records if g["variant"] == variant} - {rules}:
            data = pooled_games(records, variant, older)
            left = {k: left[k] + data[k] for k in left}
        bands = pooled_bands(every)
        if bands["groups"] > 1:
            mixed.append(variant)
        cells = [variant, ", ".join(f"`{f}`" for f in every["folders"]),
                 str(len(every["games"])), str(len(every["players"])), elo(bands["pooled"]), *by_band(bands)]
        edge = pooled_side(quiet)
        cells += [str(len(quiet["games"])), str(len(quiet["players"])), elo(edge) if edge else "no games"]
        rows.append(cells + [str(every["copies"]), str(every["other_rules"])])
        if quiet["games"]:
            quiet_bands[variant] = pooled_bands(quiet)
    header = [
        "variant", "folders", "games", "players", "defenders' edge, Elo (95 %)",
        "by strength band, weakest first: edge, Elo (95 %; games)", "one edge for every band: p",
        "across strength", "games without plain alpha-beta", "players",
        "defenders' edge without plain alpha-beta, Elo (95 %)",
        "copies counted once", "records under another rules string (left out)",
    ]
    return [
        "## The defenders' advantage over every stored game of a variant (issue 45)",
        "",
        "One Bradley–Terry fit a variant over every game record stored under "
        "`experiments/balance-study/` that carries the variant's rules string as its ladder's "
        "records do: every ladder, family and level, the quiescence and learned-evaluation "
        "ladders, the fixed-depth ladders and every cross-family and quiescence match. A player "
        "is an agent spec, one player in every folder it played in; each player's strength is a "
        "free parameter and the side one common parameter (draws half a point, one virtual draw a "
        "player and one for the side, as in the ladders' fit above). A game stored twice (the "
        f"same players and moves) counts once: {copies} such copies among the records fitted, "
        f"{across} of them in two folders (the records left out, see below, hold {left['copies']}, "
        f"{left['across_folders']} of them in two folders: `distinct.md` flags their cells; "
        "`learned/brandubh/net` is a link to `ladders/brandubh/net`, read once). "
        "\"Without plain alpha-beta\" leaves out every game with a plain alpha-beta player on "
        "either side (an `ab:` agent with neither a quiescence search's `:eval=` settings nor a "
        "learned `:nnue=` evaluation): its shares follow the parity of the depth its search "
        "stops at (`../depth-ladders/README.md`), so they measure its horizon as much as the "
        f"rules. The {other} records left out, in "
        + ", ".join(f"`{f}/`" for f in sorted(older_folders))
        + ", are the first study's: their older rules string cannot be matched to today's rules, and "
        "`results/` and `results-networks*/` were played before the rules' second pass changed "
        "Brandubh's and Copenhagen's repetition and Fetlar's king capture. Made by "
        "`presets.py` from the records (`families.pooled_games`), checked by "
        "`balance_stats.py --check` on games with a known side advantage.",
        "",
        "Whether the edge is the same at every strength (`balance_stats.strength_bands`): each "
        "player keeps the strength the pooled fit gave it, the games are ranked by the mean "
        "strength of their two players and cut into three bands of about as many games "
        f"(terciles; games of one mean stay in one band; two bands under {3 * BAND_GAMES} games, one under "
        f"{2 * BAND_GAMES}), and the side is fitted once a band with the strengths held. Only the "
        "games of players who met another player are banded: a player seen in self-play alone "
        "has no measured strength (the fit leaves it at the virtual draw's 0), though its games "
        "count in the pooled edge. Strengths of players never linked by games are set side by "
        "side by the virtual draws alone, so where a variant's matches form separate groups of "
        f"players ({', '.join(mixed) or 'none'}) a band mixes them. \"One edge for every band\" is the "
        "likelihood-ratio test (χ², bands − 1 df) of one side parameter against one a band; "
        "\"drifts\" at p < 0.05, \"constant\" where that is not rejected. The bands are checked "
        "by `balance_stats.py --check` on drawn games with an edge the same in every band and "
        "one that falls with strength.",
        "",
        *markdown_table(header, rows),
        "",
        quiet_sentence(quiet_bands),
    ]


def quiet_sentence(fits):
    """One sentence on the strength bands without plain alpha-beta."""
    banded = {v: s for v, s in fits.items() if s["df"] > 0}
    one = sorted(v for v, s in fits.items() if s["bands"] and s["df"] == 0)
    parts = [f"{v}'s bands are {by_band(s)[0]}, one edge for every band p = {by_band(s)[1]}: it "
             f"{by_band(s)[2] if s['drifts'] else 'reads constant'}" for v, s in banded.items()]
    if one:
        parts.append(f"{', '.join(one)} {'has' if len(one) == 1 else 'have'} one band")
    rest = len(fits) - len(banded) - len(one)
    if rest:
        parts.append(f"in the {'other ' if parts else ''}{rest} variants with such games no two of "
                     "their players met, so no strength is measured")
    return "Without plain alpha-beta: " + "; ".join(parts) + "."


def stored_ladders(variant):
    """Every stored ladder of a variant as (name, reports): the time ladders plain and with a
    quiescence search, the learned evaluation's, the fixed-depth halves (depth-ladders/, even
    and odd depths apart, plain and with quiescence) and the network's; the name is the family
    (families.kind of the strongest agent) and, for a fixed-depth half, its parity."""
    folders = [(LADDERS / variant / "ab", ""), (QUIESCENCE / variant / "ab", ""), (LEARNED / variant / "ab", "")]
    folders += [(DEPTHS / search / parity / "ab", f", {parity} depths")
                for search in (variant, f"{variant}-quiescence") for parity in ("even", "odd")]
    folders.append((LADDERS / variant / "net", ""))
    found = [(load(folder / "balance.json"), what) for folder, what in folders]
    return [(kind(reports[-1]["agent"]) + what, reports) for reports, what in found if reports]


def core_hours(low, high):
    """A cost in core-hours, one figure where both ends agree."""
    def h(x):
        # two figures at most: the estimate is no finer
        return f"{x:.0f}" if x >= 9.95 else f"{x:.1f}" if x >= 0.995 else f"{x:.2f}"
    return h(low) if h(low) == h(high) else f"{h(low)}–{h(high)}"


def hours(s):
    """A shortfall's core-hours: one figure where every level's time is its clock, a range
    where some is `seconds` (one or two games at once), and the levels without a stored time."""
    text = core_hours(*s["hours"])
    if s["untimed"]:
        text += ", plus " + ", ".join(f"{n} games of {name} at {level_name(r)} (no time stored)"
                                      for name, r, _, n, _ in s["untimed"])
    return text


def to_play(s):
    """The games a shortfall still needs, level by level, with the field their time comes from."""
    parts = []
    for name, r, _, missing, time in s["levels"]:
        if missing:
            cost = (f"{core_hours(missing * time[0] / 3600, missing * time[1] / 3600)} h from `{time[2]}`"
                    if time else "no time stored")
            parts.append(f"{name} at {level_name(r)} +{missing} ({cost})")
    return f"{s['missing']}: " + ", ".join(parts) if parts else "0"


def more_games(s):
    """Whether more games at the stored levels can reach "measured", and what else it needs."""
    if all(fixable for _, fixable in s["blocks"]):
        return "yes, were the shares equal: these games give each test 80 % power"
    why = []
    if s["verdicts"][2] == DIFFERENT:
        why.append("the families' strongest levels are shown different, and more games cannot "
                   "make them equivalent: a stronger player is needed")
    if any(v in (TRENDING, LEVELS_DIFFER, "one level") for v in s["verdicts"][:2]):
        why.append("a family's levels disagree, which more games at the same levels cannot undo: "
                   "stronger levels, or a player whose strength is a ladder, are needed")
    if NOT_EQUIVALENT in s["verdicts"]:
        why.append("a test failed with the games 80 % power needs")
    return "no: " + "; ".join(why)


def distances(variants):
    """The section of how far each variant with two families stored is from "measured"
    (issue 45 item 5): the pair of families nearest it, what blocks it, the games still to play
    and their core-hours, and every pair weighed."""
    rows, every = [], []
    for variant in variants:
        ladders = stored_ladders(variant)
        best = nearest(ladders)
        if not best:
            continue
        names = dict(ladders)
        first, second = best["names"]
        rows.append([
            f"[{variant}]({variant}/README.md)",
            "; ".join(f"{name} at {level_name(reports[-1])}: {c['verdict'] if c else 'one level'}"
                      for name, reports in ladders for c in [convergence(reports)]),
            f"{first} at {level_name(names[first][-1])} and {second} at {level_name(names[second][-1])} "
            f"(of {best['pairs']})",
            "; ".join(text for text, _ in best["blocks"]) or "nothing: measured",
            "; ".join(f"{what}: {n} ({stored} stored)" for what, n, stored in best["tests"]),
            to_play(best),
            hours(best),
            more_games(best),
        ])
        for i, (a, ra) in enumerate(ladders):
            for b, rb in ladders[i + 1:]:
                if kind(ra[-1]["agent"]) != kind(rb[-1]["agent"]):
                    s = shortfall((a, ra), (b, rb))
                    every.append([variant, f"{a} / {b}", " / ".join(s["verdicts"]), str(s["missing"]), hours(s),
                                  "yes" if all(f for _, f in s["blocks"]) else "no"])
    header = ["variant", "families: strongest level, verdict", "pair nearest \"measured\" (of the pairs)",
              "what blocks \"measured\"", "games a level for 80 % power (stored)",
              "games still to play", "core-hours for them", "can more games do it?"]
    pair_header = ["variant", "pair", "verdicts: first / second / between their strongest", "games still to play",
                   "core-hours", "more games enough"]
    return [
        "## How far each preset is from measured (issue 45)",
        "",
        "A preset is **measured** when two player families are each measured (no trend, no levels "
        "that differ, their two strongest levels equivalent by TOST at "
        f"±{100 * MARGIN:.1f} points) and equivalent to each other at their strongest levels. "
        "One row a preset with stored ladders of two families or more (plain alpha-beta, "
        "alpha-beta with a quiescence search, with the learned evaluation, the network; a "
        "family's time ladder and its fixed-depth halves in `../depth-ladders/`, even and odd "
        "depths apart, are separate ladders of it). Every pair of ladders of two families is "
        "weighed (`families.shortfall`) and the row shows the one nearest measured "
        "(`families.nearest`): the fewest conditions more games cannot settle (a family that "
        "trends or whose levels differ, families shown different at their strongest levels, a "
        "TOST failed with the games it needs), then the fewest games still to play. The verdicts "
        "are `balance_stats.LABELS`', recomputed from the stored counts as in the table above. "
        "\"Games a level for 80 % power\" are the figures the tests above already give "
        "(`balance_stats.games_for_tost`, were the two shares equal): each family's two strongest "
        "levels, and the two families' strongest; a family's strongest level needs the larger of "
        "its two tests'. \"Games still to play\" are those figures less the games stored, level by "
        "level. Their core-hours come from the stored levels' own time: a timed level's `clock` "
        "(its searched moves × the mean share of the budget they used × the budget: each search "
        "ran on one core, so this is one core's time, under whatever load the level ran with, "
        "which slows a timed search's nodes, not its clock); a level at fixed depth or simulations "
        "has only `seconds`, the run's wall time over the games it played, and the run played one "
        "or two games at once (the store does not say which), so its games cost one to two times "
        "that; where a level was resumed from its store its `seconds` do not count its games, and "
        "it says \"no time stored\". These games give 80 % power only if the shares are equal; "
        "where a condition more games cannot settle stands, they are what the tests would still "
        "need after it is removed, not a path to measured. Made by `presets.py` with the rest of "
        "this file; checked by `balance_stats.py --check` on synthetic ladders with a known answer.",
        "",
        *markdown_table(header, rows),
        "",
        "Every pair weighed:",
        "",
        *markdown_table(pair_header, every),
    ]


def main():
    header = [
        "variant", "board", "family", "levels", "games a level",
        "attackers % by level", "strongest level: attackers / defenders / draws %",
        "trend a doubling, attackers / defenders (log-odds, 95 %, widened by the levels' scatter)",
        "strongest minus next, attackers / defenders (points, 90 %)", "games a level for 80 % power",
        "verdict", "defenders' edge, Elo (every game of the ladder)", "reading",
    ]
    rows, missing = [], []
    for variant, board in presets():
        ab, net = load(LADDERS / variant / "ab/balance.json"), load(LADDERS / variant / "net/balance.json")
        if not ab:
            missing.append(variant)
            continue
        families = [("Alpha-beta, both sides", ab)] + ([("The shipped network, both sides", net)] if net else [])
        label = read(families)
        # one label a cell: the reading's first (a trend outranks levels that differ, which
        # outrank a difference between families); the variant's README gives every clause
        label = label[0].split("**")[1]
        rows.append(family_row(variant, board, "alpha-beta", ab, label, edge(LADDERS / variant, families)))
        # the same family with a quiescence search (quiescence/ladder.sh), where it has been run
        quiet = load(QUIESCENCE / variant / "ab/balance.json")
        if quiet:
            quiet_edge = edge(QUIESCENCE / variant, [("Alpha-beta, quiescence", quiet)])
            rows.append(family_row(variant, board, "alpha-beta, quiescence", quiet, "", quiet_edge))
        # alpha-beta with the shipped learned evaluation (learned/ladder.sh), read against the
        # network's ladder it links
        learned = load(LEARNED / variant / "ab/balance.json")
        if learned:
            pair = [("Alpha-beta with the learned evaluation", learned)]
            pair += [("The shipped network", net)] if net else []
            versus = read(pair)[0].split("**")[1]
            rows.append(family_row(
                variant, board, "alpha-beta, learned evaluation", learned,
                f"[learned and network]({'../learned/' + variant + '/README.md'}): {versus}",
                edge(LEARNED / variant, pair), lead=False,
            ))
        if net:
            rows.append(family_row(variant, board, "network", net, "", ""))
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
        "a logistic fit of the share on log2 of the budget, its 95 % interval widened by the "
        "levels' scatter about the line (quasi-binomial: by the square root of Pearson's χ² a "
        "degree of freedom, never narrowed); \"strongest minus next\" is TOST at ±7.5 points "
        "between the two strongest levels, with the games a level 80 % power for it needs. One "
        "vocabulary (`balance_stats.py`, the same labels as `tavlei balance`): verdict of a family "
        "(recomputed from the stored counts): trending (a slope's widened interval excludes 0), "
        "levels differ without a trend (no slope, but one share for all levels is rejected at "
        "5 %: a zigzag or a spike), measured (neither, and the two strongest levels equivalent), "
        "underpowered (n of N games a level needed) or not equivalent (TOST fails with the games "
        "it needs). Reading (`families.py`, its first label): measured needs both families measured and equivalent "
        "at their strongest levels; different is a 95 % difference between them; with one family "
        "the best is equivalent. The defenders' edge is a Bradley–Terry fit over every game of "
        "the row's ladder (every level of each family and the cross-family matches) with one "
        "parameter for the side, in Elo with its 95 % interval; \"drifts\" where one edge for all "
        "strength bands is rejected at 5 % (`families.py`'s section on it gives the bands). "
        "Rows \"alpha-beta, quiescence\" are the same time ladder with a quiescence search "
        "(`quiescence/ladder.sh VARIANT`, `../quiescence/VARIANT/README.md`): without one, alpha-beta's "
        "balance follows the parity of the depth its search stops at (`../depth-ladders/README.md`), "
        "so the plain rows and the readings made from them measure the search's horizon as much "
        "as the rules. Rows \"alpha-beta, learned evaluation\" are alpha-beta scoring its leaves "
        "with the variant's shipped learned evaluation (`models/VARIANT.nnue`) at fixed depths of "
        "one parity (`learned/ladder.sh VARIANT`), read against the network's ladder in "
        "`../learned/VARIANT/README.md`. "
        "Each variant's README gives the full reading, the cross-family games and the plots.",
        "",
        *markdown_table(header, rows),
    ]
    out += ["", *pooled([v for v, _ in presets() if v not in missing])]
    humans = [f"- {v}: {HUMANS[v]}" for v in HUMANS]
    out += ["", "Human play (`docs/rules.md`), for the variants it exists for:", "", *humans]
    if missing:
        out += ["", "No ladder yet: " + ", ".join(f"`{v}`" for v in missing) + "."]
    out += ["", *distances([v for v, _ in presets() if v not in missing])]
    print("\n".join(out))


if __name__ == "__main__":
    main()
