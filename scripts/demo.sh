#!/usr/bin/env bash
# The main job on the embedded default: sets up, builds, and runs the gpufleet
# server on a simulated mixed NVIDIA/AMD/Intel fleet (sped up 30x, so the
# scenario's contention episode opens an incident within a minute), with its
# web console and API on http://127.0.0.1:9840 until Ctrl-C. In another terminal:
#   build/src/cli/gpufleet incidents list
#   build/src/cli/gpufleet incidents show 1
#   build/src/cli/gpufleet cost report --server http://127.0.0.1:9840 --by team,workload
# Extra arguments go to `gpufleet server`. State goes to out/demo.db; the
# server config (placement on data/place/inventory.toml) to out/demo-server.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
mkdir -p out
# The console's Placement page places on the example inventory.
printf '[place]\ninventory = "%s/data/place/inventory.toml"\n' "$PWD" > out/demo-server.toml
echo "demo: the web console:       http://127.0.0.1:9840/  (open it in a browser)"
echo "demo: list incidents with: build/src/cli/gpufleet incidents list"
echo "demo: what it costs:        build/src/cli/gpufleet cost report --server http://127.0.0.1:9840 --by team,workload"
exec build/src/cli/gpufleet server --simulate default --speedup 30 --db out/demo.db \
  --config out/demo-server.toml "$@"
