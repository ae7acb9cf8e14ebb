#!/usr/bin/env bash
# Alpha-beta's balance ladder at fixed depths, beside the time ladder of ladder.sh (issue 26).
# At a fixed time a move the depth a search completes differs between the sides and from move to
# move (depths.py); at a fixed depth both sides search alike, and the games depend neither on the
# machine's speed nor on its load. The balance alternates with the parity of the depth (the side
# whose move ends the search is the optimist), so the even depths and the odd depths are two
# ladders, each with its own trend and equivalence test: a trend within one parity is one of
# strength alone.
#   experiments/balance-study/depth-ladder.sh VARIANT
# Environment: TAVLEI_BIN (default ./target/release/tavlei), EVEN and ODD (the depths of each
# ladder; default 2,4,6 and 3,5 up to 9x9, 2,4 and 3,5 above), GAMES (default 100 up to 9x9, 50
# above), STRONGEST_GAMES (games at the deepest even level, the costliest; default GAMES),
# THREADS (default 2: one game a core), EVAL (an alpha-beta settings file, e.g.
# configs/alphabeta/quiescence.toml: the agents play ab:D:eval=EVAL, and the output goes to
# depth-ladders/VARIANT-NAME/, NAME the file's stem). Games are stored as they finish; a killed
# run resumes from them. Output in depth-ladders/VARIANT/{even,odd}/, each read by families.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
variant=$1
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/balance-study/depth-ladders/$variant
settings=
if [ -n "${EVAL:-}" ]; then
  [ -f "$EVAL" ] || { echo "depth-ladder.sh: no settings file $EVAL" >&2; exit 2; }
  settings=:eval=$EVAL
  out=$out-$(basename "$EVAL" .toml)
fi
. experiments/balance-study/board.sh
side=$(board_side "$variant")
if [ "$side" -le 9 ]; then even=2,4,6 odd=3,5 games=100; else even=2,4 odd=3,5 games=50; fi
games=${GAMES:-$games}
ladder() { # parity, depths, games at the deepest
  "$BIN" balance --variant "$variant" --seed 1 --threads "${THREADS:-2}" --agent "ab:${2##*,}$settings" \
    --levels "$2" --games "$games" --strongest-games "$3" --out "$out/$1/ab" --csv > "$out/$1/ab.csv"
  python3 experiments/balance-study/families.py "$out/$1" depth-ladder.sh | tee "$out/$1/README.md"
}
mkdir -p "$out/even" "$out/odd"
ladder even "${EVEN:-$even}" "${STRONGEST_GAMES:-$games}"
ladder odd "${ODD:-$odd}" "$games"
