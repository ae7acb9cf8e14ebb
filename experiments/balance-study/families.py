#!/usr/bin/env python3
"""The reading of one variant's strength ladder (ladder.sh): each family's levels with the trend
test and equivalence verdict (balance_stats.py, as `tavlei balance` computes them since issue 45,
recomputed here from the stored counts), the two families compared at their strongest levels
(TOST), the cross-family games (whose attack and whose defence is stronger), and the defenders'
advantage in Elo over every game. Every verdict is one label of balance_stats.LABELS.

    python3 experiments/balance-study/families.py experiments/balance-study/ladders/VARIANT [SCRIPT]

Reads DIR/ab/balance.json, DIR/net/balance.json and DIR/cross*/match.json (the last two where
they exist) and prints Markdown; SCRIPT names the script that made the ladder (ladder.sh unless
given). DIR/ab is plain alpha-beta's ladder, or the learned evaluation's (`ab:D:nnue=FILE`). Shares are in points of 100; Wilson intervals at 95 %; a
difference of two shares has Newcombe's hybrid score interval (each share's Wilson interval
combined), at 90 % for an equivalence test (TOST at 5 %) and at 95 % for a difference.
"""
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
# experiments/: how games ended is read and written as the other studies' tables do it
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from balance_stats import (  # noqa: E402
    DIFFERENT, EQUIVALENT, LEVELS_DIFFER, MEASURED, NOT_EQUIVALENT, TRENDING, Z90, Z95, comparison_verdict,
    difference, elo, games_for_tost, ladder_verdict, side_fit, strength_bands, trend_test, wilson,
)
from end_reasons import end_counts, ends_cell, match_games, read_games  # noqa: E402

MARGIN = 0.075  # the study's default equivalence margin (tavlei balance --margin 7.5)
# Balance in recorded human play, as docs/rules.md gives it.
HUMANS = {
    "copenhagen": "1,752 games: attackers 43.8 %, defenders 55.8 %, draws 0.4 %",
    "brandubh": "523 games: attackers 40.2 %, defenders 59.5 %, draws 0.4 %",
    "fetlar": "the defenders win 58.7 % of the decisive games",
}


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


def log2_budget(r):
    """A level's budget on a log scale, as `tavlei balance` fits it: milliseconds or simulations."""
    return math.log2(r["time_ms"]) if r["time_ms"] > 0 else math.log2(max(r["simulations"], 1))


def convergence(reports):
    """A family's tests, computed from its levels' counts (the verdicts stored with older games
    came from a trend test without a goodness of fit): the trend test of each share, TOST of the
    two strongest levels, the games that TOST needs and the family's verdict. None below two
    levels."""
    if len(reports) < 2:
        return None
    trends = [
        trend_test([(log2_budget(r), r[key], r["games"]) for r in reports]) for _, key in SIDES
    ]
    top, below = reports[-1], reports[-2]
    equivalences = [difference(top[key], top["games"], below[key], below["games"], Z90) for _, key in SIDES]
    needed = max(
        games_for_tost((top[key] + below[key] + 0.5) / (top["games"] + below["games"] + 1), MARGIN)
        for _, key in SIDES
    )
    games = min(top["games"], below["games"])
    return {
        "trends": trends, "equivalences": equivalences, "needed": needed,
        "verdict": ladder_verdict(trends, equivalences, games, needed, MARGIN),
    }


def level_edge(r):
    """The defenders' advantage in Elo in one level's own games."""
    return side_fit(1, [(0, 0, 0, r["defender_wins"] + 0.5 * r["draws"], r["games"])])["pooled"]


def trend_text(t):
    fit = f"; line fit p = {t['fit_p']:.2g}" if t["fit_df"] > 0 else ""
    return (
        f"{t['slope']:+.2f} [{t['quasi_low']:+.2f}, {t['quasi_high']:+.2f}] "
        f"(dispersion {t['dispersion']:.1f}{fit}; one share for all levels p = {t['levels_p']:.2g})"
    )


