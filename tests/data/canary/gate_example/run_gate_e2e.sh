#!/bin/sh
# End-to-end run of the real gpufleet binary on the recorded gate example:
# baseline from baseline/, then candidate_good/ must pass (exit 0) and
# candidate_slow/ must be flagged (exit 1). Usage: run_gate_e2e.sh GPUFLEET
set -u
gpufleet="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/state.db"
target="driver=550.54.15,image=trainer:2026.11"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gpufleet" canary baseline set "$here"/baseline/*.txt --target "$target" --db "$db" \
  > "$work/set.out" || fail "baseline set exited $?"
grep -q "set 2 baseline(s)" "$work/set.out" || fail "baseline set output: $(cat "$work/set.out")"

"$gpufleet" canary check "$here"/candidate_good/*.txt --target "$target" --db "$db" \
  > "$work/good.out"
rc=$?
[ "$rc" -eq 0 ] || fail "good candidate exited $rc: $(cat "$work/good.out")"
grep -q "summary: pass=3 regression=0" "$work/good.out" || fail "good: $(cat "$work/good.out")"

"$gpufleet" canary check "$here"/candidate_slow/*.txt --target "$target" --db "$db" \
  > "$work/slow.out" 2> "$work/slow.err"
rc=$?
[ "$rc" -eq 1 ] || fail "slow candidate exited $rc (want 1): $(cat "$work/slow.out")"
grep -q "^regression  *nccl.all_reduce.busbw@8589934592" "$work/slow.out" \
  || fail "slow: $(cat "$work/slow.out")"
grep -q "gate failed: 2 regression" "$work/slow.err" || fail "slow stderr: $(cat "$work/slow.err")"

"$gpufleet" canary check "$here"/candidate_slow/*.txt --target "$target" --db "$db" --json \
  > "$work/slow.json" 2> /dev/null
grep -q '"failed": true' "$work/slow.json" || fail "json: $(cat "$work/slow.json")"

# A DCGM diag failure fails the gate without any baseline.
"$gpufleet" canary check "$here/../dcgm_diag_r3_synthetic.json" --db "$db" > "$work/dcgm.out"
[ $? -eq 1 ] || fail "dcgm diag failure must exit 1"
grep -q "^fail  *dcgm.memory_bandwidth" "$work/dcgm.out" || fail "dcgm: $(cat "$work/dcgm.out")"

# A corrupt state database is reported with its path, not a crash.
printf 'this is not sqlite%8000s' x > "$work/bad.db"
"$gpufleet" canary baseline list --db "$work/bad.db" 2> "$work/bad.err"
[ $? -eq 1 ] || fail "corrupt db must exit 1"
grep -q "bad.db" "$work/bad.err" || fail "corrupt db message: $(cat "$work/bad.err")"

# Usage errors exit 2.
"$gpufleet" canary check "$here"/candidate_good/all_reduce_perf.run1.txt --target "gpu=x" --db "$db" 2> /dev/null
[ $? -eq 2 ] || fail "bad --target must exit 2"
echo "canary gate e2e: ok"
