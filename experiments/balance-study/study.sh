#!/usr/bin/env bash
# Issue 26's study in one command: the strength ladder of every preset (ladder.sh: stored levels
# and games are not replayed, so a rerun only plays what is missing and regenerates each
# variant's README), then the table of all of them (presets.py -> ladders/README.md).
#   experiments/balance-study/study.sh [VARIANT...]     (default: every preset)
# Environment: as ladder.sh's (TAVLEI_BIN, GAMES, STRONGEST_GAMES, PAIRS, THREADS, AB_LEVELS).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
variants=("$@")
[ ${#variants[@]} -gt 0 ] || mapfile -t variants < <("$BIN" rules list | awk 'NR > 1 { print $1 }')
for variant in "${variants[@]}"; do
  echo "study.sh: $variant" >&2
  experiments/balance-study/ladder.sh "$variant" > /dev/null
done
python3 experiments/balance-study/presets.py "$BIN" > experiments/balance-study/ladders/README.md
echo "study.sh: experiments/balance-study/ladders/README.md" >&2