def family_table(name, reports):
    lines = [
        f"### {name}",
        "",
        "| level | games (distinct) | openings | attackers % | defenders % | draws % | defenders' edge, Elo | mean length |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
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
            f"{share(r['draws'], n)} | {elo(level_edge(r))} | {r['mean_length']:.0f} |"
        )
    top = reports[-1]
    c = convergence(reports)
    if c:
        (att, dfn), (eatt, edfn) = c["trends"], c["equivalences"]
        lines += [
            "",
            f"Verdict at {level_name(top)}: **{c['verdict']}**. Log-odds slope a doubling of the "
            f"{'depth' if level_name(top).startswith('depth') else 'budget'} (95 %, widened by the "
            f"levels' scatter about the line): attackers {trend_text(att)}, defenders "
            f"{trend_text(dfn)}. Difference to the level below (90 %, margin "
            f"±{100 * MARGIN:.1f} points): attackers {points(eatt)}, defenders {points(edfn)}; "
            f"80 % power for that test needs {c['needed']} games a level.",
        ]
        stored = (top.get("convergence") or {}).get("verdict")
        if stored and stored != c["verdict"]:
            lines.append(
                f"(The verdict stored with these games, by `tavlei balance` before issue 45's trend "
                f"test, was \"{stored}\".)"
            )
    duplicated = [r for r in reports if r.get("distinct_games", r["games"]) < r["games"]]
    for r in duplicated:
        lines.append(
            f"\n{level_name(r)} holds {r['games'] - r['distinct_games']} copies of other games: "
            "its intervals count them as independent and are too narrow."
        )
    return lines


def records(folder):
    """Every game record stored under `folder` (its `*.txt` files that start with a game header,
    the format `tavlei replay` reads), none where it holds none."""
    games = []
    for path in sorted(Path(folder).rglob("*.txt")) if Path(folder).is_dir() else []:
        with path.open() as f:
            if f.readline().startswith("# game "):
                games += read_games(path)
    return games


def same_results(counts, attackers, defenders, draws):
    """Whether the counted records hold exactly a report's attacker wins, defender wins and draws."""
    return [sum(counts[k].values()) for k in ("attackers", "defenders", "draw")] == [attackers, defenders, draws] \
        and sum(sum(c.values()) for c in counts.values()) == attackers + defenders + draws


REPETITION = (
    "A win by repetition is the variant's repetition rule ending the game (in Brandubh and "
    "Copenhagen the fourth occurrence of a position loses for the defenders, whoever made the "
    "move: `docs/rules.md`), not a capture or an escape."
)


def ends_table(source, head, rows):
    """How the games ended: a table of each side's wins and the draws by end reason, one row per
    (first cells, counts) of `rows`, under a line naming the records (`source`); none without
    rows."""
    if not rows:
        return []
    lines = [
        "",
        f"How the games ended ({source}), each side's wins and the draws by end reason:",
        "",
        f"| {head} | attackers' wins | defenders' wins | draws |",
        "| --- " * (head.count("|") + 4) + "|",
    ]
    for first, c in rows:
        lines.append(f"| {first} | {ends_cell(c['attackers'])} | {ends_cell(c['defenders'])} | {ends_cell(c['draw'])} |")
    if any(c["attackers"]["repetition"] or c["defenders"]["repetition"] for _, c in rows):
        lines += ["", REPETITION]
    return lines


def once(lines, note):
    """`lines` with `note` (and the blank line before it) kept only where it first stands."""
    kept, seen = [], False
    for line in lines:
        if line == note:
            if seen:
                kept.pop()
                continue
            seen = True
        kept.append(line)
    return kept


def family_ends(folder, reports):
    """The ends table of a family's levels, from the self-play records stored in `folder`; a level
    whose records do not hold its report's results is named, not counted."""
    games = [g for g in records(folder) if g["attacker"] == g["defender"]]
    if not games:
        return []
    rows, unmatched = [], []
    for r in reports:
        c = end_counts([g for g in games if g["attacker"] == r["agent"]])
        if same_results(c, r["attacker_wins"], r["defender_wins"], r["draws"]):
            rows.append((level_name(r), c))
        else:
            unmatched.append(level_name(r))
    lines = ends_table(f"the game records under `{Path(folder).name}/`", "level", rows)
    if unmatched:
        lines += ["", f"No records matching the results of {', '.join(unmatched)}: their ends are not given."]
    return lines


