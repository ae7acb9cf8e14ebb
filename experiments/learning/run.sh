#!/usr/bin/env bash
# The learning experiments of issue 12: the make-run pipeline (brandubh) and the tavlei pipeline,
# each with one setting changed, same seed. Each run's summary and match files are copied here;
# the shards and networks stay in runs/learning/ (not committed).
#   experiments/learning/run.sh NAME...   (names below; default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=./target/release/tavlei
OUT=experiments/learning
declare -A BASE=(
  [brandubh-base]=brandubh [brandubh-enc1]=brandubh [brandubh-discount]=brandubh
  [brandubh-alpha]=brandubh [brandubh-sims]=brandubh [brandubh-solver]=brandubh
  [brandubh-wins]=brandubh [tavlei-base]=tavlei [tavlei-enc1]=tavlei [tavlei-discount]=tavlei
  [tavlei-wins]=tavlei [brandubh-solver-full]=brandubh
)
# sed edits of the base config, one per experiment
declare -A EDIT=(
  [brandubh-base]=''
  [brandubh-enc1]='s/^encoding = 2/encoding = 1/'
  [brandubh-discount]='s/^value_discount = 1.0/value_discount = 0.97/'
  [brandubh-alpha]='s/^dirichlet_alpha = 0.4/dirichlet_alpha = 0.4\ndirichlet_alpha_total = 10.0/'
  [brandubh-sims]='s/^simulations = 48/simulations = 96/; s/^fast_simulations = 12/fast_simulations = 24/'
  [brandubh-solver]='s/^solver = false/solver = true/'
  [brandubh-solver-full]='s/^solver = false/solver = true\nsolver_stops = false/'
  [brandubh-wins]='s/^solver = false/solver = false\nimmediate_wins = true/'
  [tavlei-base]=''
  [tavlei-enc1]='s/^encoding = 2/encoding = 1/'
  [tavlei-discount]='s/^value_discount = 1.0/value_discount = 0.97/'
  [tavlei-wins]='s/^solver = false/solver = false\nimmediate_wins = true/'
)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(brandubh-base brandubh-enc1 brandubh-discount brandubh-alpha tavlei-base tavlei-enc1)
for name in "${names[@]}"; do
  base=${BASE[$name]:?unknown experiment $name}
  mkdir -p runs/learning "$OUT/$name"
  cfg="$OUT/$name/config.toml"
  sed -e "${EDIT[$name]}" "configs/pipeline/$base.toml" > "$cfg"
  if [ -n "${EDIT[$name]}" ] && cmp -s "$cfg" "configs/pipeline/$base.toml"; then
    echo "$name: the edit changed nothing" >&2; exit 1
  fi
  echo "== $name ($(date +%H:%M))"
  /usr/bin/time -f "%e s" "$BIN" pipeline --config "$cfg" --run-dir "runs/learning/$name" --balance-games 0 \
    > "$OUT/$name/stdout.txt" 2> "$OUT/$name/time.txt" || { tail "$OUT/$name/time.txt"; exit 1; }
  run="runs/learning/$name"
  cp "$run/summary.md" "$run/ladder.json" "$run/elo.svg" "$run/attacker_rate.svg" "$OUT/$name/" 2>/dev/null || true
  for g in "$run"/gen-*; do
    for f in selfplay.json match.json vs-gen0.json vs-anchor.json; do
      [ -f "$g/$f" ] && mkdir -p "$OUT/$name/$(basename "$g")" && cp "$g/$f" "$OUT/$name/$(basename "$g")/"
    done
  done
  rm -f "$OUT/$name/stdout.txt"
done
