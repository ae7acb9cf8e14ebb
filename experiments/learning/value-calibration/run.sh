#!/usr/bin/env bash
# Per-side value calibration (issue 44, item 2) of the core-hours networks that score best and
# worst against alpha-beta: Tablut base seed 1 generation 157 (models/tablut) and Tavlei base
# seed 1 generation 81, each on the last two generations' teacher games (alpha-beta at depth 3
# against itself: games the network did not choose) and self-play games of its own run.
#   [BIN=target/release/tavlei] [RUNS=runs/core-hours] experiments/learning/value-calibration/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${BIN:-./target/release/tavlei}
RUNS=${RUNS:-runs/core-hours}
out=experiments/learning/value-calibration
one() { # name run generation
  local run=$2 g=$3 prev=$(printf %03d $(($3 - 1))) gen=$(printf %03d "$3")
  for kind in teacher selfplay; do
    "$BIN" --torch-threads 1 data calibration "$run/gen-$prev/$kind" "$run/gen-$gen/$kind" \
      --model "$run/gen-$gen/model.safetensors" --bins 8 --out "$out/$1-$kind" > "$out/$1-$kind.txt"
  done
}
one tablut-gen157 "$RUNS/base-seed1" 157
one tavlei-gen81 "$RUNS/tavlei/base-seed1" 81
