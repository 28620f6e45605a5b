#!/usr/bin/env python3
"""HTA's own definitions, applied to a Kineto trace without HTA or pandas.

tests/trace/hta_reference.py reproduces *gpufleet's* definitions (which follow
HTA's where they agree). This script instead mirrors what HTA itself computes,
as read in HTA's source (facebookresearch/HolisticTraceAnalysis, MIT;
hta/common/trace.py @ a12e7c88, hta/analyzers/breakdown_analysis.py,
cuda_kernel_analysis.py and communication_analysis.py @ 0c2146a8), written
anew for gpufleet with the standard library only:

- events: those with `dur` and `cat`, minus cat "Trace"; GPU events are the
  ones whose args carry a `stream` (HTA: stream != -1), whatever their cat.
- last-iteration filter (Trace._filter_irrelevant_gpu_kernels): with more than
  one distinct ProfilerStep name, CPU events starting at or after the last
  ProfilerStep start are dropped, and GPU events are kept only when a kept CPU
  event has the same correlation (an inner join: a GPU event with k such CPU
  events appears k times).
- temporal breakdown: kernel time = last end - first start of the merged GPU
  intervals; idle = kernel time - merged busy; compute = merged compute kernels
  (not NCCL, not Memcpy/Memset); non-compute = the rest.
- idle breakdown per stream: gap = start - previous end in start order, summed
  with its sign (overlapping ops on one stream give negative gaps); host wait
  when the linked runtime call started after the previous end, kernel wait when
  gap < 30, else other.
- launch statistics: CPU and GPU events whose correlation is that of a
  cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync event, inner-joined on
  correlation; launch_delay as HTA writes it: gpu.ts - cpu.ts + cpu.dur.
- comm/comp overlap: time both merged compute and merged comm are active /
  merged comm time.

Usage: hta_definitions.py TRACE.json.gz... (prints one JSON object per trace).
"""
import collections
import decimal
import gzip
import json
import sys

LAUNCH_NAMES = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync"}


def ns(v):
    return int((decimal.Decimal(v) * 1000).to_integral_value(decimal.ROUND_HALF_UP))


def kernel_type(name):
    if "ncclKernel" in name or "ncclDevKernel" in name:
        return "comm"
    if "Memcpy" in name or "Memset" in name:
        return "memory"
    return "compute"


def union(intervals):
    merged = []
    for b, e in sorted(intervals):
        if merged and b <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([b, e])
    return merged


def overlap(a, b):
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


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = []
    for ev in doc.get("traceEvents", []):
        if "dur" not in ev or "cat" not in ev or ev.get("cat") == "Trace":
            continue
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        start = ns(ev["ts"])
        events.append({"name": ev.get("name", ""), "start": start, "end": start + ns(ev["dur"]),
                       "dur": ns(ev["dur"]), "stream": args.get("stream", -1),
                       "corr": args.get("correlation", -1)})
    return events


def analyze(path, last_step_filter=True):
    events = load(path)
    cpu = [e for e in events if e["stream"] == -1]
    gpu = [e for e in events if e["stream"] != -1]
    steps = {e["name"] for e in events if "ProfilerStep" in e["name"]}
    filtered = False
    if last_step_filter and len(steps) > 1:
        last = max(e["start"] for e in cpu if "ProfilerStep" in e["name"])
        cpu = [e for e in cpu if e["start"] < last]
        per_corr = collections.Counter(e["corr"] for e in cpu)
        gpu = [g for g in gpu for _ in range(per_corr.get(g["corr"], 0))]
        filtered = True
    out = {"source": path.split("/")[-1], "gpu_events": len(gpu), "last_step_filter": filtered}
    if not gpu:
        return out
    merged = union([(g["start"], g["end"]) for g in gpu])
    kernel_time = merged[-1][1] - merged[0][0]
    busy = sum(e - b for b, e in merged)
    comp = union([(g["start"], g["end"]) for g in gpu if kernel_type(g["name"]) == "compute"])
    comm = union([(g["start"], g["end"]) for g in gpu if kernel_type(g["name"]) == "comm"])
    comp_ns = sum(e - b for b, e in comp)
    out["temporal_pct"] = {"idle": 100 * (kernel_time - busy) / kernel_time,
                           "compute": 100 * comp_ns / kernel_time,
                           "non_compute": 100 * (busy - comp_ns) / kernel_time}
    comm_ns = sum(e - b for b, e in comm)
    out["overlap_pct"] = 100 * overlap(comp, comm) / comm_ns if comm_ns else None

    runtime_start = {}
    for c in cpu:
        if c["corr"] != -1:
            runtime_start[c["corr"]] = c["start"]  # HTA's index map keeps the last match
    idle = collections.Counter()
    negative = 0
    by_stream = collections.defaultdict(list)
    for g in gpu:
        by_stream[g["stream"]].append(g)
    for stream, ops in by_stream.items():
        ops.sort(key=lambda g: g["start"])
        for prev, g in zip(ops, ops[1:]):
            gap = g["start"] - prev["end"]
            rt = runtime_start.get(g["corr"])
            if rt is not None and rt > prev["end"]:
                idle["host_wait"] += gap
            elif gap < 30:
                idle["kernel_wait"] += gap
            else:
                idle["other"] += gap
            negative += min(gap, 0)
    out["idle_ns"] = dict(idle)
    out["idle_negative_gaps_ns"] = negative

    launch_corr = {c["corr"] for c in cpu if c["name"] in LAUNCH_NAMES}
    cpu_l = collections.Counter(c["corr"] for c in cpu if c["corr"] in launch_corr)
    gpu_l = [g for g in gpu if g["corr"] in launch_corr]
    out["launches_linked"] = sum(cpu_l[g["corr"]] for g in gpu_l)
    return out


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(analyze(p), sort_keys=True))
