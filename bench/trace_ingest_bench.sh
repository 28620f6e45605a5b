#!/usr/bin/env bash
# Kineto JSON ingest throughput and peak memory of `gpufleet trace analyze
# --import-only` (sniff, read, parse, build the timeline, align), pinned to
# one core (taskset -c 0), on the largest HTA sample (df_index_resolver,
# 216k trace events, 53.7 MB) replicated with shifted timestamps to at least
# --size-mb of valid Kineto JSON. Prints MB/s, events/s and peak RSS / input.
#
# Anchor: HTA itself is not packaged for Debian; bench/hta_standin.py runs
# HTA's documented load path and kernel breakdown in pandas on the
# unreplicated trace (a lower bound on HTA's time), compared with gpufleet's
# whole `trace analyze` on the same file.
#
# Usage: bench/trace_ingest_bench.sh [--size-mb N] [--reps N] [--build-dir DIR] [--keep]
#   (best of --reps runs, default 3)
# Goals (issue 5): >= 200 MB/s on one core, peak RSS < 1.5x input, >= 20x HTA.
set -euo pipefail
cd "$(dirname "$0")/.."

size_mb=500
reps=3
build_dir=build
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size_mb="${2:?--size-mb needs a value}"; shift 2 ;;
    --reps) reps="${2:?--reps needs a value}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "trace_ingest_bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
gpufleet="${GPUFLEET:-$build_dir/src/cli/gpufleet}"
sample=../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz
[[ -x "$gpufleet" ]] || { echo "no gpufleet binary at $gpufleet" >&2; exit 2; }
[[ -f "$sample" ]] || { echo "sample $sample not found" >&2; exit 2; }
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"

work=$(mktemp -d /tmp/gpufleet_trace_bench.XXXXXX)
cleanup() { [[ $keep == 1 ]] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT

python3 - "$sample" "$work" "$size_mb" <<'PY'
import gzip, json, math, re, sys
sample, work, size_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = gzip.decompress(open(sample, "rb").read()).decode("utf-8")
open(f"{work}/single.json", "w").write(text)
start = text.index("[", text.index('"traceEvents"')) + 1
end = text.rindex("\n  ]")          # Kineto closes the array on its own line
head, body, tail = text[:start], text[start:end], text[end:]
json.loads(head + "]" + tail[tail.index("]") + 1:])  # the metadata around it is valid
ts = [int(m) for m in re.findall(r'"ts": (\d+)', body)]
span = max(ts) - min(ts) + 1000
copies = max(1, math.ceil(size_mb * 1e6 / len(text)))
ts_re = re.compile(r'("ts": )(\d+)')
with open(f"{work}/replicated.json", "w") as out:
    out.write(head)
    for k in range(copies):
        if k:
            out.write(",")
        shift = k * span
        out.write(body if k == 0 else ts_re.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift), body))
    out.write(tail)
print(f"replicated {copies}x -> {work}/replicated.json")
PY

measure() {  # file -> prints "secs user_sys_secs rss_kb events"
  local f=$1 log="$work/time.log" out="$work/out.txt"
  /usr/bin/time -v $pin "$gpufleet" trace analyze --import-only --no-progress "$f" >"$out" 2>"$log"
  local wall user sys rss events
  wall=$(awk '/^seconds /{print $2}' "$out")
  events=$(awk '/^events /{print $2}' "$out")
  user=$(awk -F': ' '/User time/{print $2}' "$log")
  sys=$(awk -F': ' '/System time/{print $2}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
  echo "$wall $(python3 -c "print($user+$sys)") $rss $events"
}

report() {  # label file
  local label=$1 f=$2 bytes best="" line
  bytes=$(stat -c %s "$f")
  for _ in $(seq "$reps"); do
    line=$(measure "$f")
    if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(0 if ${line%% *} < ${best%% *} else 1)"; then
      best=$line
    fi
  done
  read -r wall cpu rss events <<<"$best"
  python3 - "$label" "$bytes" "$wall" "$cpu" "$rss" "$events" <<'PY'
import sys
label, b, wall, cpu, rss, ev = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
print(f"{label}: {b/1e6:.1f} MB, {ev} events; import {wall:.3f} s wall -> {b/1e6/wall:.1f} MB/s, "
      f"{ev/wall/1e6:.2f} M events/s; process CPU {cpu:.2f} s -> {b/1e6/cpu:.1f} MB/s; "
      f"peak RSS {rss/1024:.0f} MiB = {rss*1024/b:.2f}x input")
PY
  echo "$wall" >"$work/$label.wall"
}

report single "$work/single.json"
report replicated "$work/replicated.json"

# The anchor: bench/hta_standin.py (HTA's documented load + kernel breakdown
# in pandas) on the unreplicated trace, against gpufleet's whole
# `trace analyze` (import, align, every analysis) on the same file.
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3   # Debian's, where python3-pandas lives
if ! "$py" -c "import pandas" 2>/dev/null; then
  echo "no pandas for $py: run scripts/setup.sh (python3-pandas) for the HTA anchor" >&2
  exit 2
fi
# Wall and process CPU time of each, best of --reps; the ratio uses CPU time
# (equal to wall time on a quiet machine, robust on a busy one).
read -r anchor_wall anchor_cpu _ < <($pin "$py" bench/hta_standin.py "$work/single.json")
best=""
for _ in $(seq "$reps"); do
  /usr/bin/time -f "%e %U %S" -o "$work/full.time" $pin "$gpufleet" trace analyze --no-progress \
    "$work/single.json" >/dev/null
  read -r w u s <"$work/full.time"
  t=$(python3 -c "print($u + $s)")
  if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then
    best=$t; best_wall=$w
  fi
done
python3 - "$anchor_wall" "$anchor_cpu" "$best_wall" "$best" <<'PY'
import sys
aw, ac, gw, gc = (float(x) for x in sys.argv[1:])
print(f"anchor HTA stand-in (json.load + pandas + kernel breakdown) on the single trace: "
      f"{aw:.3f} s wall, {ac:.3f} s CPU; gpufleet trace analyze (import + every analysis): "
      f"{gw:.3f} s wall, {gc:.3f} s CPU -> {ac/gc:.1f}x less CPU ({aw/gw:.1f}x wall)")
PY
