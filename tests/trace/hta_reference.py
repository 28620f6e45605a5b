#!/usr/bin/env python3
"""Independent reference for gpufleet's trace analyses on one Kineto trace.

Computes, with the json/gzip standard library only, the HTA-defined numbers
that src/trace/analysis_real_sample_test.cc compares against:
temporal breakdown (HTA get_temporal_breakdown), idle time per stream
(HTA get_idle_time_breakdown, consecutive_kernel_delay=30 ns), launch delay
(HTA get_cuda_kernel_launch_stats: gpu.ts - (rt.ts + rt.dur), clipped >= 0),
comm/comp overlap and per-name kernel totals.

Usage: hta_reference.py TRACE.json[.gz] > expected.json
Times are parsed from the JSON text as decimals (us with 3 decimals -> exact ns).
"""
import decimal
import gzip
import json
import re
import sys

MEMORY = re.compile(r"^(hip)?Memcpy|^(hip)?Memset|^dma")
COMM = re.compile(r"^nccl|^hip|^hccl|^rccl|ncclKernel|ncclDevKernel")
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "xpu_runtime", "xpu_driver"}


def ns(v):
    return int((decimal.Decimal(v) * 1000).to_integral_value(decimal.ROUND_HALF_UP))


def kind(ev):
    name, cat = ev["name"], ev["cat"]
    if cat in ("gpu_memcpy", "Memcpy"):
        return "memory"
    if cat in ("gpu_memset", "Memset"):
        return "memory"
    if MEMORY.search(name):
        return "memory"
    if COMM.search(name):
        return "communication"
    return "computation"


def union(intervals):
    merged = []
    for b, e in sorted(intervals):
        if merged and b <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([b, e])
    return merged


def length(merged):
    return sum(e - b for b, e in merged)


def intersect(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def percentile(sorted_values, q):
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    gpu, runtime = [], {}
    for ev in doc["traceEvents"]:
        if ev.get("ph") != "X" or "dur" not in ev:
            continue
        cat = ev.get("cat", "")
        args = ev.get("args", {})
        start, dur = ns(ev["ts"]), ns(ev["dur"])
        if cat in DEVICE_CATS:
            gpu.append({"start": start, "end": start + dur, "dur": dur, "name": ev["name"],
                        "kind": kind(ev), "stream": args.get("stream", ev.get("tid")),
                        "corr": args.get("correlation", -1)})
        elif cat in RUNTIME_CATS and "Synchronize" not in ev["name"]:
            corr = args.get("correlation", -1)
            if corr is not None and corr >= 0:
                # The earliest runtime event with the correlation is the launch.
                if corr not in runtime or start < runtime[corr][0]:
                    runtime[corr] = (start, dur)
    gpu.sort(key=lambda k: k["start"])  # stable: ties keep file order

    all_u = union([(k["start"], k["end"]) for k in gpu])
    comp_u = union([(k["start"], k["end"]) for k in gpu if k["kind"] == "computation"])
    comm_u = union([(k["start"], k["end"]) for k in gpu if k["kind"] == "communication"])
    span = all_u[-1][1] - all_u[0][0]
    busy = length(all_u)
    comp = length(comp_u)
    comm_only = length(comm_u) - intersect(comp_u, comm_u)
    temporal = {"span_ns": span, "compute_ns": comp, "communication_ns": comm_only,
                "memory_ns": busy - comp - comm_only, "idle_ns": span - busy}

    idle = {}
    prev_end = {}
    for k in gpu:
        s = k["stream"]
        if s not in prev_end:
            prev_end[s] = k["end"]
            idle[s] = {"host_wait_ns": 0, "kernel_wait_ns": 0, "other_ns": 0, "gaps": 0}
            continue
        gap = max(0, k["start"] - prev_end[s])
        rt = runtime.get(k["corr"])
        idle[s]["gaps"] += 1
        if rt is not None and rt[0] > prev_end[s]:
            idle[s]["host_wait_ns"] += gap
        elif gap < 30:
            idle[s]["kernel_wait_ns"] += gap
        else:
            idle[s]["other_ns"] += gap
        prev_end[s] = k["end"]

    delays = []
    for k in gpu:
        rt = runtime.get(k["corr"])
        if rt is not None:
            delays.append(max(0, k["start"] - (rt[0] + rt[1])))
    delays.sort()

    totals = {}
    for k in gpu:
        t = totals.setdefault(k["name"], [0, 0])
        t[0] += 1
        t[1] += k["dur"]
    top = sorted(totals.items(), key=lambda kv: (-kv[1][1], kv[0]))[:5]

    overlap = intersect(comp_u, comm_u) / length(comm_u) if comm_u else 0.0
    out = {
        "source": path.split("/")[-1],
        "device_ops": len(gpu),
        "temporal": temporal,
        "idle": [dict(stream=s, **v) for s, v in sorted(idle.items())],
        "launch_delay": {"count": len(delays), "p50": percentile(delays, 0.5),
                         "p99": percentile(delays, 0.99), "max": delays[-1],
                         "unmatched": len(gpu) - len(delays)},
        "top_kernels": [{"name": n, "count": c, "total_ns": t} for n, (c, t) in top],
        "overlap_ratio": overlap,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
