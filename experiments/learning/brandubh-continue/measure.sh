#!/usr/bin/env bash
# The measurements behind experiments/learning/brandubh-continue/README.md: generation GEN of the
# run against alpha-beta at 100 ms a move beside the network it continues (the same openings,
# side by side, each pinned to one core with one worker and one libtorch thread), then the rest
# of the card's evidence; models/timed-evidence.sh holds the recipe (it was this script's body).
#   experiments/learning/brandubh-continue/measure.sh RUN_DIR GEN OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=$1 gen=$2 out=$3
# the network the run continued (models/brandubh then)
exec models/timed-evidence.sh brandubh "$run" "$gen" "$run/gen-000/model.safetensors" "$out"
