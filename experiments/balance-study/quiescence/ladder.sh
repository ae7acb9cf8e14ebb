#!/usr/bin/env bash
# Alpha-beta's time ladder (ladder.sh's levels: 10 / 40 / 160 ms a move, and 640 ms up to 9x9)
# played with a quiescence search (configs/alphabeta/quiescence.toml), to set beside the
# variant's ladder without one in ladders/VARIANT/. The games are timed: run it with nothing else
# at normal priority.
#   experiments/balance-study/quiescence/ladder.sh VARIANT
# Environment: TAVLEI_BIN, GAMES (default 100 up to 9x9, 50 above), STRONGEST_GAMES (games at the
# strongest level, the costliest; default GAMES), THREADS (default 1), LEVELS.
# Output in quiescence/VARIANT/ (read by families.py); a killed run resumes from its stored games.
set -euo pipefail
cd "$(dirname "$0")/../../.."
variant=$1
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/balance-study/quiescence/$variant
. experiments/balance-study/board.sh
side=$(board_side "$variant")
if [ "$side" -le 9 ]; then levels=t=10ms,t=40ms,t=160ms,t=640ms games=100; else levels=t=10ms,t=40ms,t=160ms games=50; fi
levels=${LEVELS:-$levels}
mkdir -p "$out"
"$BIN" balance --variant "$variant" --seed 1 --threads "${THREADS:-1}" \
  --agent "ab:${levels##*,}:eval=configs/alphabeta/quiescence.toml" --levels "$levels" \
  --games "${GAMES:-$games}" --strongest-games "${STRONGEST_GAMES:-${GAMES:-$games}}" \
  --out "$out/ab" --csv > "$out/ab.csv"
python3 experiments/balance-study/families.py "$out" quiescence/ladder.sh | tee "$out/README.md"
