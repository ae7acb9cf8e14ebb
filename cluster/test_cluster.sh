#!/usr/bin/env bash
# The cluster test (`make test-cluster`): run inside a fresh network and PID namespace
# (`unshare --net --pid --fork --mount-proc`), so Ray listens on loopback only and everything it
# starts ends with the namespace. Two Ray nodes with token authentication; a balance study, a
# self-play generation and a match through the driver must equal the single-machine runs byte for
# byte, also when the second node is killed in the middle of a job.
# Usage: test_cluster.sh TAVLEI_BINARY VENV
set -Eeuo pipefail
# a command that stops the test names itself (set -e alone exits without a word; -E lets the
# trap see failures inside functions too)
trap 'echo "FAIL line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
ip link set lo up
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=$2
SCRATCH=$(mktemp -d /tmp/tavlei-cluster-test.XXXXXX)
# the binary at a path every "node" shares, safe from rebuilds while the test runs
cp "$1" "$SCRATCH/tavlei"
BIN=$SCRATCH/tavlei
source "$REPO/cluster/ray_nodes.sh"
cleanup() {
    stop_ray
    rm -rf "$SCRATCH"
}
trap cleanup EXIT

driver() {
    timeout 300 "$VENV/bin/python" "$REPO/cluster/tavlei_cluster.py" --address "$RAY_ADDRESS_HERE" \
        --tavlei "$BIN" "$@"
}

# files under two directories, the same names and bytes (`balance.json` without its timings)
same() {
    local a=$1 b=$2 what=$3
    (cd "$a" && find . -type f ! -name balance.json ! -name balance.csv | sort) >"$SCRATCH/names-a"
    (cd "$b" && find . -type f ! -name balance.json ! -name balance.csv | sort) >"$SCRATCH/names-b"
    diff "$SCRATCH/names-a" "$SCRATCH/names-b" || { echo "FAIL $what: other files"; exit 1; }
    [ -s "$SCRATCH/names-a" ] || { echo "FAIL $what: nothing to compare"; exit 1; }
    while read -r f; do
        cmp "$a/$f" "$b/$f" || { echo "FAIL $what: $f differs"; exit 1; }
    done <"$SCRATCH/names-a"
    if [ -f "$a/balance.json" ]; then
        for d in "$a" "$b"; do grep -v '"seconds"' "$d/balance.json" >"$d.report"; done
        cmp "$a.report" "$b.report" || { echo "FAIL $what: balance.json differs"; exit 1; }
    fi
    echo "ok   $what: $(wc -l <"$SCRATCH/names-a") files identical"
}

start_head 1
start_node2 1
wait_nodes 2 60
echo "ok   two Ray nodes with token authentication on 127.0.0.1"

# a balance study of two levels
BAL=(--variant brandubh --agent mcts:16 --levels 8,16 --games 6 --seed 2)
"$BIN" --threads 1 balance "${BAL[@]}" --out "$SCRATCH/balance-local" >/dev/null
driver --block 2 balance -- "${BAL[@]}" --out "$SCRATCH/balance-ray" >/dev/null
same "$SCRATCH/balance-local" "$SCRATCH/balance-ray" "balance on two nodes"

# a self-play generation (the tiny config of tests/suite/kill.rs)
sed -e 's/^simulations = 64/simulations = 12/' -e 's/^fast_simulations = 16/fast_simulations = 4/' \
    -e 's/^games_per_shard = 32/games_per_shard = 4/' "$REPO/configs/selfplay.toml" >"$SCRATCH/selfplay.toml"
SP=(--variant brandubh --rollouts 1 --games 14 --seed 3 --config "$SCRATCH/selfplay.toml")
"$BIN" --threads 1 selfplay "${SP[@]}" --out "$SCRATCH/selfplay-local" >/dev/null
driver selfplay -- "${SP[@]}" --out "$SCRATCH/selfplay-ray" >/dev/null
same "$SCRATCH/selfplay-local" "$SCRATCH/selfplay-ray" "selfplay on two nodes"

# the driver killed mid-job and rerun: it hands out only what --out lacks, and the shards equal
SP2=(--variant brandubh --rollouts 1 --games 24 --seed 4 --config "$SCRATCH/selfplay.toml")
"$BIN" --threads 1 selfplay "${SP2[@]}" --out "$SCRATCH/resume-local" >/dev/null
# (the python process itself, so that the kill reaches it)
(exec "$VENV/bin/python" "$REPO/cluster/tavlei_cluster.py" --address "$RAY_ADDRESS_HERE" --tavlei "$BIN" \
    --log "$SCRATCH/resume.log" selfplay -- "${SP2[@]}" --out "$SCRATCH/resume-ray" >/dev/null 2>&1) &
JOB=$!
for _ in $(seq 600); do
    [ -s "$SCRATCH/resume.log" ] && break
    sleep 0.05
done
kill -KILL "$JOB" 2>/dev/null || true
wait "$JOB" 2>/dev/null || true
before=$(ls "$SCRATCH/resume-ray" | grep -c '^shard-' || true)
driver --log "$SCRATCH/resume.log" selfplay -- "${SP2[@]}" --out "$SCRATCH/resume-ray" >/dev/null
[ "$before" -ge 1 ] && [ "$(wc -l <"$SCRATCH/resume.log")" -le 6 ] ||
    { echo "FAIL the rerun redid arrived shards ($before kept):"; cat "$SCRATCH/resume.log"; exit 1; }
same "$SCRATCH/resume-local" "$SCRATCH/resume-ray" "selfplay with the driver killed and rerun ($before of 6 shards kept)"

