#!/usr/bin/env python3
"""The score and Elo of the tuned weights pooled over several matches' pairs (their pentanomial
counts: the mean pair score with a normal 95 % interval over pairs, as `tavlei match` computes
one match's). Usage: experiments/texel/pooled.py MATCH_DIR..."""
import json
import math
import sys

counts = [0] * 5
for d in sys.argv[1:]:
    for i, c in enumerate(json.load(open(f"{d}/match.json"))["pentanomial"]):
        counts[i] += c
n = sum(counts)
values = [0, 0.25, 0.5, 0.75, 1]
mean = sum(v * c for v, c in zip(values, counts)) / n
var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
half = 1.96 * math.sqrt(var / n)
elo = lambda s: -400 * math.log10(1 / s - 1)
print(f"{n} pairs: score {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}], "
      f"Elo {elo(mean):+.0f} [{elo(mean - half):+.0f}, {elo(mean + half):+.0f}]")
