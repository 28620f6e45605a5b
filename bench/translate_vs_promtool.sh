#!/usr/bin/env bash
# Throughput of `gpufleet translate --from dcgm_exporter` against the anchor
# `promtool check metrics`, measured in the same run on the same generated
# dcgm-exporter style file (~250 bytes per sample line), pinned to one core
# (taskset -c 0) where taskset exists. The two run in turn, ROUNDS times
# (default 5), and each reports its best: on a shared VM whose speed drifts
# over minutes, taking turns gives both the same slow and fast spells.
#
# Usage: bench/translate_vs_promtool.sh [--size-mb N] [--rounds N] [--parser-only] [--build-dir DIR] [--keep]
#   --size-mb N     size of the generated file (default 250, about 1M samples)
#   --rounds N      turns each (default 5)
#   --parser-only   time the exposition parser alone (expo_bench BM_ParseFile)
#                   instead of the gpufleet binary
#   --build-dir DIR where gen_dcgm_exposition and expo_bench are (default build)
#   --keep          keep the generated file
# The gpufleet binary is $GPUFLEET, else <build-dir>/src/cli/gpufleet.
# Goal (DESIGN.md): >= 300 MB/s and >= 30x promtool.
set -euo pipefail
cd "$(dirname "$0")/.."

size_mb=250
rounds=5
parser_only=0
build_dir=build
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size_mb="${2:?--size-mb needs a value}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
    --parser-only) parser_only=1; shift ;;
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "translate_vs_promtool.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done

gen="$build_dir/bench/gen_dcgm_exposition"
expo_bench="$build_dir/bench/expo_bench"
gpufleet="${GPUFLEET:-$build_dir/src/cli/gpufleet}"
promtool="${PROMTOOL:-$(command -v promtool || true)}"
[[ -x "$gen" ]] || { echo "missing $gen: build target gen_dcgm_exposition" >&2; exit 1; }
[[ -n "$promtool" ]] || { echo "promtool not found (Debian package prometheus)" >&2; exit 1; }
if [[ $parser_only == 1 ]]; then
  [[ -x "$expo_bench" ]] || { echo "missing $expo_bench: build target expo_bench" >&2; exit 1; }
else
  [[ -x "$gpufleet" ]] || {
    echo "missing $gpufleet (set GPUFLEET or use --parser-only)" >&2
    exit 1
  }
fi

pin=()
if command -v taskset >/dev/null 2>&1; then pin=(taskset -c 0); fi

work=$(mktemp -d)
cleanup() { if [[ $keep == 1 ]]; then echo "kept $work/dcgm.prom"; else rm -rf "$work"; fi; }
trap cleanup EXIT
file="$work/dcgm.prom"
"$gen" --size-mb "$size_mb" > "$file" 2> "$work/gen.txt"
samples=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' "$work/gen.txt")
bytes=$(stat -c %s "$file")
echo "input: $bytes bytes, $samples samples ($(( bytes / samples )) bytes/sample)"

now() { date +%s.%N; }
# time_once <label> <allowed exit codes regex> <cmd...>: prints the wall time in seconds.
time_once() {
  local label="$1" ok_rc="$2"; shift 2
  local t0 t1 rc
  t0=$(now)
  set +e
  "$@" > /dev/null 2> "$work/$label.err"
  rc=$?
  set -e
  t1=$(now)
  if ! [[ "$rc" =~ ^($ok_rc)$ ]]; then
    echo "$label failed with exit code $rc:" >&2
    tail -5 "$work/$label.err" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
}
# min_of <x> <best so far or "">
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# promtool exits 3 when it only found lint problems (dcgm-exporter names
# break Prometheus naming conventions); 1 would mean it stopped parsing.
promtool_check() { "${pin[@]}" "$promtool" check metrics < "$file"; }

if [[ $parser_only == 1 ]]; then
  label="expo parser (expo_bench BM_ParseFile)"
  # expo_bench reports its own time; it reads the file once, then parses it
  # from memory, so this is parser throughput without I/O.
  ours() {
    local out
    out=$(GPUFLEET_EXPO_BENCH_FILE="$file" "${pin[@]}" "$expo_bench" \
          --benchmark_filter='^BM_ParseFile' --benchmark_min_time=0.5 \
          --benchmark_format=json 2> "$work/bench.err") || {
      tail -5 "$work/bench.err" >&2; exit 1; }
    python3 -c '
import json, sys
runs = [b for b in json.load(sys.stdin)["benchmarks"] if b.get("run_type") == "iteration"]
print(min(b["real_time"] for b in runs) / 1e3)' <<< "$out"
  }
else
  label="gpufleet translate --from dcgm_exporter"
  translate() { "${pin[@]}" "$gpufleet" translate --from dcgm_exporter "$file"; }
  ours() { time_once gpufleet '0' translate; }
fi

t_prom=""
t_ours=""
for ((round = 1; round <= rounds; round++)); do
  t=$(time_once promtool '0|3' promtool_check)
  t_prom=$(min_of "$t" "$t_prom")
  t=$(ours)
  t_ours=$(min_of "$t" "$t_ours")
done

report() {
  local name="$1" secs="$2"
  awk -v n="$name" -v s="$secs" -v b="$bytes" -v k="$samples" \
    'BEGIN { printf "%-42s %8.3f s %9.1f MB/s %12.0f samples/s\n", n, s, b / s / 1e6, k / s }'
}
echo "best of $rounds, taking turns, ${pin[*]:-not pinned}:"
report "promtool check metrics" "$t_prom"
report "$label" "$t_ours"
awk -v p="$t_prom" -v o="$t_ours" \
  'BEGIN { printf "ratio gpufleet/promtool: %.1fx (goal >= 30x; >= 300 MB/s)\n", p / o }'
