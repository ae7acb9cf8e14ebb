#!/usr/bin/env bash
# Texel tuning on Tablut (issue 26, item 4): the default fit (ridge 3) on the Tablut ladder's
# alpha-beta games (10 to 640 ms a move, 400 games from distinct 2-ply openings), then 100 pairs
# against the compiled weights at 20 ms and at 100 ms a move (seed 6). Reruns skip what exists.
# Usage: experiments/texel/tablut.sh [TAVLEI_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${1:-target/release/tavlei}
E=experiments/texel/tablut
GAMES=experiments/balance-study/ladders/tablut/ab/games
mkdir -p $E
[ -f $E/ridge-3/tune.json ] || $T tune --variant tablut --games $GAMES --ridge 3 --seed 1 \
    --out $E/ridge-3 >$E/ridge-3.txt
for t in 20ms 100ms; do
    out=$E/ridge-3/vs-untuned-t$t-seed6
    [ -f $out/match.json ] || $T match --variant tablut --threads 2 \
        "ab:t=$t:eval=$E/ridge-3/alphabeta.toml" "ab:t=$t" --pairs 100 --seed 6 --out $out >/dev/null
done