def cross_ends(folder, m, rows):
    """The ends table of the cross-family games (rows as cross_rows gives them), from the match's
    records; none where they are missing or do not hold the report's results."""
    games = match_games(folder, m["a"], m["b"]) or []
    found = []
    for attack, defence, w, dr, l in rows:
        c = end_counts([g for g in games if g["attacker"] == attack and g["defender"] == defence])
        if not same_results(c, w, l, dr):
            return []
        found.append((f"`{attack}` | `{defence}`", c))
    stored = "games.jsonl" if (Path(folder) / "games.jsonl").exists() else "games.txt"
    return ends_table(f"the match's records, `{Path(folder).name}/{stored}`", "attack | defence", found)


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


def between(a, b):
    """Two levels' shares compared, a minus b, for both sides: the 90 % differences (TOST), the
    sides apart at 95 %, the games a level 80 % power for TOST needs were the shares equal (at
    their pooled share), and the verdict (different / equivalent / underpowered / not
    equivalent)."""
    (_, att), (_, dfn) = sides(a, b, Z90)
    needed = max(
        games_for_tost((a[key] + b[key] + 0.5) / (a["games"] + b["games"] + 1), MARGIN) for _, key in SIDES
    )
    games, shown = min(a["games"], b["games"]), apart(a, b)
    return {"equivalences": [att, dfn], "apart": shown, "needed": needed, "games": games,
            "verdict": comparison_verdict([att, dfn], bool(shown), games, needed, MARGIN)}


def read(families):
    """The ladder's reading, a list of clauses whose first words (bold) are one label of the
    study's vocabulary (balance_stats.LABELS): trending / levels differ without a trend /
    different / measured / underpowered (n of N games a level needed) / not equivalent; with one
    family (no network for the variant) "measured" cannot be said, as it needs two: its best
    is "equivalent"."""
    tests = {name: convergence(r) for name, r in families}
    verdicts = {name: c["verdict"] if c else "one level" for name, c in tests.items()}
    short = {name: name.split(",")[0].lower() for name, _ in families}
    reading = []
    for label, says in ((TRENDING, "still moves with strength"),
                        (LEVELS_DIFFER, "has levels whose shares disagree without a trend")):
        who = [short[name] for name, v in verdicts.items() if v == label]
        if who:
            reading.append(f"**{label}**: " + " and ".join(f"{w} {says}" for w in who))
    (first, own), *rest = families
    top = own[-1]
    # the level the strongest is compared with: the other family's strongest, else the one below
    other = rest[0][1][-1] if rest else own[-2] if len(own) > 1 else top
    c = between(top, other)
    # with one family `other` is its own next level: a gap there is its verdict's, not a
    # difference between families
    shown = c["apart"] if rest else []
    if shown:
        reading.append(
            f"**{DIFFERENT}**: at their strongest levels alpha-beta minus the network is "
            + ", ".join(f"{side} {points(d)} points (95 %)" for side, d in shown)
        )
    if reading:
        return reading
    (att, dfn), needed, compared = c["equivalences"], c["needed"], c["verdict"]
    if not rest:
        if verdicts[first] == MEASURED:
            return [
                f"**{EQUIVALENT}**: alpha-beta neither trends nor differs between levels, and its two "
                f"strongest levels agree within ±{100 * MARGIN:.1f} points; \"{MEASURED}\" needs a "
                "second family to agree"
            ]
        label = verdicts[first] if verdicts[first] != "one level" else compared
        return [
            f"**{label}**: no trend and no difference between levels shown, in one family only "
            f"(alpha-beta's two strongest levels {100 * abs(att[0]):.1f} and {100 * abs(dfn[0]):.1f} "
            f"points apart); were the shares equal, about {needed} games a level would show them "
            f"within ±{100 * MARGIN:.1f} points"
        ]
    if compared == EQUIVALENT:
        unsettled = [v for v in verdicts.values() if v != MEASURED]
        if not unsettled:
            return [f"**{MEASURED}**: both families agree at their strongest levels and neither trends"]
        compared = unsettled[0]
    return [
        f"**{compared}**: no trend and no difference shown, in either family or between them (the "
        f"strongest levels {100 * abs(att[0]):.1f} and {100 * abs(dfn[0]):.1f} points apart); were "
        f"the shares equal, about {needed} games a level would show them within "
        f"±{100 * MARGIN:.1f} points (80 % power)"
    ]


