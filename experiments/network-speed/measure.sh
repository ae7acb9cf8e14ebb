#!/usr/bin/env bash
# The network-speed issue's before/after figures, each pair measured in the same run on this
# machine, nothing else running but the busy loops named. BEFORE is a release binary of the
# commit before the change (c30f98b, built in a scratch copy), AFTER one of this commit.
#
#   bash experiments/network-speed/measure.sh BEFORE AFTER
#
# Writes into experiments/network-speed/: analyze-speed.{csv,md} (single searches through
# `tavlei analyze`: simulations per second and wall time over budget, idle and beside one and two
# busy processes), balance-threads.txt (a pure-MCTS balance study on 1 and 2 worker threads),
# selfplay-busy.txt (8 self-play games and a one-generation pipeline, idle, beside busy loops
# and beside another self-play run).
set -uo pipefail
BEFORE=${1:?before binary}
AFTER=${2:?after binary}
OUT=experiments/network-speed
SCRATCH=$(mktemp -d)
trap 'stop_busy; rm -rf "$SCRATCH"' EXIT
busy_pids=()
start_busy() { for _ in $(seq "$1"); do sh -c 'while :; do :; done' & busy_pids+=($!); done; }
stop_busy() { for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; busy_pids=(); }
seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; e=$(date +%s.%N); printf '%.2f%s' "$(echo "$e - $s" | bc)" "$([ $rc = 0 ] || echo " (exit $rc)")"; }

echo "== analyze" >&2
python3 "$OUT/analyze_speed.py" "$OUT/analyze-speed.csv" \
  "before=$BEFORE" "before-omp1=$BEFORE:OMP_NUM_THREADS=1" "after=$AFTER" > "$OUT/analyze-speed.md"

echo "== balance threads" >&2
{
  echo "# tavlei balance --variant brandubh --agent mcts:N --games G --seed 3, idle, wall seconds"
  for bin in before after; do
    b=$BEFORE; [ $bin = after ] && b=$AFTER
    for agent in mcts:64:400 mcts:256:200; do
      IFS=: read -r kind n games <<<"$agent"
      for t in 1 2; do
        rm -rf "$SCRATCH/bal"
        echo "$bin $kind:$n $games games --threads $t: $(seconds "$b" --threads "$t" balance --variant brandubh --agent "$kind:$n" --games "$games" --seed 3 --out "$SCRATCH/bal") s"
      done
    done
  done
} > "$OUT/balance-threads.txt"

echo "== self-play" >&2
"$AFTER" init-model --variant brandubh --blocks 2 --channels 16 --checkpoint "$SCRATCH/net.safetensors" --seed 1 >/dev/null
sed -e 's/^generations = .*/generations = 1/' -e 's/^games_per_generation = .*/games_per_generation = 40/' \
  configs/pipeline/brandubh.toml > "$SCRATCH/pipeline.toml"
selfplay() { rm -rf "$SCRATCH/sp-$2"; timeout 600 "$1" selfplay --variant brandubh --model "$SCRATCH/net.safetensors" --games 8 --seed 1 --out "$SCRATCH/sp-$2"; }
{
  echo "# tavlei selfplay --variant brandubh --model (fresh 2x16) --games 8 --seed 1, wall seconds (600 s limit)"
  for load in 0 1 2; do
    start_busy "$load"
    for bin in before before-omp1 after; do
      b=$BEFORE; [ $bin = after ] && b=$AFTER
      if [ $bin = before-omp1 ]; then export OMP_NUM_THREADS=1; else unset OMP_NUM_THREADS; fi
      echo "$bin, $load busy: $(seconds selfplay "$b" one) s"
    done
    stop_busy
  done
  # two self-play runs side by side, as experiments here run them
  for bin in before before-omp1 after; do
    b=$BEFORE; [ $bin = after ] && b=$AFTER
    if [ $bin = before-omp1 ]; then export OMP_NUM_THREADS=1; else unset OMP_NUM_THREADS; fi
    selfplay "$b" other >/dev/null 2>&1 &
    other=$!
    echo "$bin, beside another self-play run: $(seconds selfplay "$b" one) s"
    wait $other
  done
  unset OMP_NUM_THREADS
  echo
  echo "# one pipeline generation (configs/pipeline/brandubh.toml, generations = 1, 40 games, --balance-games 0) beside one busy loop, wall seconds"
  start_busy 1
  for bin in before after; do
    b=$BEFORE; [ $bin = after ] && b=$AFTER
    rm -rf "$SCRATCH/run"
    echo "$bin: $(seconds timeout 900 "$b" pipeline --config "$SCRATCH/pipeline.toml" --run-dir "$SCRATCH/run" --balance-games 0) s"
  done
  stop_busy
} > "$OUT/selfplay-busy.txt"
echo "done" >&2
