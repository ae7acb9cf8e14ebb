#!/usr/bin/env python3
"""Copies among a balance table's games (issue 45, item 6): for every cell of the balance
studies whose tables this README cites, the games stored, the distinct ones (move lists that
differ from every other game's), and the attackers' share with its 95 % Wilson interval over all
the games and over the distinct ones only (each move list once). A cell whose games include
copies is flagged **copies**: its intervals count copies as independent games and are too
narrow.

    python3 experiments/balance-study/distinct.py [STUDY_DIR...]

Reads the records `tavlei balance` writes beside its stores (`STUDY_DIR/games/*.txt`, the
format `tavlei replay` reads), so it needs no store. Default: the older tables of
experiments/balance-study and the networks' tables the README cites. Standard library only.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# experiments/: the record files' reader is shared with the other studies' tables
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from balance_stats import Z95, wilson  # noqa: E402
from end_reasons import read_games  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = [
    "experiments/balance-study/results-ab",
    "experiments/balance-study/results",
    "experiments/balance-study/results-networks",
    "experiments/balance-study/results-networks-tavlei",
    "models/brandubh-evidence/balance",
    "models/copenhagen-evidence/balance",
    "models/tavlei-evidence/balance",
    "models/previous/brandubh-gen16-evidence/balance",
    "models/previous/brandubh-gen20-evidence/balance",
    "models/previous/copenhagen-gen8-evidence/balance",
    "models/previous/tavlei-gen8-evidence/balance",
    "experiments/learning/tavlei-teacher/balance",
]


def read_records(path):
    """(agent, [(moves, result)]) of a study's record file, one agent playing itself."""
    games = read_games(path)
    agent = games[0]["attacker"] if games else None
    return agent, [(g["moves"], g.get("result", "").split(" ")[0] or None) for g in games]


def share(games):
    n = len(games)
    k = sum(1 for _, r in games if r == "attackers")
    low, high = wilson(k, n, Z95)
    return f"{100 * k / max(n, 1):.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def cells(study):
    for path in sorted((ROOT / study / "games").glob("*.txt")):
        agent, games = read_records(path)
        variant = path.name.split("__", 1)[0]
        firsts, seen = [], set()
        for moves, result in games:
            if moves not in seen:
                seen.add(moves)
                firsts.append((moves, result))
        yield variant, agent, games, firsts


def main(studies):
    print("| study | variant | agent | games | distinct | attackers %, all games | attackers %, distinct games | |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for study in studies:
        for variant, agent, games, firsts in cells(study):
            copies = len(firsts) < len(games)
            print(
                f"| `{study}` | {variant} | `{agent}` | {len(games)} | {len(firsts)} | {share(games)} | "
                f"{share(firsts) if copies else ''} | {'**copies**' if copies else ''} |"
            )


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