def variant_games(directory, families):
    """Every game of a ladder as (attacker, defender, band, defender points, games), one player
    a level of a family, and the players' names: each family's self-play and every cross-family
    match stored beside it (DIR/cross*/match.json). A level's band is its rank from its family's
    strongest (0); a match's band is its stronger player's."""
    players, band, games = [], [], []
    for _, reports in families:
        for rank, r in enumerate(reversed(reports)):
            players.append(r["agent"])
            band.append(rank)
            i = len(players) - 1
            games.append((i, i, rank, r["defender_wins"] + 0.5 * r["draws"], r["games"]))
    for path in sorted(Path(directory).glob("cross*/match.json")):
        m = load(path)
        for name in (m["a"], m["b"]):
            if name not in players:
                players.append(name)
                band.append(0)
        a, b = players.index(m["a"]), players.index(m["b"])
        pair = min(band[a], band[b])
        att, dfn = m["as_attacker"], m["as_defender"]
        games.append((a, b, pair, att["losses"] + 0.5 * att["draws"], att["wins"] + att["draws"] + att["losses"]))
        games.append((b, a, pair, dfn["wins"] + 0.5 * dfn["draws"], dfn["wins"] + dfn["draws"] + dfn["losses"]))
    return players, games


def stored_games(root):
    """Every game record under `root` (the `*.txt` files `tavlei balance` and `tavlei match`
    write beside their stores), each with the folder it is stored in (`games/` left off); a
    file reached twice through a linked folder is read once."""
    root, files, records = Path(root), set(), []
    for path in sorted(root.rglob("*.txt")):
        if path.resolve() in files:
            continue
        files.add(path.resolve())
        with path.open() as f:
            if not f.readline().startswith("# game "):
                continue  # a match's terminal output, not its records
        folder = path.parent.parent if path.parent.name == "games" else path.parent
        records += [dict(g, folder=folder.relative_to(root).as_posix()) for g in read_games(path)]
    return records


def plain_alpha_beta(agent):
    """Alpha-beta without a quiescence search (`:eval=` settings) or a learned evaluation
    (`:nnue=`): its shares follow the parity of the depth its search stops at
    (depth-ladders/README.md)."""
    return agent.startswith("ab:") and ":eval=" not in agent and ":nnue=" not in agent


DEFENDER_POINTS = {"attackers": 0.0, "draw": 0.5, "defenders": 1.0}


def pooled_games(records, variant, rules, keep=lambda agent: True):
    """One data set for side_fit of every stored game of `variant` played under `rules` whose
    two agents `keep` accepts: one player an agent spec, wherever it played (its strength one
    parameter across folders), one band, each game once (a record with the same players and
    moves stored twice is one game). A dict of the players, the games, the folders they came
    from, the copies left out (and those of them whose first record is in another folder), and
    the folders holding records of the variant under another rules string, with their count."""
    players, games, first, folders, elsewhere = {}, [], {}, set(), set()
    copies = across = other_rules = 0
    for g in records:
        if g["variant"] != variant or not (keep(g["attacker"]) and keep(g["defender"])):
            continue
        if g["rules"] != rules:
            other_rules += 1
            elsewhere.add(g["folder"])
            continue
        key = (g["attacker"], g["defender"], g["moves"])
        if key in first:
            copies += 1
            across += first[key] != g["folder"]
            continue
        first[key] = g["folder"]
        folders.add(g["folder"])
        a = players.setdefault(g["attacker"], len(players))
        d = players.setdefault(g["defender"], len(players))
        games.append((a, d, 0, DEFENDER_POINTS[g["result"].split(" ")[0]], 1))
    return {"players": list(players), "games": games, "folders": sorted(folders), "copies": copies,
            "across_folders": across, "other_rules": other_rules, "other_folders": sorted(elsewhere)}


def pooled_side(data, **fit):
    """The defenders' advantage in Elo over a pooled data set (side_fit's "pooled"), None
    without games."""
    return side_fit(len(data["players"]), data["games"], **fit)["pooled"] if data["games"] else None


def pooled_bands(data, **fit):
    """The pooled data set's defenders' advantage and its constancy across strength bands
    (balance_stats.strength_bands), None without games."""
    return strength_bands(len(data["players"]), data["games"], **fit) if data["games"] else None


