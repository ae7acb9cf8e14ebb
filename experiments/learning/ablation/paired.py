#!/usr/bin/env python3
"""Two arms against the same anchor on the same openings, compared pair by pair: the mean
difference of their pair scores (arm minus base) with a normal 95 % interval over pairs, pooled
over seeds. Each pair is one opening played once each way; the arms' matches used the same
match seed, so pair k of one is pair k of the other (checked: the opening moves must agree).
    experiments/learning/ablation/paired.py ARM_MATCH_DIR:BASE_MATCH_DIR [...]
e.g. ablation3/short-seed1/vs-ab2:ablation3/base-seed1/vs-ab2"""
import math
import sys


def pairs(match_dir):
    """(opening, score of the network over the pair) for each pair of games.txt (the network is
    the player whose spec starts with net:)."""
    games, lines = [], open(f"{match_dir}/games.txt").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("# game"):
            players = line.split(": ", 1)[1].split(" vs ")
            net_attacks = any(p.startswith("net:") and p.endswith("(attackers)") for p in players)
            result = lines[i + 3].split('"')[1].split()[0]
            opening = " ".join(lines[i + 4].split()[:2])
            won = {"attackers": net_attacks, "defenders": not net_attacks}.get(result)
            games.append((opening, 0.5 if won is None else float(won)))
    return [(games[k][0], (games[k][1] + games[k + 1][1]) / 2) for k in range(0, len(games), 2)]


diffs = []
for spec in sys.argv[1:]:
    arm, base = (pairs(d) for d in spec.split(":"))
    if len(arm) != len(base) or any(a[0] != b[0] for a, b in zip(arm, base)):
        sys.exit(f"{spec}: the two matches are not on the same openings")
    diffs += [a[1] - b[1] for a, b in zip(arm, base)]
n = len(diffs)
mean = sum(diffs) / n
sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
half = 1.96 * sd / math.sqrt(n)
print(f"{n} pairs: score difference {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]")
