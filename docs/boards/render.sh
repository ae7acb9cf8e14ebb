#!/usr/bin/env bash
# The start position of every preset as a PNG (docs/rules.md shows them):
#   docs/boards/render.sh   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/../.."
for v in $(./target/release/tavlei rules list | awk 'NR > 1 { print $1 }'); do
  ./target/release/tavlei render --variant "$v" --png "docs/boards/$v.png" > /dev/null
done
