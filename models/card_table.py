#!/usr/bin/env python3
"""A model card's tables, from its evidence directory.

    python3 models/card_table.py models/brandubh-evidence   # prints the measured table
    python3 models/card_table.py --check models/brandubh.md  # checks a card against its files
    python3 models/card_table.py --paired MATCH_DIR MATCH_DIR  # two matches, opening by opening

The measured table has one row per match report (`*/match.json`), from the card's network's
view (agent A), each side's W-D-L with the win share and its 95% Wilson interval (draws count
as not won). `--check` reads the card's tables and fails, naming the line, where a number
differs from the evidence next to the card (`<name>-evidence/`): every row of the measured
table that names a match directory, every row of the self-play balance table
(`balance/balance.json`), and the game counts of the training row (`run/gen-*/selfplay.json`
and `teacher.json`). In any document it is given (a card or an experiment's README) it also
checks every `sha256 `HEX`` against the last file named in backticks before it on its line, and
every openings claim, written as an HTML comment with paths relative to the document:

    <!-- same openings: MATCH_DIR MATCH_DIR -->      the two matches' pairs start from the same
                                                     openings (in any order)
    <!-- shared openings: MATCH_DIR MATCH_DIR N -->  exactly N of the first's pairs start from
                                                     an opening of the second's

`--paired` prints, for two matches of the same agent B on the same openings, each side's games
won by one match's agent A and not the other's, with the exact two-sided McNemar p."""
import collections
import hashlib
import json
import math
import pathlib
import re
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
    """An agent's budget: the last part of its spec that is not a file (`:eval=`, `:nnue=`) or a
    network setting (`:leaf=K`, `:bf16`, `:int8`)."""
    skipped = ("eval=", "nnue=", "leaf=")
    parts = [p for p in spec.split(":") if not p.startswith(skipped) and p not in ("bf16", "int8")]
    b = parts[-1]
    if spec.startswith("ab:") and b.isdigit():
        return f"depth {b}"
    if b.startswith("t="):
        return re.sub(r"^(\d+)\s*(\D+)$", r"\1 \2", b[2:]) + " a move"
    return f"{b} simulations"


def match_cells(m):
    """The measured table's cells after the opponent, up to the file, for one match report."""
    e = m["elo_pairs"]
    return [
        budget(m["a"]),
        str(m["pairs"]),
        f"{m['score']:.3f}",
        f"{num(e['elo'])} [{num(e['low'])}, {num(e['high'])}]",
        wdl(m["as_attacker"]),
        wdl(m["as_defender"]),
    ]


def share(k, n):
    low, high = wilson(k, n)
    return f"{100 * k / max(n, 1):.1f} % [{low:.1f}, {high:.1f}]"


def balance_cells(b):
    """The self-play balance table's cells of one level."""
    n = b["games"]
    return [
        str(b["simulations"]),
        str(n),
        share(b["attacker_wins"], n),
        share(b["defender_wins"], n),
        share(b["draws"], n),
        f"{b['mean_length']:.0f}",
    ]


