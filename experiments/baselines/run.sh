#!/usr/bin/env bash
# The agents from before issue 11 that this script measures against (`mcts-old`, `gumbel-old`)
# were removed after commit 56237c3: run it with a build of that commit.
# Baselines of issue 11: Bradley-Terry ladders at an equal time per move (50 ms) on brandubh,
# tavlei and copenhagen, and node-budget matches for the Gumbel fix and for alpha-beta at a small
# and a large budget. Two processes share the machine's two cores; each plays one game at a time
# (time budgets), so every move's clock measures only its own search.
# Usage (from the repository root, after `make build`): bash experiments/baselines/run.sh, then
# bash experiments/baselines/run.sh third (the third batch ran on the core the second freed).
set -euo pipefail
cd "$(dirname "$0")/../.."
T=./target/release/tavlei
OUT=experiments/baselines
COMMON=(--pairs 8 --seed 11 --temperature-plies 0 --device cpu)
NETB=models/brandubh.safetensors
NETT=models/tavlei.safetensors
AGENTS_TIMED="random,mcts-old:t=50ms,mcts-uct:t=50ms,mcts:t=50ms,ab:t=50ms"

first() {
  $T ladder --variant brandubh --agents "$AGENTS_TIMED,net:$NETB:t=50ms,gumbel:$NETB:t=50ms" \
    "${COMMON[@]}" --out $OUT/ladder-brandubh > $OUT/ladder-brandubh.txt
  $T ladder --variant tavlei --agents "$AGENTS_TIMED,net:$NETT:t=50ms,gumbel:$NETT:t=50ms" \
    "${COMMON[@]}" --out $OUT/ladder-tavlei > $OUT/ladder-tavlei.txt
}

second() {
  $T ladder --variant copenhagen --agents "$AGENTS_TIMED" "${COMMON[@]}" \
    --out $OUT/ladder-copenhagen > $OUT/ladder-copenhagen.txt
  # the Gumbel fix at equal simulations (the network's own variant)
  for n in 8 16; do
    $T match --variant brandubh "gumbel:$NETB:$n" "gumbel-old:$NETB:$n" --pairs 30 --seed 12 \
      --device cpu --out $OUT/gumbel-brandubh-$n > $OUT/gumbel-brandubh-$n.txt
  done
  # alpha-beta against the full pure MCTS at a small and a large time budget
  for t in 10ms 200ms; do
    $T match --variant brandubh "ab:t=$t" "mcts:t=$t" --pairs 12 --seed 13 --temperature-plies 0 \
      --out $OUT/ab-vs-mcts-brandubh-$t > $OUT/ab-vs-mcts-brandubh-$t.txt
  done
}

third() {
  for n in 8 16; do
    $T match --variant tavlei "gumbel:$NETT:$n" "gumbel-old:$NETT:$n" --pairs 30 --seed 12 \
      --device cpu --out $OUT/gumbel-tavlei-$n > $OUT/gumbel-tavlei-$n.txt
  done
  for t in 10ms 200ms; do
    $T match --variant copenhagen "ab:t=$t" "mcts:t=$t" --pairs 8 --seed 13 --temperature-plies 0 \
      --out $OUT/ab-vs-mcts-copenhagen-$t > $OUT/ab-vs-mcts-copenhagen-$t.txt
  done
}

# equal simulations: the fixed pure MCTS against the old one and both against random
equal() {
  $T match --variant brandubh mcts:200 mcts-old:200 --pairs 20 --seed 1 \
    --out $OUT/mcts-vs-old-brandubh-200 > $OUT/mcts-vs-old-brandubh-200.txt
  for a in mcts:32 mcts-old:32; do
    $T match --variant brandubh $a random --pairs 20 --seed 2 \
      --out $OUT/vs-random-brandubh-${a/:/-} > $OUT/vs-random-brandubh-${a/:/-}.txt
  done
  for a in mcts:64 mcts-old:64; do
    $T match --variant copenhagen $a random --pairs 10 --seed 3 \
      --out $OUT/vs-random-copenhagen-${a/:/-} > $OUT/vs-random-copenhagen-${a/:/-}.txt
  done
}

if [ "${1:-}" = equal ]; then
  equal
  exit
fi
if [ "${1:-}" = third ]; then
  third > $OUT/third.log 2>&1
  exit
fi
first > $OUT/first.log 2>&1 &
second > $OUT/second.log 2>&1 &
wait
