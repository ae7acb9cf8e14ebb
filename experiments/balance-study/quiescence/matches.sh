#!/usr/bin/env bash
# Is alpha-beta with a quiescence search (configs/alphabeta/quiescence.toml) a stronger player
# than without, at an equal time a move? 100 pairs a variant, each opening played once each way,
# one game at a time on one core (run it with nothing else at normal priority: the games are
# timed). Issue 26 keeps settings of the classical family only where they win such a match.
#   experiments/balance-study/quiescence/matches.sh [VARIANT:TIME ...]
# Default: sea_tafl:40ms copenhagen:40ms brandubh:100ms. Output in
# quiescence/matches/VARIANT-TIME/ (match.json and every game) and VARIANT-TIME.txt (the table).
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
eval_file=configs/alphabeta/quiescence.toml
[ $# -gt 0 ] || set -- sea_tafl:40ms copenhagen:40ms brandubh:100ms
for case in "$@"; do
  variant=${case%%:*} time=${case#*:}
  out=experiments/balance-study/quiescence/matches/$variant-$time
  mkdir -p "$out"
  "$BIN" match --variant "$variant" "ab:t=$time:eval=$eval_file" "ab:t=$time" --pairs "${PAIRS:-100}" \
    --seed 1 --threads 1 --out "$out" | tee "$out.txt"
done
