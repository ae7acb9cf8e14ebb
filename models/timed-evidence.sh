#!/usr/bin/env bash
# A card's evidence at 100 ms a move, then the rest of models/evidence.sh: the new network and the
# one it replaces against `ab:t=100ms` side by side (the same openings), then, two at a time, the
# new against the old at 100 ms and against `mcts:t=100ms`; each match pinned to a core of its own
# (taskset) with one game worker and one libtorch thread, 50 pairs, seed 5. PRECISION=bf16 plays
# every network of the timed matches in bf16 (`:bf16`); evidence.sh's fixed-simulation matches stay
# f32. Stored matches are skipped, so a stopped run resumes.
#   [TAVLEI_BIN=...] [PRECISION=f32|bf16] models/timed-evidence.sh VARIANT RUN_DIR GEN PREVIOUS OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
variant=$1 run=$2 gen=$3 previous=$4 out=$5
BIN=${TAVLEI_BIN:-./target/release/tavlei}
suffix=
[ "${PRECISION:-f32}" = bf16 ] && suffix=:bf16
new=$run/gen-$(printf %03d "$gen")/model.safetensors
one() { # core name A B
  [ -f "$out/$2/match.json" ] || taskset -c "$1" "$BIN" match --variant "$variant" "$3" "$4" \
    --pairs 50 --seed 5 --threads 1 --torch-threads 1 --out "$out/$2" > /dev/null
}
mkdir -p "$out"
one 0 vs-ab-t100ms-50 "net:$new:t=100ms$suffix" ab:t=100ms &
one 1 previous-vs-ab-t100ms-50 "net:$previous:t=100ms$suffix" ab:t=100ms &
wait
one 0 vs-previous-t100ms-50 "net:$new:t=100ms$suffix" "net:$previous:t=100ms$suffix" &
one 1 vs-mcts-t100ms-50 "net:$new:t=100ms$suffix" mcts:t=100ms &
wait
EVIDENCE_DIR=$out EVIDENCE_TIME=100ms EVIDENCE_TIME_PAIRS=50 TAVLEI_BIN=$BIN \
  models/evidence.sh "$variant" "$run" "$gen" "$previous"
