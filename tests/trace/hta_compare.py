#!/usr/bin/env python3
"""Side-by-side table: gpufleet's trace analysis vs HTA's definitions.

For each Kineto trace given, runs `gpufleet trace analyze --format json` and
hta_definitions.analyze() (HTA's definitions, see that file) twice: as HTA
does it (last-iteration filter on) and with the filter off, which isolates
that one difference. Prints a Markdown table (percentage points of the
rank's kernel time; launches = device ops linked to a CPU launch call).

Usage: hta_compare.py GPUFLEET_BINARY TRACE.json.gz...
       hta_compare.py --check GPUFLEET_BINARY HTA_TRACE_DIR
--check (the ctest `trace_hta_agreement`): on every trace whose device-op set
is the same on both sides, idle / compute / non-compute / overlap / host-wait
shares must agree within 0.5 points with HTA's definitions minus the
last-iteration filter; exits 77 (skipped) when HTA_TRACE_DIR is absent.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hta_definitions  # noqa: E402


def gpufleet(binary, path):
    out = subprocess.run([binary, "trace", "analyze", "--format", "json", "--no-progress",
                          "--no-align", path], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None
    d = json.loads(out.stdout)
    if not d["temporal_breakdown"]:
        return {"device_ops": d["device_ops"]}
    t = d["temporal_breakdown"][0]
    span = t["span_ns"]
    ov = d["overlap"][0]["ratio"] * 100 if d["overlap"] else None
    idle = {k: sum(q[k + "_ns"] for q in d["idle_time"]) for k in ("host_wait", "kernel_wait", "other")}
    total = sum(idle.values())
    return {"device_ops": d["device_ops"],
            "host_wait": 100 * idle["host_wait"] / total if total else None,
            "idle": 100 * t["idle_ns"] / span if span else 0.0,
            "compute": 100 * t["compute_ns"] / span if span else 0.0,
            "non_compute": 100 * (t["communication_ns"] + t["memory_ns"]) / span if span else 0.0,
            "overlap": ov, "launches": d["launch_delay"]["delay_ns"]["count"]}


def host_wait(h):
    idle = h.get("idle_ns", {})
    total = sum(idle.values())
    return 100 * idle.get("host_wait", 0) / total if total else None


def fmt(v):
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))


def main(binary, paths):
    print("| trace | ops gf / HTA | idle % gf / HTA / HTA unfiltered | compute % gf / HTA / unf. "
          "| non-compute % gf / HTA / unf. | overlap % gf / HTA / unf. "
          "| host wait % of idle gf / HTA / unf. | launches gf / HTA / unf. |")
    print("|---|---|---|---|---|---|---|---|")
    for p in paths:
        g = gpufleet(binary, p) or {}
        h = hta_definitions.analyze(p)
        u = hta_definitions.analyze(p, last_step_filter=False)
        ht, ut = h.get("temporal_pct", {}), u.get("temporal_pct", {})
        row = [os.path.basename(p),
               f"{fmt(g.get('device_ops'))} / {h['gpu_events']}",
               f"{fmt(g.get('idle'))} / {fmt(ht.get('idle'))} / {fmt(ut.get('idle'))}",
               f"{fmt(g.get('compute'))} / {fmt(ht.get('compute'))} / {fmt(ut.get('compute'))}",
               f"{fmt(g.get('non_compute'))} / {fmt(ht.get('non_compute'))} / "
               f"{fmt(ut.get('non_compute'))}",
               f"{fmt(g.get('overlap'))} / {fmt(h.get('overlap_pct'))} / "
               f"{fmt(u.get('overlap_pct'))}",
               f"{fmt(g.get('host_wait'))} / {fmt(host_wait(h))} / {fmt(host_wait(u))}",
               f"{fmt(g.get('launches'))} / {fmt(h.get('launches_linked'))} / "
               f"{fmt(u.get('launches_linked'))}"]
        print("| " + " | ".join(row) + " |")


def check(binary, trace_dir):
    if not os.path.isdir(trace_dir):
        print(f"hta_compare: {trace_dir} is absent (../shared not mounted); skipped")
        return 77
    paths = sorted(os.path.join(r, f) for r, _, fs in os.walk(trace_dir)
                   for f in fs if f.endswith(".json.gz"))
    failures = compared = 0
    for p in paths:
        g = gpufleet(binary, p)
        u = hta_definitions.analyze(p, last_step_filter=False)
        if not g or "idle" not in g or u.get("gpu_events") != g["device_ops"]:
            print(f"{os.path.basename(p)}: not compared (device ops gpufleet "
                  f"{g.get('device_ops') if g else None} vs HTA {u.get('gpu_events')})")
            continue
        compared += 1
        t = u["temporal_pct"]
        pairs = [("idle", g["idle"], t["idle"]), ("compute", g["compute"], t["compute"]),
                 ("non_compute", g["non_compute"], t["non_compute"]),
                 ("overlap", g["overlap"], u["overlap_pct"]),
                 ("host_wait", g["host_wait"], host_wait(u))]
        for name, a, b in pairs:
            if (a is None) != (b is None) or (a is not None and abs(a - b) > 0.5):
                print(f"{os.path.basename(p)}: {name} gpufleet {fmt(a)} vs HTA {fmt(b)}")
                failures += 1
    print(f"hta_compare: {compared} traces compared, {failures} disagreements")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    main(sys.argv[1], sys.argv[2:])
