#!/usr/bin/env python3
"""The depth alpha-beta completes at each of a ladder's time levels, by side to move.

Alpha-beta ladders at fixed time a move are not monotone on several 9x9 presets (the attackers win
far more at 40 ms than at 10 or 160 ms). This reads positions from a ladder's stored games (every
GAP-th ply of the first games of its second level), asks `tavlei analyze` for each level's search
of each, and prints the completed depth's mean and its distribution by side to move, so the
swings can be set beside the depths each side reaches. The searches are timed, so a rerun moves a
few positions by a ply (the means by up to about 0.15); the levels' pattern stays.
    python3 experiments/balance-study/depths.py VARIANT [GAMES] [GAP]   (default 10 games, every 7th ply: both sides to move)
"""
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = HERE.parent.parent / "target/release/tavlei"
# depths from here on are a proven win or loss (the search stops at its deepest ply, 127)
SOLVED = 100


def read_games(store):
    """The games of a store: its JSON lines, or where only the game records were committed (the
    `.txt` beside it, as `tavlei replay` reads them), their ids and moves."""
    if store.exists():
        return [json.loads(line) for line in store.read_text().splitlines()]
    games = []
    for block in store.with_suffix(".txt").read_text().split("# game ")[1:]:
        header, *lines = block.splitlines()
        moves = " ".join(line for line in lines if line and not line.startswith("[")).split()
        games.append({"id": int(header.split()[0]), "moves": moves})
    return games


def main():
    variant = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    gap = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    ladder = HERE / "ladders" / variant / "ab"
    agents = [r["agent"] for r in json.loads((ladder / "balance.json").read_text())]
    # the store's name as `tavlei balance` makes it (src/eval/balance.rs, store_path)
    store = ladder / "games" / f"{variant}__{re.sub(r'[^A-Za-z0-9-]', '_', agents[1])}.jsonl"
    records = read_games(store)[:games]
    source = store if store.exists() else store.with_suffix(".txt")
    queries = [
        {"id": f"{r['id']}:{ply}", "moves": r["moves"][:ply]}
        for r in records
        for ply in range(gap, len(r["moves"]), gap)
    ]
    print(f"{variant}: {len(queries)} positions from {source.name}, every {gap}th ply of {games} games")
    print("| level | attackers to move: mean depth (depths) | defenders to move: mean depth (depths) |")
    print("| --- | --- | --- |")
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    for agent in agents:
        out = subprocess.run([str(BIN), "analyze", "--variant", variant, "--agent", agent, "--threads", "1"],
                             input=lines, capture_output=True, text=True, check=True).stdout
        by_side = {"attackers": Counter(), "defenders": Counter()}
        for answer in map(json.loads, out.splitlines()):
            if "error" in answer:
                sys.exit(f"{answer['id']}: {answer['error']}")
            by_side[answer["to_move"]][answer["depth"]] += 1
        cells = []
        for side in ("attackers", "defenders"):
            # a proven result ends the deepening at the deepest ply: counted apart, not averaged
            c = {d: k for d, k in by_side[side].items() if d < SOLVED}
            solved = sum(k for d, k in by_side[side].items() if d >= SOLVED)
            n = sum(c.values())
            mean = sum(d * k for d, k in c.items()) / n if n else float("nan")
            spread = [f"{d}: {k}" for d, k in sorted(c.items())] + ([f"solved: {solved}"] if solved else [])
            cells.append(f"{mean:.2f} ({', '.join(spread)})")
        print(f"| {agent.split(':', 1)[1]} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
