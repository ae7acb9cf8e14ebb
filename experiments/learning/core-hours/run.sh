#!/usr/bin/env bash
# Strength per core-hour on Tablut (issue 44, item 1): one arm of the table, one seed.
# The recipe of the shipped Tablut network (configs/pipeline/tablut-model.toml) on one core
# (no overlap, one thread), with 120 self-play and 40 teacher games a generation so that short
# budgets still hold several generations, and the pipeline's own evaluation cut to a token (the
# anchors are played by score.sh on chosen checkpoints instead). The run goes on generation by
# generation (the pipeline resumes and only more generations may be asked for) until the CPU
# seconds of its self-play, teacher games and training reach BUDGET; evaluation is not counted.
# VARIANT (default tablut) plays the same recipe on another preset, its records in VARIANT/ here
# and its runs in RUNS/VARIANT/.
#   [VARIANT=tablut] [BUDGET=2250] [RUNS=runs/core-hours] experiments/learning/core-hours/run.sh ARM SEED
# Arms, each one change from base (the recipe, 3x32): wide (6x64), mid (4x48), gumbel (Gumbel root
# search at 16 / 8 simulations), reuse2 and reuse8 (training samples per new sample, 4 in base),
# window10k (the replay window starts at 10,000 samples instead of 40,000 and grows as before),
# bf16 (self-play's forward passes in bf16: the same games cost fewer core-seconds), nnueteacher
# (the teacher's alpha-beta at depth 3 evaluates with the shipped learned evaluation of the
# variant, models/VARIANT.nnue, instead of the compiled one: a stronger teacher for both sides),
# noreps (games that ended by repetition or the length cap train the policy only,
# `value_leave_out`: a repetition draw does not say who stood better), sidebalance (the value
# loss weighs the samples of each side's wins alike in total, `value_side_balance = 1`), abstarts
# (half the self-play games start after 2-30 plies of the teacher's alpha-beta against itself,
# `[selfplay.starts]`: positions with an attack under way, which self-play seldom reaches), int8
# (self-play's forward passes in 8-bit integers, `precision = "int8"`: about three times the
# positions a core-second; training and the teacher unchanged).
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
BUDGET=${BUDGET:-2250}
RUNS=${RUNS:-runs/core-hours}
OUT=experiments/learning/core-hours
arm=${1:?arm}
seed=${2:?seed}
declare -A EDIT=(
  [base]=''
  [wide]='s/^blocks = 3/blocks = 6/; s/^channels = 32/channels = 64/'
  [mid]='s/^blocks = 3/blocks = 4/; s/^channels = 32/channels = 48/'
  [gumbel]='s/^gumbel = false/gumbel = true/; s/^simulations = 96/simulations = 16/; s/^fast_simulations = 24/fast_simulations = 8/'
  [reuse2]='s/^reuse = 4.0/reuse = 2.0/'
  [reuse8]='s/^reuse = 4.0/reuse = 8.0/'
  [window10k]='s/^window_min = 40000/window_min = 10000/'
  [bf16]='/^cache_size = /a precision = "bf16"'
  [nnueteacher]='s|^agent = "ab:3"$|agent = "ab:3:nnue=models/VARIANT.nnue"|'
  [noreps]='/^short_value_horizon = /a value_leave_out = ["repetition", "length_cap"]'
  [sidebalance]='/^short_value_horizon = /a value_side_balance = 1.0'
  [abstarts]='$a [selfplay.starts]\nshare = 0.5\nplies = [2, 30]\nagent = "ab:3"'
  [int8]='/^cache_size = /a precision = "int8"'
)
[ -n "${EDIT[$arm]+set}" ] || { echo "unknown arm $arm (${!EDIT[*]})" >&2; exit 1; }
VARIANT=${VARIANT:-tablut}
name=$arm-seed$seed
here=$OUT
[ "$VARIANT" = tablut ] || { here=$OUT/$VARIANT; RUNS=$RUNS/$VARIANT; }
run=$RUNS/$name
mkdir -p "$RUNS" "$here/$name"
cfg=$here/$name/config.toml
# one edit list for every arm; `generations` is rewritten below as the run grows
COMMON="s/^variant = .*/variant = \"$VARIANT\"/; s/^seed = .*/seed = $seed/; s/^overlap = true/overlap = false/"
spent() { # CPU seconds of self-play, teacher games and training over the run's generations
  python3 "$OUT/checkpoint.py" --spent "$run"
}
gens=0
[ -f "$run/state.json" ] && gens=$(python3 -c "import json; print(json.load(open('$run/state.json'))['generations_done'])")
while [ "$(spent)" -lt "$BUDGET" ]; do
  gens=$((gens + 1))
  sed -e "$COMMON" -f "$OUT/shortened.sed" -e "s/^generations = .*/generations = $gens/" \
    configs/pipeline/tablut-model.toml > "$cfg.base"
  sed -e "${EDIT[$arm]//VARIANT/$VARIANT}" "$cfg.base" > "$cfg"
  if [ -n "${EDIT[$arm]}" ] && cmp -s "$cfg" "$cfg.base"; then echo "$arm: the edit changed nothing" >&2; exit 1; fi
  rm "$cfg.base"
  echo "== $name generation $gens ($(date +%H:%M), $(spent) s spent)"
  RAYON_NUM_THREADS=1 "$BIN" --threads 1 --torch-threads 1 pipeline --config "$cfg" --run-dir "$run" --balance-games 0 > /dev/null
done
cp "$run/summary.md" "$here/$name/"
for g in "$run"/gen-*; do
  mkdir -p "$here/$name/$(basename "$g")"
  for f in selfplay.json teacher.json train.json time.json; do
    [ -f "$g/$f" ] && cp "$g/$f" "$here/$name/$(basename "$g")/"
  done
done
echo "$name: $gens generations, $(spent) CPU seconds"
