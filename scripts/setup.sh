#!/usr/bin/env bash
# Installs every build and test dependency of gpufleet from Debian packages.
# Idempotent: does nothing when everything is already installed. Needs root
# (or sudo) only when something is missing. Downloads nothing else.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ clang libclang-rt-14-dev cmake ninja-build pkg-config git
  # libraries
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcpp-httplib-dev libssl-dev libcli11-dev libtomlplusplus-dev
  libglpk-dev  # LP solver of the Gavel-style scheduling policies (src/place/gavel_policy.cc)
  libprotobuf-dev protobuf-compiler libsnappy-dev libsqlite3-dev libsimdjson-dev zlib1g-dev
  # vendor headers (types only; the libraries are loaded at run time, never linked)
  librocm-smi-dev libze-dev
  # real components the integration tests start on loopback
  prometheus victoria-metrics prometheus-alertmanager
  slurm-wlm munge  # tests/integration/slurm_test.py (slurmctld + slurmd; the test uses auth/none, munge is the production auth)
  # test and benchmark tooling
  python3 curl util-linux
  prometheus-node-exporter valgrind  # anchor and profiler of bench/agent_footprint.py
  python3-pandas  # the HTA-style anchor of bench/trace_ingest_bench.sh
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
