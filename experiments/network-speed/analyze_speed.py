#!/usr/bin/env python3
"""Simulations per second and wall time of single network searches through `tavlei analyze`, one
query at a time (nine per setting, the first discarded), on an idle machine and beside one and
two busy processes, for each binary given. The same measurement as the network-speed issue's
table, so a binary before the thread fix and one after can be compared in one run.

    python3 experiments/network-speed/analyze_speed.py OUT.csv NAME=BINARY[:ENV=VALUE] ...

e.g. `before=/tmp/base/tavlei before-omp1=/tmp/base/tavlei:OMP_NUM_THREADS=1
after=target/release/tavlei`. Prints a Markdown table and writes every query to OUT.csv.
"""
import csv
import json
import os
import subprocess
import sys
import time

QUERIES = 9
VARIANTS = ["brandubh", "tavlei", "copenhagen"]
BUDGETS_MS = [20, 100]
LOADS = [0, 1, 2]
# a few openings, so the queries are not one position over and over
MOVES = {
    "brandubh": [[], ["d2-b2"], ["d2-b2", "e4-e2"]],
    "tavlei": [[], ["b5-b8"], ["b5-b8", "e7-c7"]],
    "copenhagen": [[], ["d1-d3"], ["d1-d3", "f4-c4"]],
}


def busy(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def measure(binary, env, variant, budget_ms):
    proc = subprocess.Popen(
        [binary, "analyze", "--variant", variant, "--agent",
         f"net:models/{variant}.safetensors", "--seed", "1", "--device", "cpu"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    rows = []
    for k in range(QUERIES):
        moves = MOVES[variant][k % len(MOVES[variant])]
        query = json.dumps({"id": k, "moves": moves, "budget": f"t={budget_ms}ms"})
        sent = time.perf_counter()
        proc.stdin.write(query + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        wall = time.perf_counter() - sent
        if "error" in answer:
            raise SystemExit(f"{variant}: {answer['error']}")
        if k > 0:
            rows.append((answer["work"], wall))
    proc.stdin.close()
    proc.wait()
    return rows


def main():
    out, specs = sys.argv[1], sys.argv[2:]
    binaries = []
    for spec in specs:
        name, rest = spec.split("=", 1)
        binary, *envs = rest.split(":")
        env = dict(os.environ)
        env.pop("OMP_NUM_THREADS", None)
        for e in envs:
            key, value = e.split("=", 1)
            env[key] = value
        binaries.append((name, binary, env))
    table = []
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["binary", "busy", "variant", "budget_ms", "query", "simulations", "wall_s"])
        for load in LOADS:
            loops = busy(load)
            try:
                for variant in VARIANTS:
                    for budget in BUDGETS_MS:
                        for name, binary, env in binaries:
                            rows = measure(binary, env, variant, budget)
                            for q, (work, wall) in enumerate(rows, 1):
                                writer.writerow([name, load, variant, budget, q, work, f"{wall:.4f}"])
                            sims = sum(w for w, _ in rows) / sum(t for _, t in rows)
                            worst = max(t for _, t in rows) / (budget / 1000)
                            mean = sum(t for _, t in rows) / len(rows) / (budget / 1000)
                            table.append((load, variant, budget, name, sims, mean, worst))
            finally:
                for p in loops:
                    p.kill()
                    p.wait()
    print("| busy processes | network | budget | binary | simulations/s | wall/budget mean | worst |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for load, variant, budget, name, sims, mean, worst in table:
        print(f"| {load} | {variant} | {budget} ms | {name} | {sims:,.0f} | {mean:.2f} | {worst:.2f} |")


if __name__ == "__main__":
    main()
