#!/usr/bin/env python3
"""Real-GPU smoke check of `gpufleet canary run` (needs a GPU node with the
vendor runtime, BLAS and collective libraries installed; not part of ctest).

Runs the built-in microbenchmarks once and compares the medians with floors
a healthy node of the model should clear (the figures the canary issue
names for an H200). A figure far below a floor is a bug in the runner or in
the node, so the script exits 1 and prints which. Figures from the fake
libraries in the test tree prove nothing here: run this on real hardware.

  scripts/canary_gpu_check.py --gpufleet build/src/cli/gpufleet [--vendor nvidia] [run args]

Build gpufleet on the GPU node (or any machine with the CUDA toolkit) so CMake
finds nvcc and embeds the STREAM kernels (stream.copy / stream.triad); a
binary built without nvcc skips them, which this script reports as a failure
unless --allow-no-kernels is given.
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
        "gemm.fp8@": 1000e12,        # dense fp8 peak ~1979 TFLOP/s; cuBLASLt ~1.2-1.5 P
        "stream.memcpy@": 3.5e12,    # ~4+ TB/s device memory
        "stream.copy@": 3.5e12,      # gpufleet's own kernels (BabelStream's ~4.1-4.3 TB/s)
        "stream.triad@": 3.5e12,
        "copy.h2d_pinned@": 40e9,    # ~50+ GB/s host<->device
        "copy.d2h_pinned@": 40e9,
    },
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--vendor", default="auto")
    ap.add_argument("--allow-no-kernels", action="store_true",
                    help="do not fail when the binary was built without nvcc/hipcc")
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
    bad = 0
    for s in doc["skipped"]:
        print(f"skipped {s['benchmark']}: {s['reason']}")
        if "built without" in s["reason"] and not a.allow_no_kernels:
            print("  -> rebuild gpufleet where nvcc/hipcc is found (PATH, /usr/local/cuda/bin, "
                  "/opt/rocm/bin) or pass --allow-no-kernels", file=sys.stderr)
            bad += 1
    floors = FLOORS.get(model, {})
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
