#!/usr/bin/env python3
"""A model card's tables, from its evidence directory.

    python3 models/card_table.py models/brandubh-evidence   # prints the measured table
    python3 models/card_table.py --check models/brandubh.md  # checks a card against its files

The measured table has one row per match report (`*/match.json`), from the card's network's
view (agent A), each side's W-D-L with the win share and its 95% Wilson interval (draws count
as not won). `--check` reads the card's tables and fails, naming the line, where a number
differs from the evidence next to the card (`<name>-evidence/`): every row of the measured
table that names a match directory, every row of the self-play balance table
(`balance/balance.json`), and the game counts of the training row (`run/gen-*/selfplay.json`
and `teacher.json`)."""
import json
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
    b = spec.rsplit(":", 1)[-1]
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


def check(card):
    evidence = card.with_name(card.stem + "-evidence")
    problems = []
    checked = 0
    balance = evidence / "balance" / "balance.json"
    levels = {b["simulations"]: b for b in json.loads(balance.read_text())} if balance.exists() else {}
    header = []
    for number, line in enumerate(card.read_text().splitlines(), 1):
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
    print(f"{card}: {checked} rows checked against {evidence}, {len(problems)} problems")
    return not problems


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--check":
        ok = all([check(pathlib.Path(c)) for c in sys.argv[2:]])
        sys.exit(0 if ok else 1)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print_table(pathlib.Path(sys.argv[1]))
