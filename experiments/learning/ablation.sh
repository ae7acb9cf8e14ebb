#!/usr/bin/env bash
# The sample-efficiency ablations of issue 25 on Brandubh: the overlapped loop of
# configs/pipeline/brandubh-overlap.toml, shortened (GENS generations of GAMES games), with one
# setting changed per arm, each arm under two seeds. Equal compute: an arm that searches fewer
# simulations a move plays more games, so every arm spends about the same network evaluations a
# generation. Each last network then plays the base arm's last network of the same seed, 50
# pairs at 32 simulations, and every arm's (base included) plays alpha-beta to depth 2, 50 pairs
# on the same openings: a fixed anchor against which these networks hold about half their
# defences, where two networks at 32 simulations almost only win as defenders. Shards and
# networks stay in runs/ablation/;
# summaries, match files and the edited configs are copied to experiments/learning/ablation/,
# and experiments/learning/ablation/table.py makes the table of the results.
#   [SEEDS="1 2"] [GENS=8] [GAMES=600] [OUT=DIR] [RUNS=DIR] experiments/learning/ablation.sh [ARM...]
# (default: every arm; OUT and RUNS default to experiments/learning/ablation and runs/ablation)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
OUT=${OUT:-experiments/learning/ablation}
RUNS=${RUNS:-runs/ablation}
SEEDS=${SEEDS:-1 2}
GENS=${GENS:-8}
GAMES=${GAMES:-600}
LAST=gen-$(printf %03d "$GENS")
SHORT="s/^generations = .*/generations = $GENS/; s/^games_per_generation = .*/games_per_generation = $GAMES/"
declare -A EDIT=(
  [base]=''
  # KataGo's forced playouts with policy target pruning, k = 2
  [forced]='s/^solver = false/solver = false\nforced_playouts = 2.0/'
  # no teacher games: self-play alone
  [noteacher]='/^\[teacher\]/,$ s/^games = .*/games = 0/'
  # the value target half the result, half the search values of the next ~6 plies
  [short]='s/^value_discount = 1.0/value_discount = 1.0\nshort_value_weight = 0.5\nshort_value_horizon = 6.0/'
  # the value target discounted by the plies left (a later loss is worth more than a quick one),
  # as in the Copenhagen network's run
  [discount]='s/^value_discount = 1.0/value_discount = 0.97/'
  # an auxiliary head learning the opponent's reply (KataGo's weight)
  [reply]='s/^value_discount = 1.0/value_discount = 1.0\nreply_weight = 0.15/'
  # Gumbel root search at 16 / 8 simulations (10.8 a move against 32.8): three times the games
  [gumbel16]="s/^gumbel = false/gumbel = true/; s/^simulations = 64/simulations = 16/; s/^fast_simulations = 16/fast_simulations = 8/; s/^games_per_generation = .*/games_per_generation = $((3 * GAMES))/"
  # the same at about the base arm's self-play CPU: round 1 measured 3x the games at 1.8x the CPU,
  # so 1.6x the games
  [gumbel16eq]="s/^gumbel = false/gumbel = true/; s/^simulations = 64/simulations = 16/; s/^fast_simulations = 16/fast_simulations = 8/; s/^games_per_generation = .*/games_per_generation = $((8 * GAMES / 5))/"
)
arms=("$@")
[ ${#arms[@]} -eq 0 ] && arms=(base forced noteacher gumbel16)
for arm in "${arms[@]}"; do
  [ -n "${EDIT[$arm]+set}" ] || { echo "unknown arm $arm (${!EDIT[*]})" >&2; exit 1; }
  for seed in $SEEDS; do
    name=$arm-seed$seed
    mkdir -p "$RUNS" "$OUT/$name"
    cfg="$OUT/$name/config.toml"
    sed -e "$SHORT" -e "s/^seed = .*/seed = $seed/" configs/pipeline/brandubh-overlap.toml | sed -e "${EDIT[$arm]}" > "$cfg"
    if [ -n "${EDIT[$arm]}" ] && cmp -s "$cfg" <(sed -e "$SHORT" -e "s/^seed = .*/seed = $seed/" configs/pipeline/brandubh-overlap.toml); then
      echo "$arm: the edit changed nothing" >&2; exit 1
    fi
    echo "== $name ($(date +%H:%M))"
    run=$RUNS/$name
    "$BIN" pipeline --config "$cfg" --run-dir "$run" --balance-games 0 > "$OUT/$name/stdout.txt"
    cp "$run/summary.md" "$run/ladder.json" "$OUT/$name/" 2>/dev/null || true
    for g in "$run"/gen-*; do
      for f in selfplay.json teacher.json train.json time.json match.json vs-gen0.json vs-anchor.json; do
        [ -f "$g/$f" ] && mkdir -p "$OUT/$name/$(basename "$g")" && cp "$g/$f" "$OUT/$name/$(basename "$g")/"
      done
    done
    rm -f "$OUT/$name/stdout.txt"
    [ -f "$OUT/$name/vs-ab2/match.json" ] || "$BIN" match --variant brandubh \
      "net:$run/$LAST/model.safetensors:32" ab:2 --pairs 50 --seed 8 --out "$OUT/$name/vs-ab2" > /dev/null
    if [ "$arm" != base ] && [ -f "$RUNS/base-seed$seed/$LAST/model.safetensors" ]; then
      [ -f "$OUT/$name/vs-base/match.json" ] || "$BIN" match --variant brandubh \
        "net:$run/$LAST/model.safetensors:32" "net:$RUNS/base-seed$seed/$LAST/model.safetensors:32" \
        --pairs 50 --seed 7 --out "$OUT/$name/vs-base" > /dev/null
      python3 -c "import json; m=json.load(open('$OUT/$name/vs-base/match.json')); e=m['elo_pairs']; print('$name vs base:', m['score'], e['elo'], e['low'], e['high'], m['as_attacker'], m['as_defender'])"
    fi
  done
done
