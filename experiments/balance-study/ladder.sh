#!/usr/bin/env bash
# Issue 26's strength ladder of one variant, both player families and the games between them:
#   1. alpha-beta playing both sides at 10 / 40 / 160 / 640 ms a move (10 / 40 / 160 on boards
#      above 9x9): the trend across levels and the equivalence of the two strongest (TOST);
#   2. the variant's shipped network at 32 / 128 / 512 simulations, the same tests;
#   3. the cross-family games: the strongest network against the strongest alpha-beta, each
#      opening played twice with the sides swapped, so the network attacks the alpha-beta's
#      defence and the reverse from the same openings.
# Every level draws its openings without replacement from the variant's distinct openings, so no
# cell holds a copy of a game unless its table says so. Games are stored as they finish; a killed
# run resumes from them. The reading of the three (measured / trending / families disagree,
# whose attack and whose defence is stronger) is `families.py`'s.
#   experiments/balance-study/ladder.sh VARIANT
# Environment: TAVLEI_BIN (default ./target/release/tavlei), GAMES (default 100 up to 9x9, 50
# above), STRONGEST_GAMES (games at alpha-beta's strongest level, the costliest; default GAMES,
# the issue's design allows 50), PAIRS (cross-family pairs, default GAMES / 2), THREADS (default
# 2: one game a core), AB_LEVELS (alpha-beta's levels, e.g. t=10ms,t=40ms,t=160ms,t=640ms; the
# last is the strongest, the one the cross-family games use: move an older cross/ aside when the
# top level changes). A ladder keeps the settings it was run with in its settings.env, so a
# rerun without them plays nothing new; a setting given again overrides (and is kept).
set -euo pipefail
cd "$(dirname "$0")/../.."
variant=$1
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/balance-study/ladders/$variant
net=models/$variant.safetensors
threads=${THREADS:-2}
. experiments/balance-study/board.sh
side=$(board_side "$variant")
if [ "$side" -le 9 ]; then
  ab_levels=t=10ms,t=40ms,t=160ms,t=640ms games=100
else
  ab_levels=t=10ms,t=40ms,t=160ms games=50
fi
settings=$out/settings.env
# shellcheck source=/dev/null
[ -f "$settings" ] && . "$settings"
# a ladder that still trends at its top gets more levels (stored levels are not replayed)
ab_levels=${AB_LEVELS:-$ab_levels}
games=${GAMES:-$games}
strongest=${STRONGEST_GAMES:-${strongest:-$games}}
pairs=${PAIRS:-${pairs:-$((games / 2))}}
ab_top=${ab_levels##*,}
mkdir -p "$out"
printf 'ab_levels=%s\ngames=%s\nstrongest=%s\npairs=%s\n' "$ab_levels" "$games" "$strongest" "$pairs" \
  > "$settings"
# one game a core, one libtorch thread a search: the network-speed issue's discipline
common=(--variant "$variant" --seed 1 --threads "$threads" --torch-threads 1)
# Ladders before Tablut's committed their game records (.txt) but not the stores a run resumes
# from (.jsonl): rerunning such a family would replay its levels and overwrite the committed
# games, so it is kept as committed (and cannot be extended from this checkout).
stored() { # family directory: 0 when every committed record has its store
  local txt
  for txt in "$1"/games/*.txt; do
    [ -e "$txt" ] || continue
    [ -f "${txt%.txt}.jsonl" ] || {
      echo "ladder.sh: $txt has no store beside it: $(basename "$1") levels kept as committed" >&2
      return 1
    }
  done
}
if stored "$out/ab"; then
  "$BIN" balance "${common[@]}" --agent "ab:$ab_top" --levels "$ab_levels" --games "$games" \
    --strongest-games "$strongest" --out "$out/ab" --csv > "$out/ab.csv"
fi
if [ -f "$net" ]; then
  if stored "$out/net"; then
    "$BIN" balance "${common[@]}" --agent "net:$net:512" --levels 32,128,512 --games "$games" \
      --out "$out/net" --csv > "$out/net.csv"
  fi
  [ -f "$out/cross/match.json" ] || "$BIN" match "${common[@]}" "net:$net:512" "ab:$ab_top" \
    --pairs "$pairs" --out "$out/cross" > "$out/cross.txt"
fi
python3 experiments/balance-study/families.py "$out" | tee "$out/README.md"
