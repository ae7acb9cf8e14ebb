#!/usr/bin/env bash
# Scores the runs of run.sh against the fixed anchors at equal time (100 ms a move, one thread a
# side): the first Tablut network (`models/previous/tablut-gen16.safetensors`; the stored matches
# name it `models/tablut.safetensors`, its path when they were played) and the compiled alpha-beta.
# For each run and each budget mark (CPU seconds), the network scored is the newest whose
# making (self-play, teacher games and training of the generations before it) cost at most the
# mark. Every checkpoint meets each anchor on the same openings (one seed per anchor).
# VARIANT=tavlei scores run.sh's runs of that preset (in RUNS/tavlei/, records in tavlei/ here)
# against `models/tavlei.safetensors` (shipped 2026-12-02) and the same alpha-beta.
#   [VARIANT=tablut] [MARKS="375 750 1500 2250"] [PAIRS=10] [RUNS=runs/core-hours] experiments/learning/core-hours/score.sh NAME...
# (NAME: arm-seedS, e.g. base-seed1)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
RUNS=${RUNS:-runs/core-hours}
MARKS=${MARKS:-375 750 1500 2250}
PAIRS=${PAIRS:-10}
OUT=experiments/learning/core-hours
VARIANT=${VARIANT:-tablut}
declare -A ANCHOR=([net]=net:models/previous/tablut-gen16.safetensors:t=100ms [ab]=ab:t=100ms)
case $VARIANT in
  tablut) ;;
  tavlei) OUT=$OUT/tavlei RUNS=$RUNS/tavlei ANCHOR[net]=net:models/tavlei.safetensors:t=100ms ;;
  *) echo "no anchors for $VARIANT" >&2; exit 1 ;;
esac
declare -A SEED=([net]=441 [ab]=442)
for name in "$@"; do
  for mark in $MARKS; do
    g=$(python3 experiments/learning/core-hours/checkpoint.py "$RUNS/$name" "$mark")
    [ "$g" -gt 0 ] || { echo "$name: no network made within $mark CPU seconds" >&2; continue; }
    net=$RUNS/$name/gen-$(printf %03d "$g")/model.safetensors
    for a in net ab; do
      dir=$OUT/$name/mark-$mark/vs-$a
      [ -f "$dir/match.json" ] && continue
      echo "== $name at $mark s: generation $g vs ${ANCHOR[$a]} ($(date +%H:%M))"
      RAYON_NUM_THREADS=1 "$BIN" --threads 1 --torch-threads 1 match --variant "$VARIANT" "net:$net:t=100ms" "${ANCHOR[$a]}" \
        --pairs "$PAIRS" --seed "${SEED[$a]}" --out "$dir" > /dev/null
    done
  done
done
