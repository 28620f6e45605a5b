#!/usr/bin/env bash
# Installs every build and test dependency of gpufleet from Debian packages,
# and the web console's npm packages (web/package-lock.json) with `npm ci`.
# Idempotent: does nothing when everything is already installed. Needs root
# (or sudo) only when a Debian package is missing. Downloads nothing else;
# after it, building and running need no network.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ clang libclang-rt-14-dev cmake ninja-build pkg-config git
  # libraries
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcpp-httplib-dev libssl-dev libcli11-dev libtomlplusplus-dev
  libglpk-dev  # LP solver of the Gavel-style scheduling policies (src/place/gavel_policy.cc)
  liblemon-dev  # min-cost flow of the AlloX policy (src/place/gavel_allox.cc)
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
  python3-torch   # a real CPU training loop reports its steps (tests/e2e/step_reporter_test.py)
  chromium  # headless browser of the console tests (tests/e2e/console_browser_test.mjs) and bench
)
# The console's bundler runs on Node.js; Debian's nodejs + npm unless a
# Node.js with npm is already installed (e.g. NodeSource's nodejs, which
# ships npm itself and conflicts with Debian's npm package).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

# web/node_modules from the committed lockfile (only when it changed).
npm_ci() {
  local web
  web="$(cd "$(dirname "$0")/.." && pwd)/web"
  # npm writes node_modules/.package-lock.json on every install.
  if [ "$web/node_modules/.package-lock.json" -nt "$web/package-lock.json" ]; then
    echo "setup: web/node_modules up to date"
    return
  fi
  echo "setup: npm ci in web/"
  (cd "$web" && npm ci --no-audit --no-fund)
}

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  npm_ci
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
npm_ci
