#!/usr/bin/env bash
# Configures and builds gpufleet in build/ (warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUFLEET_WERROR=ON "${launcher[@]}" >/dev/null
cmake --build build -j"$(nproc)"
