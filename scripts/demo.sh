#!/usr/bin/env bash
# The main job on the embedded default: sets up, builds, and runs the agent on
# the simulated mixed NVIDIA/AMD/Intel fleet, serving canonical metrics on
# http://127.0.0.1:9835/metrics until Ctrl-C. Extra arguments go to the agent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/src/cli/gpufleet agent --source sim "$@"
