"""Per-side results of a ladder's games (`games.txt`): for each agent, wins-draws-losses as
attacker and as defender, and its attacking wins by end reason (issue 44: in Brandubh and
Copenhagen a position's fourth occurrence loses for the defenders, so a win by repetition is not
a capture), as a Markdown table. Usage: python3 per_side.py ladder-brandubh"""
import sys
from collections import defaultdict
from pathlib import Path

# experiments/: how games ended is read and written as the other studies' tables do it
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from end_reasons import end_counts, ends_cell, read_games  # noqa: E402

def main(directory):
    stats = defaultdict(lambda: {"attacker": [0, 0, 0], "defender": [0, 0, 0]})
    # a game without a result (a record cut short) counts for no one
    games = [g for g in read_games(Path(directory) / "games.txt") if "result" in g]
    for g in games:
        winner = g["result"].partition(" ")[0]
        for side, agent in (("attackers", g["attacker"]), ("defenders", g["defender"])):
            role = "attacker" if side == "attackers" else "defender"
            k = 1 if winner == "draw" else (0 if winner == side else 2)
            stats[agent][role][k] += 1
    print("| agent | as attacker W-D-L | as defender W-D-L | attacking wins by end |")
    print("| --- | --- | --- | --- |")
    for agent, s in sorted(stats.items()):
        a, d = s["attacker"], s["defender"]
        by_end = ends_cell(end_counts(g for g in games if g["attacker"] == agent)["attackers"])
        print(f"| `{agent}` | {a[0]}-{a[1]}-{a[2]} | {d[0]}-{d[1]}-{d[2]} | {by_end} |")

if __name__ == "__main__":
    main(sys.argv[1])
