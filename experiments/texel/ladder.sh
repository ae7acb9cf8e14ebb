#!/usr/bin/env bash
# Texel tuning of one variant on its strength ladder's alpha-beta games (issue 26, item 4;
# experiments/balance-study/ladders/VARIANT/ab/games, every level, from distinct openings): the
# default fit (ridge 3), then 100 pairs against the compiled weights at 20 ms and at 100 ms a move
# (seed 6). Tablut's is in tablut/; Brandubh's, which plays its own games and screens the ridge,
# is run.sh's. Reruns skip what exists.
# Usage: experiments/texel/ladder.sh VARIANT [TAVLEI_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
variant=$1
T=${2:-target/release/tavlei}
E=experiments/texel/$variant
GAMES=experiments/balance-study/ladders/$variant/ab/games
[ -d $GAMES ] || { echo "ladder.sh: no ladder games in $GAMES (experiments/balance-study/ladder.sh $variant)" >&2; exit 2; }
mkdir -p $E
[ -f $E/ridge-3/tune.json ] || $T tune --variant "$variant" --games $GAMES --ridge 3 --seed 1 \
    --out $E/ridge-3 >$E/ridge-3.txt
for t in 20ms 100ms; do
    out=$E/ridge-3/vs-untuned-t$t-seed6
    [ -f $out/match.json ] || $T match --variant "$variant" --threads 2 \
        "ab:t=$t:eval=$E/ridge-3/alphabeta.toml" "ab:t=$t" --pairs 100 --seed 6 --out $out >/dev/null
done
