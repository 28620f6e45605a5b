#!/usr/bin/env bash
# Runs every libFuzzer target in a build dir for N seconds each and fails if
# any of them crashes. Usage: fuzz/run_all.sh <build-dir> <seconds>
# A target <name>_fuzz starts from the seed corpus fuzz/corpus/<dir>/ where
# <dir> is the first that exists of: <name> without "_parser", <name>. The
# corpus is copied to a temporary dir first, so the repository is never
# modified; crash reproducers are kept in <build-dir>/fuzz/artifacts/.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <build-dir> <seconds>" >&2
  exit 2
fi
build_dir="$1"
seconds="$2"
repo="$(cd "$(dirname "$0")/.." && pwd)"
fuzz_bin_dir="$build_dir/fuzz"
if [[ ! -d "$fuzz_bin_dir" ]]; then
  echo "run_all.sh: no $fuzz_bin_dir (configure with -DGPUFLEET_FUZZ=ON and clang)" >&2
  exit 1
fi
artifacts="$(cd "$build_dir" && pwd)/fuzz/artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=()
ran=0
for bin in "$fuzz_bin_dir"/*_fuzz; do
  [[ -x "$bin" && -f "$bin" ]] || continue
  name=$(basename "$bin" _fuzz)
  corpus="$work/$name"
  mkdir -p "$corpus"
  for dir in "$repo/fuzz/corpus/${name%_parser}" "$repo/fuzz/corpus/$name"; do
    if [[ -d "$dir" ]]; then
      cp -r "$dir"/. "$corpus"/
      break
    fi
  done
  echo "== $(basename "$bin"): ${seconds}s, $(find "$corpus" -type f | wc -l) seed files"
  if ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
      "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" > "$work/$name.log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$work/$name.log" || true
  else
    echo "FAILED: $(basename "$bin") (reproducer in $artifacts/)"
    tail -40 "$work/$name.log"
    failed+=("$(basename "$bin")")
  fi
  ran=$((ran + 1))
done
if [[ $ran -eq 0 ]]; then
  echo "run_all.sh: no *_fuzz executables in $fuzz_bin_dir" >&2
  exit 1
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz failures: ${failed[*]}" >&2
  exit 1
fi
echo "all $ran fuzz targets ran ${seconds}s without a crash"
