#!/usr/bin/env bash
# Sets up and runs every test: one build with warnings as errors running all
# tests (unit, integration with a real Prometheus, end-to-end), then one clang
# build with ASan+UBSan running the unit tests and every fuzz target briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DGPUFLEET_SANITIZE=ON -DGPUFLEET_FUZZ=ON -DGPUFLEET_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -L unit -j"$(nproc)"
fuzz/run_all.sh build-asan "${GPUFLEET_FUZZ_SECONDS:-15}"
echo "test.sh: all stages passed in $(( $(date +%s) - start )) s"
