#!/usr/bin/env bash
# Does bf16 inference cost strength? Each shipped network against itself in f32 at the same
# simulations (fixed budgets, so the load on the machine does not change a game), 50 pairs, seed 5.
#   [TAVLEI_BIN=...] experiments/network-speed/bf16/strength.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/network-speed/bf16
for v in brandubh tablut copenhagen; do
  net=models/$v.safetensors
  [ -f "$out/$v-96/match.json" ] || RAYON_NUM_THREADS=1 "$BIN" --threads 1 --torch-threads 1 match \
    --variant "$v" "net:$net:96:bf16" "net:$net:96" --pairs 50 --seed 5 --out "$out/$v-96" > /dev/null
done
