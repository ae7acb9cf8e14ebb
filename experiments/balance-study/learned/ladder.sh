#!/usr/bin/env bash
# The learned-evaluation family's ladder (issue 43's player, issue 45's fourth item): alpha-beta
# scoring its leaves with the variant's shipped learned evaluation (models/VARIANT.nnue) plays
# both sides at fixed depths of one parity (2 / 4 / 6: plain alpha-beta's shares follow the parity
# of its depth), beside the shipped network's ladder (ladders/VARIANT/net, linked as net/), and
# the cross-family games between the two strongest levels. Fixed depths make every game
# reproducible and independent of the machine's load.
#   experiments/balance-study/learned/ladder.sh VARIANT
# Environment: TAVLEI_BIN (default ./target/release/tavlei), LEVELS (default 2,4,6), GAMES (games
# a level, default 120: every 2-ply opening of Brandubh once, the network ladder's openings), PAIRS
# (cross-family pairs, default 50), THREADS (default 1).
# Output in learned/VARIANT/ (read by families.py); a killed run resumes from its stored games.
set -euo pipefail
cd "$(dirname "$0")/../../.."
variant=$1
BIN=${TAVLEI_BIN:-./target/release/tavlei}
out=experiments/balance-study/learned/$variant
nnue=models/$variant.nnue
net=models/$variant.safetensors
levels=${LEVELS:-2,4,6}
top=${levels##*,}
common=(--variant "$variant" --seed 1 --threads "${THREADS:-1}" --torch-threads 1)
mkdir -p "$out"
"$BIN" balance "${common[@]}" --agent "ab:$top:nnue=$nnue" --levels "$levels" \
  --games "${GAMES:-120}" --out "$out/ab" --csv > "$out/ab.csv"
if [ -d "experiments/balance-study/ladders/$variant/net" ]; then
  [ -e "$out/net" ] || ln -s "../../ladders/$variant/net" "$out/net"
  [ -f "$out/cross/match.json" ] || "$BIN" match "${common[@]}" "ab:$top:nnue=$nnue" "net:$net:512" \
    --pairs "${PAIRS:-50}" --out "$out/cross" > "$out/cross.txt"
fi
python3 experiments/balance-study/families.py "$out" learned/ladder.sh | tee "$out/README.md"
