#!/usr/bin/env bash
# Texel tuning of the alpha-beta evaluation on Brandubh (issue 26, item 4): the games it is
# fitted to, the ridge screened by matches on one set of openings, and the chosen fit confirmed
# on fresh openings at two times a move. Reruns skip whatever is already written.
# Usage: experiments/texel/run.sh [TAVLEI_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${1:-target/release/tavlei}
E=experiments/texel/brandubh

# the games: alpha-beta at depths 2, 3, 4 (300 each) and at 20 ms a move (300), from distinct
# 4-ply openings (the 20 ms games depend on the machine's speed: not reproducible to the move)
[ -f $E/study-depths/balance.json ] || $T --threads 2 balance --variant brandubh --agent ab:2 \
    --levels 2,3,4 --games 300 --opening-plies 4 --seed 11 --out $E/study-depths
[ -f $E/study-t20ms/balance.json ] || $T --threads 2 balance --variant brandubh --agent ab:t=20ms \
    --games 300 --opening-plies 4 --seed 12 --out $E/study-t20ms
GAMES=($E/study-depths/games $E/study-t20ms/games)

match() { # OUT A B PAIRS SEED
    [ -f "$1/match.json" ] || $T match --variant brandubh "$2" "$3" --pairs "$4" --seed "$5" --out "$1" >/dev/null
}

# the ridge (pull towards the compiled weights) screened: 100 pairs at 20 ms, seed 5
for r in 0.01 1 3 10; do
    [ -f $E/ridge-$r/tune.json ] || $T tune --variant brandubh --games "${GAMES[@]}" --ridge $r \
        --seed 1 --out $E/ridge-$r >$E/ridge-$r.txt
    match $E/ridge-$r/vs-untuned-t20ms-seed5 ab:t=20ms:eval=$E/ridge-$r/alphabeta.toml ab:t=20ms 100 5
done

# the chosen ridge (3, the default of `tavlei tune`) on fresh openings: seed 6, 20 ms and 100 ms
match $E/ridge-3/vs-untuned-t20ms-seed6 ab:t=20ms:eval=$E/ridge-3/alphabeta.toml ab:t=20ms 100 6
match $E/ridge-3/vs-untuned-t100ms-seed6 ab:t=100ms:eval=$E/ridge-3/alphabeta.toml ab:t=100ms 100 6
# a second fresh set of openings at 100 ms (seed 7)
match $E/ridge-3/vs-untuned-t100ms-seed7 ab:t=100ms:eval=$E/ridge-3/alphabeta.toml ab:t=100ms 100 7

# quiet positions only, fitted from the settings with a quiescence search (the only positions
# whose static evaluation that search reads), against those settings untuned: 100 ms, seed 6
Q=configs/alphabeta/quiescence.toml
[ -f $E/quiet-ridge-3/tune.json ] || $T tune --variant brandubh --games "${GAMES[@]}" --quiet-positions \
    --base $Q --seed 1 --out $E/quiet-ridge-3 >$E/quiet-ridge-3.txt
# (one game at a time: it ran beside a timed balance ladder on the other core)
O=$E/quiet-ridge-3/vs-quiescence-t100ms-seed6
[ -f $O/match.json ] || $T match --variant brandubh ab:t=100ms:eval=$E/quiet-ridge-3/alphabeta.toml \
    ab:t=100ms:eval=$Q --pairs 100 --seed 6 --threads 1 --out $O >/dev/null
