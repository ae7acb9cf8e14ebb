#!/usr/bin/env bash
# The balance study with players that deserve the name (issue 12, item 6): every preset at two
# strengths of alpha-beta at equal time per move (100 games per level on boards up to 9x9, 50
# above). Games run on both cores (--threads, default every core); a killed study resumes from
# its stored games. The networks' balance (200 games at 32 and 128 simulations) is part of each
# model's evidence: models/evidence.sh writes it to models/VARIANT-evidence/balance/.
#   experiments/balance-study/run-ab.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=./target/release/tavlei
OUT=experiments/balance-study
"$BIN" balance --variants all --agent ab:t=10ms --levels t=10ms,t=40ms --games 100 --large-games 50 \
  --seed 1 --out "$OUT/results-ab" > "$OUT/results-ab.txt"
