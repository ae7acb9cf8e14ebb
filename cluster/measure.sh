#!/usr/bin/env bash
# The figures of cluster/MEASURED.md (`make measure-cluster`): a pure-MCTS balance study played by
# one process on one core, then by the Ray driver on two one-core nodes of this machine (as in the
# cluster test: loopback-only namespace, token authentication), and Ray's start-up time (from
# `ray start` of the head to the first task result, with the second node joined).
# Usage: measure.sh TAVLEI_BINARY VENV   (inside unshare --net --pid --fork --mount-proc)
set -euo pipefail
ip link set lo up
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=$2
SCRATCH=$(mktemp -d /tmp/tavlei-cluster-measure.XXXXXX)
cp "$1" "$SCRATCH/tavlei"
BIN=$SCRATCH/tavlei
source "$REPO/cluster/ray_nodes.sh"
trap 'stop_ray; rm -rf "$SCRATCH"' EXIT
STUDY=(--variant brandubh --agent mcts:${MEASURE_SIMS:-800} --games ${MEASURE_GAMES:-96} --seed 7)
BLOCK=${MEASURE_BLOCK:-12}
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
t0=$(now)
"$BIN" --threads 1 balance "${STUDY[@]}" --out "$SCRATCH/local" >/dev/null
t1=$(now)
local_s=$(secs "$t0" "$t1")

t0=$(now)
start_head 1
start_node2 1
wait_nodes 2 120
"$VENV/bin/python" - "$RAY_ADDRESS_HERE" <<'PY'
import sys, ray
ray.init(address=sys.argv[1], log_to_driver=False)
print("first task result:", ray.get(ray.remote(lambda: "ok").remote()))
PY
t1=$(now)
startup_s=$(secs "$t0" "$t1")

t0=$(now)
"$VENV/bin/python" "$REPO/cluster/tavlei_cluster.py" --address "$RAY_ADDRESS_HERE" --tavlei "$BIN" \
    --block "$BLOCK" balance -- "${STUDY[@]}" --out "$SCRATCH/ray" >/dev/null 2>&1
t1=$(now)
ray_s=$(secs "$t0" "$t1")
cmp "$SCRATCH/local/games/brandubh__mcts_${MEASURE_SIMS:-800}.jsonl" \
    "$SCRATCH/ray/games/brandubh__mcts_${MEASURE_SIMS:-800}.jsonl" && echo "games identical: yes"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "study: balance ${STUDY[*]}, units of $BLOCK games"
echo "one process, one core (--threads 1): $local_s s"
echo "driver on two one-core Ray nodes:    $ray_s s (speed-up $(python3 -c "print(f'{$local_s / $ray_s:.2f}')"))"
echo "Ray start-up (head start to first task result, two nodes): $startup_s s"
