#!/usr/bin/env bash
# Self-play positions per core-second (issue 44, item 0), measured side by side: the generator of
# the run behind the shipped Copenhagen network (commit 4a63564, built as OLD_BIN) against
# today's (NEW_BIN) in f32, in bf16 and in int8, the same network (models/copenhagen.safetensors), the
# same self-play settings (the run's: 96 / 24 simulations, 35 % full searches, 100 games in
# flight), the same seed and games. Each process is pinned to a core of its own (taskset) with
# one worker and one libtorch thread; pairs run at the same time so each sees the other's load.
# Core-seconds are the process's user + system CPU time (/usr/bin/time), positions its own count.
# Without OLD_BIN only the last pair runs (today's f32 beside int8): int8's rate on a CPU
# where the old generator was not built, e.g. to see which int8 kernel pays (`tavlei info`).
#   [OLD_BIN=...] [NEW_BIN=...] [GAMES=240] experiments/learning/selfplay-rate/measure.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?out dir}
OLD_BIN=${OLD_BIN:-}
NEW_BIN=${NEW_BIN:-./target/release/tavlei}
GAMES=${GAMES:-240}
here=experiments/learning/selfplay-rate
mkdir -p "$out"
one() { # core name bin config
  local dir=$out/$2
  rm -rf "$dir.games"
  taskset -c "$1" /usr/bin/time -f "%U %S %e" -o "$dir.time" env RAYON_NUM_THREADS=1 \
    "$3" --threads 1 --torch-threads 1 selfplay --variant copenhagen \
    --model models/copenhagen.safetensors --config "$4" --games "$GAMES" --seed 1 \
    --out "$dir.games" > "$dir.txt" 2>/dev/null
  rm -rf "$dir.games"
}
# the old generator beside today's in f32, then beside today's in bf16; then int8 beside f32
if [ -n "$OLD_BIN" ]; then
  one 0 old "$OLD_BIN" $here/copenhagen-run.toml &
  one 1 new-f32 "$NEW_BIN" $here/copenhagen-run.toml
  one 1 new-bf16 "$NEW_BIN" $here/copenhagen-run-bf16.toml
  wait
fi
one 0 new-f32-again "$NEW_BIN" $here/copenhagen-run.toml &
one 1 new-int8 "$NEW_BIN" $here/copenhagen-run-int8.toml
wait
python3 $here/rate.py "$out"
