#!/usr/bin/env bash
# The measurements behind experiments/learning/brandubh-continue/README.md: generation GEN of the
# run against alpha-beta at 100 ms a move beside the network it continues (the same openings,
# side by side, each pinned to one core with one worker and one libtorch thread), then the rest
# of the card's evidence (models/evidence.sh skips the matches already stored).
#   experiments/learning/brandubh-continue/measure.sh RUN_DIR GEN OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=$1 gen=$2 out=$3
BIN=${TAVLEI_BIN:-./target/release/tavlei}
new=$run/gen-$(printf %03d "$gen")/model.safetensors
previous=$run/gen-000/model.safetensors   # the network the run continued (models/brandubh then)
one() { # core name A B
  [ -f "$out/$2/match.json" ] || taskset -c "$1" "$BIN" match --variant brandubh "$3" "$4" \
    --pairs 50 --seed 5 --threads 1 --torch-threads 1 --out "$out/$2" > /dev/null
}
mkdir -p "$out"
one 0 vs-ab-t100ms-50 "net:$new:t=100ms" ab:t=100ms &
one 1 previous-vs-ab-t100ms-50 "net:$previous:t=100ms" ab:t=100ms &
wait
one 0 vs-previous-t100ms-50 "net:$new:t=100ms" "net:$previous:t=100ms" &
one 1 vs-mcts-t100ms-50 "net:$new:t=100ms" mcts:t=100ms &
wait
EVIDENCE_DIR=$out EVIDENCE_TIME=100ms EVIDENCE_TIME_PAIRS=50 TAVLEI_BIN=$BIN \
  models/evidence.sh brandubh "$run" "$gen" "$previous"
