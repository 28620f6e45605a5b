#!/usr/bin/env python3
"""Real-GPU smoke check of `gpufleet canary run` (needs a GPU node with the
vendor runtime, BLAS and collective libraries installed; not part of ctest).

Runs the built-in microbenchmarks once and compares the medians with floors
a healthy node of the model should clear (the figures the canary issue
names for an H200). A figure far below a floor is a bug in the runner or in
the node, so the script exits 1 and prints which. Figures from the fake
libraries in the test tree prove nothing here: run this on real hardware.

  scripts/canary_gpu_check.py --gpufleet build/src/cli/gpufleet [--vendor nvidia] [run args]
"""
import argparse
import json
import statistics
import subprocess
import sys

# Floors per catalog model key: benchmark id prefix -> minimum median.
FLOORS = {
    "h200-sxm": {
        "gemm.bf16@": 600e12,        # ~700+ TFLOP/s through cuBLAS
        "stream.memcpy@": 3.5e12,    # ~4+ TB/s device memory
        "copy.h2d_pinned@": 40e9,    # ~50+ GB/s host<->device
        "copy.d2h_pinned@": 40e9,
    },
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--vendor", default="auto")
    # Anything else is passed to `canary run` (e.g. --benchmarks gemm,h2d).
    a, extra = ap.parse_known_args()
    cmd = [a.gpufleet, "canary", "run", "--vendor", a.vendor, "--reps", "3", "--json"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        print(f"canary run exited {p.returncode}", file=sys.stderr)
        return 1
    doc = json.loads(p.stdout)
    model = doc["target"]["model"]
    print(f"target: {doc['target']}")
    for s in doc["skipped"]:
        print(f"skipped {s['benchmark']}: {s['reason']}")
    floors = FLOORS.get(model, {})
    bad = 0
    for r in doc["results"]:
        median = statistics.median(r["values"])
        floor = next((v for k, v in floors.items() if r["benchmark"].startswith(k)), None)
        verdict = "" if floor is None else ("ok" if median >= floor else f"BELOW {floor:.3g}")
        bad += verdict.startswith("BELOW")
        print(f"{r['benchmark']:36} {median:12.4g} {r['unit']:18} {verdict}")
    if not floors:
        print(f"no floors known for model {model!r}; figures printed only")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
