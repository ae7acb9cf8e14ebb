#!/usr/bin/env bash
# The int8 forward pass against f32 at equal simulations (nn::int8): each shipped network
# against itself, one side in int8, the other in f32, on distinct openings, one game at a time
# on one thread. Not timed: the games depend only on the outputs, so what else runs beside them
# does not change them.
#   [BIN=target/release/tavlei] experiments/network-speed/int8/equal-simulations.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${BIN:-./target/release/tavlei}
out=experiments/network-speed/int8
for spec in "tablut 64 50" "tavlei 64 50" "copenhagen 96 30" "brandubh 64 50"; do
  read -r variant sims pairs <<< "$spec"
  dir=$out/$variant-equal-simulations
  [ -f "$dir/match.json" ] && continue
  RAYON_NUM_THREADS=1 "$BIN" --threads 1 --torch-threads 1 match --variant "$variant" \
    "net:models/$variant.safetensors:$sims:int8" "net:models/$variant.safetensors:$sims" \
    --pairs "$pairs" --seed 9 --out "$dir" > "$dir.txt"
done