# --- how far two families are from "measured" (issue 45 item 5) ---------------------------


def kind(agent):
    """The player family of an agent spec: the network, or alpha-beta plain, with a quiescence
    search (`:eval=`) or with a learned evaluation (`:nnue=`)."""
    if agent.startswith("net:"):
        return "network"
    if ":nnue=" in agent:
        return "alpha-beta, learned evaluation"
    return "alpha-beta, quiescence" if ":eval=" in agent else "alpha-beta"


def core_time(r):
    """(low, high, field): one core's seconds a game at level r, from what its store carries,
    None where it carries neither field. A timed level's `clock` gives them whole: its searched
    moves times the mean share of the budget they took, each search on one core (a load beside
    it costs a timed search nodes, not time). Other levels have only `seconds`, the run's wall
    time over the games it played then: the run played one or two games at once, which the
    store does not record, so one to two times that (about 0 where every game came from the
    store, read as no time)."""
    clock = r.get("clock")
    if clock and r["time_ms"] > 0:
        t = clock["moves"] * clock["mean"] * r["time_ms"] / 1000 / r["games"]
        return t, t, "clock"
    # no search here plays a ply in under a tenth of a millisecond: less is a run that found
    # the level's games stored and counted only its own few moments
    if r.get("seconds", 0) > 1e-4 * r["games"] * max(r["mean_length"], 1):
        t = r["seconds"] / r["games"]
        return t, 2 * t, "seconds"
    return None


def shortfall(first, second):
    """How far two families (name, reports), their levels weakest first, are from "measured"
    together: each family's own tests (convergence) and TOST between their strongest levels
    (between). "verdicts": each family's and the pair's label; "blocks": the conditions that
    fail, each (text, whether more games at the same levels can settle it: not a trend, levels
    that disagree, a shown difference or a TOST failed with the games it needs); "tests": each
    test's (what, games a level 80 % power needs, games stored); "levels": (family, level report,
    games 80 % power needs there, games missing, core_time) for every level a test needs, a
    family's strongest level serving its own test and the families' one (so the larger need);
    "missing": the games still to play; "hours": their core-hours (low, high) over the levels
    whose store carries a time, "untimed": the levels lacking games whose store carries none."""
    pair = between(first[1][-1], second[1][-1])
    blocks, tests, levels, verdicts = [], [], [], []
    for name, reports in (first, second):
        c = convergence(reports)
        verdicts.append(c["verdict"] if c else "one level")
        shares = ", ".join(f"{100 * r['attacker_wins'] / r['games']:.0f}" for r in reports)
        if c is None:
            blocks.append((f"{name}: one level, so no trend test", False))
        elif c["verdict"] in (TRENDING, LEVELS_DIFFER):
            blocks.append((f"{name} ({shares} % attackers by level): {c['verdict']}", False))
        elif c["verdict"] == NOT_EQUIVALENT:
            # the games 80 % power needs are played: the two levels are further apart than
            # equal shares would be
            blocks.append((f"{name}: its two strongest levels {c['verdict']}", False))
        elif c["verdict"] != MEASURED:
            blocks.append((f"{name}: its two strongest levels {c['verdict']}", True))
        own = c["needed"] if c else 0
        if c:
            top, below = reports[-1], reports[-2]
            tests.append((f"{name}: {level_name(top)} against {level_name(below)}", own,
                          f"{top['games']} / {below['games']}"))
        needs = [(reports[-1], max(own, pair["needed"]))] + ([(reports[-2], own)] if c else [])
        levels += [(name, r, n, max(0, n - r["games"]), core_time(r)) for r, n in needs]
    verdicts.append(pair["verdict"])
    tests.append(("the families' strongest levels", pair["needed"],
                  f"{first[1][-1]['games']} / {second[1][-1]['games']}"))
    if pair["verdict"] == DIFFERENT:
        blocks.append((
            f"the families shown different at their strongest levels ({first[0]} minus {second[0]}: "
            + ", ".join(f"{side} {points(d)} points" for side, d in pair["apart"]) + ", 95 %)",
            False,
        ))
    elif pair["verdict"] == NOT_EQUIVALENT:
        blocks.append((f"the families {pair['verdict']} at their strongest levels", False))
    elif pair["verdict"] != EQUIVALENT:
        blocks.append((f"the families not shown equivalent at their strongest levels: {pair['verdict']}", True))
    short = [level for level in levels if level[3]]
    timed = [level for level in short if level[4]]
    hours = tuple(sum(level[3] * level[4][i] for level in timed) / 3600 for i in (0, 1))
    return {"pair": pair, "verdicts": verdicts, "blocks": blocks, "tests": tests, "levels": levels,
            "missing": sum(level[3] for level in levels), "hours": hours,
            "untimed": [level for level in short if not level[4]]}