def print_table(evidence):
    print("| opponent | budget (both sides) | pairs | score | Elo | as attacker | as defender | file |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(evidence.glob("*/match.json")):
        m = json.loads(path.read_text())
        print(f"| `{m['b']}` | " + " | ".join(match_cells(m)) + f" | `{path.parent.name}/` |")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def same(card_cell, evidence_cell):
    """Equal up to spaces; a side's cell may give the W-D-L alone."""
    a, b = card_cell.replace(" ", ""), evidence_cell.replace(" ", "")
    return a == b or (re.fullmatch(r"\d+-\d+-\d+", a) is not None and b.startswith(a + "("))


def stored_games(run, name):
    return sum(json.loads(p.read_text())["games"] for p in sorted(run.glob(f"gen-*/{name}.json")))


# A stated hash: the file is the last backticked name before it on the line.
HASH = re.compile(r"sha256 `([0-9a-f]+)(?:…|\.\.\.)?`")
FILE = re.compile(r"`([^`\s]+\.[A-Za-z0-9]+)`")
# An openings claim stands on a line of its own (so documentation may quote one in backticks).
OPENINGS = re.compile(r"\s*<!-- (same|shared) openings: (\S+) (\S+)(?: (\d+))? -->\s*")


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_hashes(doc, number, line):
    """Problems with each sha256 stated on one line of `doc` (and how many were checked)."""
    problems, checked = [], 0
    for found in HASH.finditer(line):
        where = f"{doc}:{number}"
        named = FILE.findall(line[: found.start()])
        if not named:
            problems.append(f"{where}: sha256 `{found.group(1)}` names no file before it")
            continue
        path = doc.parent / named[-1]
        stated = found.group(1)
        if len(stated) < 12:
            problems.append(f"{where}: sha256 `{stated}` of {path}: give at least 12 hex digits")
            continue
        if not path.is_file():
            problems.append(f"{where}: sha256 `{stated}` of {path}: no such file")
            continue
        actual = sha256(path)
        if not actual.startswith(stated):
            problems.append(f"{where}: sha256 says `{stated}`, {path} has `{actual[: len(stated)]}`")
        checked += 1
    return problems, checked


def match_games(match):
    """A stored match's games by id, each its list of moves: `games.jsonl` (the store), or the
    `games.txt` records of matches stored before it."""
    store = match / "games.jsonl"
    if store.exists():
        games = (json.loads(line) for line in store.read_text().splitlines() if line.strip())
        return {g["id"]: g["moves"] for g in games}
    games, current = {}, None
    for line in (match / "games.txt").read_text().splitlines():
        header = re.match(r"# game (\d+):", line)
        if header:
            current = games.setdefault(int(header.group(1)), [])
        elif current is not None and line and not line.startswith("["):
            current.extend(line.split())
    return games


def pair_openings(match):
    """The opening of each pair of a stored match: the first `openings.plies` moves of its games
    2p and 2p+1 (2 random plies in reports from before openings were drawn), and the pairs whose
    two games do not start alike."""
    report = json.loads((match / "match.json").read_text())
    plies = (report.get("openings") or {}).get("plies", 2)
    games = match_games(match)
    openings, unlike = [], []
    for p in range(report["pairs"]):
        first, second = games.get(2 * p), games.get(2 * p + 1)
        if first is None or second is None or first[:plies] != second[:plies]:
            unlike.append(p)
        if first is not None:
            openings.append(tuple(first[:plies]))
    return openings, unlike


def check_openings(doc, number, line):
    """Problems with each openings claim on one line of `doc` (and how many were checked)."""
    problems, checked = [], 0
    for claim in filter(None, [OPENINGS.fullmatch(line)]):
        where = f"{doc}:{number}"
        kind, a, b, said = claim.groups()
        stores = [doc.parent / a, doc.parent / b]
        missing = [str(s) for s in stores if not (s / "match.json").exists()]
        if missing:
            problems.append(f"{where}: no stored match (match.json) at {', '.join(missing)}")
            continue
        if (kind == "shared") != (said is not None):
            problems.append(f"{where}: `same openings` takes two matches, `shared openings` a count too")
            continue
        (first, unlike_a), (second, unlike_b) = pair_openings(stores[0]), pair_openings(stores[1])
        for store, unlike in [(stores[0], unlike_a), (stores[1], unlike_b)]:
            if unlike:
                problems.append(f"{where}: {store}: pairs {unlike} have no two games alike")
        shared = sum((collections.Counter(first) & collections.Counter(second)).values())
        holds = (
            shared == len(first) == len(second) if kind == "same" else shared == int(said)
        )
        if not holds:
            problems.append(
                f"{where}: {kind} openings claimed, but {stores[0]} ({len(first)} pairs) and "
                f"{stores[1]} ({len(second)} pairs) share {shared} openings"
            )
        checked += 1
    return problems, checked


def check(card):
    evidence = card.with_name(card.stem + "-evidence")
    problems = []
    checked = 0
    hashes = claims = 0
    balance = evidence / "balance" / "balance.json"
    levels = {b["simulations"]: b for b in json.loads(balance.read_text())} if balance.exists() else {}
    header = []
    for number, line in enumerate(card.read_text().splitlines(), 1):
        found, count = check_hashes(card, number, line)
        problems += found
        hashes += count
        found, count = check_openings(card, number, line)
        problems += found
        claims += count
        if not line.startswith("|"):
            header = []
            continue
        row = cells(line)
        if not header:
            header = row
            continue
        if set(line) <= set("|- "):
            continue
        where = f"{card}:{number}"
        if header[:2] == ["opponent", "budget (both sides)"]:
            found = re.fullmatch(r"`([^`]+)/`", row[-1])
            report = evidence / found.group(1) / "match.json" if found else None
            if report is None or not report.exists():
                problems.append(f"{where}: the row names no match report under {evidence}")
                continue
            wanted = match_cells(json.loads(report.read_text()))
            for name, have, want in zip(header[1:7], row[1:7], wanted):
                if not same(have, want):
                    problems.append(f"{where}: {name} says `{have}`, {report} gives `{want}`")
            checked += 1
        elif header[:3] == ["simulations", "games", "attackers"]:
            level = levels.get(int(row[0])) if row[0].isdigit() else None
            if level is None:
                problems.append(f"{where}: no level of {row[0]} simulations in {balance}")
                continue
            for name, have, want in zip(header, row, balance_cells(level)):
                if not same(have, want):
                    problems.append(f"{where}: {name} says `{have}`, {balance} gives `{want}`")
            checked += 1
        elif row[0] == "training":
            run = evidence / "run"
            for kind, name in [("self-play", "selfplay"), ("teacher", "teacher")]:
                said = re.search(rf"(\d+) x (\d+) (?:\*\*)?{kind} games", row[1])
                if not said:
                    continue
                asked = int(said.group(1)) * int(said.group(2))
                stored = stored_games(run, name)
                if stored != asked and f"{stored:,}" not in row[1]:
                    problems.append(
                        f"{where}: {said.group(0)} asked, {stored:,} {kind} games stored in "
                        f"{run}/gen-*/{name}.json: say so"
                    )
                checked += 1
    for p in problems:
        print(p)
    against = evidence if evidence.is_dir() else "no evidence directory"
    print(
        f"{card}: {checked} rows checked against {against}, {hashes} sha256, "
        f"{claims} openings claims, {len(problems)} problems"
    )
    return not problems


def side_wins(match):
    """Whether agent A won each side's game of each opening of a stored match, keyed by the
    opening, its occurrence (random plies may repeat one) and A's side."""
    report = json.loads((match / "match.json").read_text())
    plies = (report.get("openings") or {}).get("plies", 2)
    games = []
    store = match / "games.jsonl"
    if store.exists():
        for line in store.read_text().splitlines():
            if line.strip():
                g = json.loads(line)
                side = "attackers" if g["attacker"] == 0 else "defenders"
                games.append((g["moves"][:plies], side, g["outcome"]["winner"] == side))
    else:
        for record in (match / "games.txt").read_text().split("# game ")[1:]:
            head = record.splitlines()[0]
            a_attacks = head.split(": ", 1)[1].startswith(report["a"] + " (attackers)")
            side = "attackers" if a_attacks else "defenders"
            result = re.search(r'\[result "(\w+)', record)
            moves = [m for m in record.splitlines()[1:] if m and not m.startswith("[")]
            won = result is not None and result.group(1) == side
            games.append((" ".join(moves).split()[:plies], side, won))
    seen = collections.Counter()
    wins = {}
    for opening, side, won in games:
        key = (tuple(opening), side)
        wins[key + (seen[key],)] = won
        seen[key] += 1
    return wins


def mcnemar(b, c):
    """Exact two-sided McNemar p of b against c discordant pairs."""
    n = b + c
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n) if n else 1.0


def print_paired(first, second):
    x, y = side_wins(first), side_wins(second)
    for side in ["attackers", "defenders"]:
        keys = [k for k in x if k[1] == side and k in y]
        only_first = sum(x[k] and not y[k] for k in keys)
        only_second = sum(y[k] and not x[k] for k in keys)
        print(
            f"as {side}: {len(keys)} openings in both, won by both {sum(x[k] and y[k] for k in keys)}, "
            f"only {first.name} {only_first}, only {second.name} {only_second}, "
            f"McNemar p = {mcnemar(only_first, only_second):.3f}"
        )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--paired":
        print_paired(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
        sys.exit(0)
    if len(sys.argv) >= 3 and sys.argv[1] == "--check":
        ok = all([check(pathlib.Path(c)) for c in sys.argv[2:]])
        sys.exit(0 if ok else 1)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print_table(pathlib.Path(sys.argv[1]))
