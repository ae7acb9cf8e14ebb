#!/usr/bin/env python3
"""The depth each Copenhagen player completes at 1 s a move, by side to move, with and without
late move reductions.

Positions: every 7th ply (from ply 7) of the first 6 games of the escape-threats screen
(`screens/vs-ab-1s-hq-threats-seed438/`), so both sides are to move. Each agent searches each
position once with `tavlei analyze` (one thread); two agents run at a time, one per core. The
searches are timed, so a rerun moves a few positions by a ply.
    python3 experiments/nnue/copenhagen/gen3-s1/reductions/depths.py > experiments/nnue/copenhagen/gen3-s1/reductions/depths.md
"""
import json
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
BIN = ROOT / "target/release/tavlei"
G3 = "experiments/nnue/copenhagen/gen3-s1/eval.nnue"
AGENTS = [
    "ab:t=1s",
    f"ab:t=1s:nnue={G3}:eval=configs/alphabeta/hybrid-quiescence.toml",
    f"ab:t=1s:nnue={G3}:eval=experiments/nnue/copenhagen/gen3-s1/reductions/hybrid-quiescence-lmr1.toml",
    f"ab:t=1s:nnue={G3}:eval=configs/alphabeta/hybrid-reductions.toml",
]


def depths(agent, core, queries):
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    out = subprocess.run(["taskset", "-c", str(core), str(BIN), "analyze", "--variant", "copenhagen",
                          "--agent", agent, "--threads", "1"],
                         input=lines, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    by_side = {"attackers": Counter(), "defenders": Counter()}
    for answer in map(json.loads, out.splitlines()):
        by_side[answer["to_move"]][answer["depth"]] += 1
    return by_side


def cell(counts):
    n = sum(counts.values())
    mean = sum(d * k for d, k in counts.items()) / n
    return f"{mean:.2f} ({', '.join(f'{d}: {k}' for d, k in sorted(counts.items()))})"


def main():
    store = HERE / "screens/vs-ab-1s-hq-threats-seed438/games.jsonl"
    games = [json.loads(line) for line in store.read_text().splitlines()][:6]
    queries = [{"id": f"{g['id']}:{ply}", "moves": g["moves"][:ply]}
               for g in games for ply in range(7, len(g["moves"]), 7)]
    print(f"{len(queries)} positions, every 7th ply of the first {len(games)} games of `{store.relative_to(HERE)}`\n")
    print("| agent | attackers to move: mean depth (depths) | defenders to move: mean depth (depths) |")
    print("| --- | --- | --- |")
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda ia: depths(ia[1], ia[0] % 2, queries), enumerate(AGENTS)))
    for agent, by_side in zip(AGENTS, results):
        print(f"| `{agent}` | {cell(by_side['attackers'])} | {cell(by_side['defenders'])} |")


if __name__ == "__main__":
    main()