def nearest(ladders):
    """Of every pair of stored ladders of two different families ((name, reports), in the
    order given), the shortfall of the one nearest "measured": the fewest conditions more games
    cannot settle, then the fewest games missing. With the pair's names and the pairs weighed;
    None below two families."""
    pairs = [(a, b) for i, a in enumerate(ladders) for b in ladders[i + 1:]
             if kind(a[1][-1]["agent"]) != kind(b[1][-1]["agent"])]
    if not pairs:
        return None
    weighed = [(a, b, shortfall(a, b)) for a, b in pairs]
    a, b, s = min(weighed, key=lambda w: (sum(not ok for _, ok in w[2]["blocks"]), w[2]["missing"]))
    return dict(s, names=(a[0], b[0]), pairs=len(pairs))


def side_section(directory, families):
    """The defenders' advantage in Elo over every game of the ladder, by band, and its constancy."""
    players, games = variant_games(directory, families)
    s = side_fit(len(players), games)
    bands = ", ".join(
        f"{'strongest' if b == 0 else f'{b} below'} {elo(a)} ({a['games']:.0f} games)"
        for b, a in enumerate(s["bands"]) if a
    )
    if s["df"] == 0:
        constancy = "one band only"
    elif s["drifts"]:
        where = "the strongest levels" if s["farthest"] == 0 else f"{s['farthest']} below the strongest"
        constancy = f"**not constant** (likelihood ratio {s['lr']:.1f} on {s['df']} df, p = {s['p']:.2g}): farthest from the pooled figure at {where}"
    else:
        constancy = f"constant within what the games show (likelihood ratio {s['lr']:.1f} on {s['df']} df, p = {s['p']:.2g})"
    return [
        "### The defenders' advantage in Elo",
        "",
        f"A Bradley–Terry fit over all {s['pooled']['games']:.0f} games of this ladder (every level of "
        "each family and the cross-family matches; one strength a player, one parameter for the "
        "side, draws half a point, one virtual draw a player and one for the side): the defenders "
        f"are **{elo(s['pooled'])} Elo** (95 %) stronger than the attackers. By strength band (a "
        f"level's rank from its family's strongest): {bands}; {constancy}.",
        "",
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
    # alpha-beta scoring its leaves with a learned evaluation is a family of its own
    learned = ":nnue=" in ab[-1]["agent"]
    first = "Alpha-beta with the learned evaluation, both sides" if learned else "Alpha-beta, both sides"
    families = [(first, ab)] + ([("The shipped network, both sides", net)] if net else [])
    for (name, reports), folder in zip(families, ("ab", "net")):
        out += family_table(name, reports) + family_ends(d / folder, reports) + [""]

    reading = read(families)
    if net:
        a, b = ab[-1], net[-1]
        c = between(a, b)
        (att, dfn), verdict = c["equivalences"], c["verdict"]
        out += [
            "### The two families at their strongest levels",
            "",
            f"Alpha-beta at {level_name(a)} minus the network at {level_name(b)} (90 %, TOST at "
            f"±{100 * MARGIN:.1f} points): attackers {points(att)}, defenders {points(dfn)}: "
            f"**{verdict}**.",
            "",
        ]
    if cross:
        rows = cross_rows(cross)
        # the network's attack first, whichever agent the match named first
        if not rows[0][0].startswith("net:"):
            rows.reverse()
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
        out += cross_ends(d / "cross", cross, rows) + [""]
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
    out += side_section(d, families)
    if reading:
        out += ["### Reading", "", "; ".join(reading) + "."]
    if variant in HUMANS:
        out += ["", f"Human play (`docs/rules.md`): {HUMANS[variant]}."]
    print("\n".join(once(out, REPETITION)))


if __name__ == "__main__":
    main(*(sys.argv[1:3] or ["."]))
