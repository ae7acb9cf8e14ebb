#!/usr/bin/env bash
# The evidence behind a model card: the new network against the one it replaces (equal
# simulations and equal time), against the strongest classical agent at equal time, and its
# self-play balance at two search sizes; plus the run's own summary, ladder and plots.
#   models/evidence.sh VARIANT RUN_DIR GENERATION [PREVIOUS_CHECKPOINT]
# Writes models/VARIANT-evidence/ (match reports as JSON, per-game records, balance tables), or
# the directory EVIDENCE_DIR names. EVIDENCE_TIME (default 20ms) is the time a move of the
# equal-time matches, EVIDENCE_TIME_PAIRS (default 100) their pairs against the previous network.
set -euo pipefail
cd "$(dirname "$0")/.."
variant=$1 run=$2 gen=$3 previous=${4:-}
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=${EVIDENCE_DIR:-models/$variant-evidence}
new=$run/gen-$(printf %03d "$gen")/model.safetensors
t=${EVIDENCE_TIME:-20ms}
time_pairs=${EVIDENCE_TIME_PAIRS:-100}
mkdir -p "$out"
cp "$run/summary.md" "$run/config.json" "$run/elo.svg" "$run/attacker_rate.svg" "$run/losses.svg" "$out/"
# a run without the closing ladder (eval.ladder_pairs = 0) has no ladder.json
[ -f "$run/ladder.json" ] && cp "$run/ladder.json" "$out/"
for plot in elo attacker_rate losses; do [ -f "$run/$plot.png" ] && cp "$run/$plot.png" "$out/"; done
for g in "$run"/gen-*; do
  for f in selfplay.json teacher.json train.json time.json match.json vs-gen0.json vs-anchor.json; do
    [ -f "$g/$f" ] && mkdir -p "$out/run/$(basename "$g")" && cp "$g/$f" "$out/run/$(basename "$g")/"
  done
done
match() { # name A B pairs
  [ -f "$out/$1/match.json" ] || "$BIN" match --variant "$variant" "$2" "$3" --pairs "$4" --seed 5 --out "$out/$1" > /dev/null
  echo "$1: $(python3 -c "import json,sys; m=json.load(open('$out/$1/match.json')); e=m['elo_pairs']; print(m['score'], e['elo'], e['low'], e['high'], m['as_attacker'], m['as_defender'])")"
}
if [ -n "$previous" ]; then
  match vs-previous-32 "net:$new:32" "net:$previous:32" 50
  # equal time: 100 pairs (25 left the interval across 0 for Brandubh; the first 25 pairs
  # have the same openings as before)
  match "vs-previous-t$t-$time_pairs" "net:$new:t=$t" "net:$previous:t=$t" "$time_pairs"
fi
match vs-gen0-32 "net:$new:32" "net:$run/gen-000/model.safetensors:32" 50
# 50 pairs against each classical agent (attacker wins are rare events; 25 pairs before)
match "vs-ab-t$t-50" "net:$new:t=$t" "ab:t=$t" 50
match "vs-mcts-t$t-50" "net:$new:t=$t" "mcts:t=$t" 50
# 200 games per search size (the balance study's minimum for networks); a rerun extends the
# stored games
"$BIN" balance --variant "$variant" --agent "net:$new:32" --levels 32,128 --games 200 --seed 5 --out "$out/balance" --csv > /dev/null
cat "$out/balance/balance.csv"
