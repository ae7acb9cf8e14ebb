#!/usr/bin/env bash
# A short check of networks on a GPU against the same machine's CPU: `tavlei info --device cuda`,
# self-play games a second (the shipped Brandubh and Copenhagen networks, and a 10x128 network
# the CPU could not afford), and training samples a second (fp32 and bf16 autocast). Made for a
# GPU machine lent for minutes, with a torch of its own: the binary is built elsewhere and finds
# that torch through LD_LIBRARY_PATH and TAVLEI_TORCH_CUDA_LIBRARY. Every step is time-limited
# and logged, so one failed step leaves the others' figures.
#   [TAVLEI_BIN=...] [OUT=DIR] experiments/gpu/check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${TAVLEI_BIN:-./target/release/tavlei}
OUT=${OUT:-/tmp/gpu-check}
W=$(mktemp -d)
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "== $* ($(date -u +%T))"; }
stopped() { # exit status, tag: a line when a step did not finish
  [ "$1" = 0 ] || echo "[$2] stopped: exit $1 (124: the step's time limit)"
}
if [ -z "${TAVLEI_TORCH_CUDA_LIBRARY:-}" ]; then
  # the machine's own torch: its libraries, and the CUDA runtime its wheel depends on
  lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  site=$(dirname "$(dirname "$lib")")
  cuda_dirs=$(find "$site/nvidia" -name 'libcudart.so*' -o -name 'libcupti.so*' 2>/dev/null |
    xargs -r -n1 dirname | sort -u | paste -sd:)
  export LD_LIBRARY_PATH=$lib:$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export TAVLEI_TORCH_CUDA_LIBRARY=$lib/libtorch_cuda.so
  python3 -c 'import torch; print("machine torch", torch.__version__, torch.version.cuda)'
fi
step machine
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "cores: $(nproc)"
"$BIN" info --device cuda || { echo "no CUDA: stopping"; exit 1; }

step "self-play, 1 search thread, the config's 64 games in flight (cpu jobs beside the gpu ones, one core each)"
selfplay() { # variant model games device [config] -> its summary line
  local tag=$1-$(basename "$2" .safetensors)-$4${5:+-$(basename "$5" .toml)}
  timeout 150 "$BIN" selfplay --variant "$1" --model "$2" --games "$3" --device "$4" --seed 1 \
    ${5:+--config "$5"} --out "$W/sp-$tag" 2>&1 | grep -E "games of|evaluations|error" | sed "s/^/[$tag] /"
  stopped "${PIPESTATUS[0]}" "$tag"
}
sed 's/^concurrent_games = .*/concurrent_games = 256/' configs/selfplay.toml > "$W/c256.toml"
"$BIN" init-model --variant brandubh --blocks 10 --channels 128 --checkpoint "$W/big.safetensors" --seed 1 > /dev/null
# (waited for by pid: a bare `wait` would also wait for the log's tee)
selfplay brandubh models/brandubh.safetensors 128 cpu > "$W/cpu-1.txt" &
cpu1=$!
selfplay copenhagen models/copenhagen.safetensors 128 cpu > "$W/cpu-2.txt" &
cpu2=$!
selfplay brandubh "$W/big.safetensors" 4 cpu > "$W/cpu-3.txt" &
cpu3=$!
for v in brandubh copenhagen; do
  selfplay $v models/$v.safetensors 128 cuda
  selfplay $v models/$v.safetensors 512 cuda "$W/c256.toml"
done
selfplay brandubh "$W/big.safetensors" 128 cuda
selfplay brandubh "$W/big.safetensors" 256 cuda "$W/c256.toml"
wait $cpu1 $cpu2 $cpu3
cat "$W"/cpu-*.txt

step "training on the Brandubh self-play above, batch 256"
train() { # model device steps threads mixed -> its summary line
  local tag=$(basename "$1" .safetensors)-$2-t$4-mixed$5
  sed "s/^steps = .*/steps = $3/; s/^validate_every = .*/validate_every = 100000/; s/^checkpoint_every = .*/checkpoint_every = 100000/; s/^mixed_precision = .*/mixed_precision = $5/" \
    configs/train.toml > "$W/train-$tag.toml"
  timeout 120 "$BIN" train --data "$W/sp-brandubh-brandubh-cuda-c256" --init "$1" --device "$2" \
    --threads "$4" --config "$W/train-$tag.toml" --checkpoint "$W/$tag.safetensors" 2>&1 |
    grep -E "^trained|error" | sed "s/^/[$tag] /"
  stopped "${PIPESTATUS[0]}" "$tag"
}
train models/brandubh.safetensors cuda 400 1 false
train models/brandubh.safetensors cuda 400 1 true
train models/brandubh.safetensors cpu 100 16 false
train "$W/big.safetensors" cuda 200 1 false
train "$W/big.safetensors" cuda 200 1 true
train "$W/big.safetensors" cpu 10 16 false
step done