# a match of pure-MCTS agents (its report and records)
MATCH=(--variant brandubh mcts:24 mcts:8 --pairs 5 --seed 2)
"$BIN" --threads 1 match "${MATCH[@]}" --out "$SCRATCH/match-local" >/dev/null
driver --block 2 match -- "${MATCH[@]}" --out "$SCRATCH/match-ray" >/dev/null
# each stores its games as they end, in another order: the same lines, sorted
for d in match-local match-ray; do sort -o "$SCRATCH/$d/games.jsonl" "$SCRATCH/$d/games.jsonl"; done
same "$SCRATCH/match-local" "$SCRATCH/match-ray" "match on two nodes"

# a pipeline's self-play on the cluster (`pipeline --cluster`): the first generation's shards
# are those the pipeline plays itself (each run is stopped once its self-play stage is written)
cp "$REPO/configs/pipeline/brandubh.toml" "$SCRATCH/pipeline.toml"
for kv in generations=1 games_per_generation=6 blocks=1 channels=8 simulations=6 \
    fast_simulations=3 concurrent_games=6 games_per_shard=2 steps=6 batch_size=16; do
    sed -i "s/^${kv%%=*} = .*/${kv%%=*} = ${kv#*=}/" "$SCRATCH/pipeline.toml"
done
selfplay_stage() {
    local dir=$1
    shift
    (cd "$REPO" && exec "$BIN" --threads 1 pipeline --config "$SCRATCH/pipeline.toml" \
        --run-dir "$dir" --balance-games 0 --device cpu "$@" >/dev/null 2>"$dir.err") &
    local job=$!
    for _ in $(seq 1200); do
        [ -f "$dir/gen-000/selfplay.json" ] && break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$job" 2>/dev/null || true
    wait "$job" 2>/dev/null || true
    [ -f "$dir/gen-000/selfplay.json" ] || { echo "FAIL pipeline $*:"; cat "$dir.err"; exit 1; }
}
selfplay_stage "$SCRATCH/pipeline-local"
selfplay_stage "$SCRATCH/pipeline-ray" --cluster "$RAY_ADDRESS_HERE"
[ -f "$SCRATCH/pipeline-ray/gen-000/selfplay.toml" ] && [ ! -e "$SCRATCH/pipeline-local/gen-000/selfplay.toml" ] ||
    { echo "FAIL pipeline --cluster did not hand its self-play to the driver"; exit 1; }
same "$SCRATCH/pipeline-local/gen-000/selfplay" "$SCRATCH/pipeline-ray/gen-000/selfplay" \
    "pipeline self-play on the cluster"

# a unit that fails for a real reason (a model no node has) stops the job with its error
if driver balance -- --variant brandubh --agent net:/no/such/model.safetensors:4 --games 2 \
    --out "$SCRATCH/bad" 2>"$SCRATCH/bad.err"; then
    echo "FAIL a unit with a missing model did not stop the job"; exit 1
fi
grep -Eq "unit 0:[0-9]+\.\.[0-9]+ failed" "$SCRATCH/bad.err" && grep -q "/no/such/model.safetensors" "$SCRATCH/bad.err" ||
    { echo "FAIL the error does not name the unit and the bad input:"; cat "$SCRATCH/bad.err"; exit 1; }
echo "ok   a failing unit stops the job with its error"

# the second node killed while it runs a unit: the unit is retried on the head
KILL=(--variant brandubh --agent mcts:400 --games 16 --seed 5)
"$BIN" --threads 1 balance "${KILL[@]}" --out "$SCRATCH/kill-local" >/dev/null
rm -f "$SCRATCH"/trace/*
driver --block 2 --log "$SCRATCH/units.log" balance -- "${KILL[@]}" --out "$SCRATCH/kill-ray" \
    >/dev/null 2>"$SCRATCH/kill.err" &
JOB=$!
victim=
for _ in $(seq 600); do
    # a unit the second node started in the last 0.3 s: most of its play is still ahead, so the
    # kill lands while it runs (an older one may have sent its result back already)
    for f in $(find "$SCRATCH/trace" -name '*@node2@*' -mmin -0.005); do
        unit=$(basename "$f" | cut -d@ -f1)
        grep -q "^unit $unit done" "$SCRATCH/units.log" 2>/dev/null || { victim=$unit; break; }
    done
    [ -n "$victim" ] && break
    kill -0 "$JOB" 2>/dev/null || break
    sleep 0.05
done
[ -n "$victim" ] || { echo "FAIL the second node never ran a unit"; exit 1; }
kill_node node2 "$NODE2_PGID"
NODE2_PGID=
# (a worker left alive could finish the unit and send its result: the kill would test nothing)
for _ in $(seq 20); do
    [ -z "$(node_processes node2)" ] && break
    sleep 0.05
done
[ -z "$(node_processes node2)" ] || { echo "FAIL processes of the second node outlived its kill"; exit 1; }
echo "     killed the second node while it ran unit $victim"
wait "$JOB" || { echo "FAIL the job did not survive the killed node"; cat "$SCRATCH/kill.err"; exit 1; }
[ "$(sort -u "$SCRATCH/units.log" | wc -l)" -eq 8 ] && [ "$(wc -l <"$SCRATCH/units.log")" -eq 8 ] ||
    { echo "FAIL units lost or counted twice:"; cat "$SCRATCH/units.log"; exit 1; }
ls "$SCRATCH"/trace | grep -q "^$victim@head@" || { echo "FAIL unit $victim was not retried on the head"; exit 1; }
same "$SCRATCH/kill-local" "$SCRATCH/kill-ray" "balance with the second node killed mid-unit"
echo "cluster test passed"
