"""Per-side results of a ladder's games (`games.txt`): for each agent, wins-draws-losses as
attacker and as defender, and its attacking wins by end reason (issue 44: in Brandubh and
Copenhagen a position's fourth occurrence loses for the defenders, so a win by repetition is not
a capture), as a Markdown table. Usage: python3 per_side.py ladder-brandubh"""
import re
import sys
from collections import defaultdict

def main(directory):
    header = re.compile(r"# game \d+: (\S+) \(attackers\) vs (\S+) \(defenders\)")
    stats = defaultdict(lambda: {"attacker": [0, 0, 0], "defender": [0, 0, 0]})
    ends = defaultdict(lambda: defaultdict(int))
    players = None
    with open(f"{directory}/games.txt", encoding="utf-8") as f:
        for line in f:
            m = header.match(line)
            if m:
                players = m.groups()
                continue
            if line.startswith("[result ") and players:
                winner, _, reason = line.split('"')[1].partition(" ")
                if winner == "attackers":
                    ends[players[0]][reason] += 1
                for side, agent in zip(("attackers", "defenders"), players):
                    role = "attacker" if side == "attackers" else "defender"
                    k = 1 if winner == "draw" else (0 if winner == side else 2)
                    stats[agent][role][k] += 1
                players = None
    print("| agent | as attacker W-D-L | as defender W-D-L | attacking wins by end |")
    print("| --- | --- | --- | --- |")
    for agent, s in sorted(stats.items()):
        a, d = s["attacker"], s["defender"]
        won = sorted(ends[agent].items(), key=lambda e: (-e[1], e[0]))
        by_end = ", ".join(f"{reason.replace('_', ' ')} {n}" for reason, n in won) or "none"
        print(f"| `{agent}` | {a[0]}-{a[1]}-{a[2]} | {d[0]}-{d[1]}-{d[2]} | {by_end} |")

if __name__ == "__main__":
    main(sys.argv[1])
