#!/usr/bin/env bash
# Does a run keep both cores busy (issue 44: "a run's cores busy >= 1.8 on average")? The Tablut
# recipe (configs/pipeline/tablut-model.toml, overlapped: training and teacher games beside the
# next generation's self-play) with self-play in two lanes on every core (`lanes = 2`,
# `workers = 0`) and bf16 forward passes, 120 self-play and 40 teacher games a generation, the
# pipeline's own evaluation cut to a token (../core-hours/shortened.sed); nothing else may run on
# the machine. The summary's "cores busy on average" is the answer (copied here with config.toml).
#   [GENERATIONS=8] [RUNS=runs] experiments/learning/two-cores/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
RUNS=${RUNS:-runs}
out=experiments/learning/two-cores
run=$RUNS/two-cores
sed -e "s/^generations = .*/generations = ${GENERATIONS:-8}/" \
  -f experiments/learning/core-hours/shortened.sed -e '/^concurrent_games = /a lanes = 2\nworkers = 0
  /^cache_size = /a precision = "bf16"' \
  configs/pipeline/tablut-model.toml > "$out/config.toml"
grep -q '^lanes = 2' "$out/config.toml" && grep -q '^overlap = true' "$out/config.toml"
"$BIN" pipeline --config "$out/config.toml" --run-dir "$run" --balance-games 0 > /dev/null
cp "$run/summary.md" "$out/"
grep -o "[0-9.]* cores busy on average" "$out/summary.md"
