#!/usr/bin/env bash
# int8 agents at 100 ms a move: 1 leaf a network call against 8 (the default on a time budget),
# the same shipped network on both sides, 20 pairs (seed 7), one game at a time, one thread a
# side, Tablut pinned to core 0 and Tavlei to core 1 at the same time.
#   experiments/network-speed/int8/leaf-screen.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/network-speed/int8/leaf-screen
one() { # core variant
  RAYON_NUM_THREADS=1 taskset -c "$1" "$BIN" --threads 1 --torch-threads 1 match --variant "$2" \
    "net:models/$2.safetensors:t=100ms:leaf=1:int8" "net:models/$2.safetensors:t=100ms:leaf=8:int8" \
    --pairs 20 --seed 7 --out "$out/$2" > "$out/$2.txt" 2>&1
}
mkdir -p "$out"
one 0 tablut &
one 1 tavlei
wait
