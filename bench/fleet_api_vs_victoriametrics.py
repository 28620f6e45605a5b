#!/usr/bin/env python3
"""The console's fleet summary (GET /api/v1/fleet) against the same overview built as
Grafana-style PromQL instant queries on VictoriaMetrics, same devices, same run.

Issue 15's speed point: the fleet-summary API must answer in under 50 ms for 10,000
devices, and is compared with what a Grafana fleet dashboard asks a VictoriaMetrics for.
Both receivers are started here on loopback with empty temporary data directories and
fed the same remote-write bodies: --gpus simulated GPUs (vendors nvidia / amd / intel in
turn, 8 per node) x 7 canonical series (gpu_up, utilization, memory-bandwidth
utilization, occupancy, power, memory used and total), two samples per series 15 s
apart. Then, --repeat times each, timed from this client over HTTP:
  - gpufleet: one GET /api/v1/fleet (every device with its readings and the counts);
  - VictoriaMetrics: the overview's instant queries one after another (device table per
    metric, counts up / down / by vendor, memory used ratio, last seen), as a Grafana
    dashboard's panels ask for them; the sum of their times is one overview.
Printed: median and best of each, the ratio VictoriaMetrics sum / gpufleet (> 1 means the
API is faster) and whether the API is under 50 ms. Exit 0 either way (it measures).

Usage: bench/fleet_api_vs_victoriametrics.py [--build-dir build] [--gpus 10000]
         [--repeat 7] [--json FILE]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from server_harness import free_port, http, remote_write_body, stop_process, wait_for  # noqa: E402

METRICS = ["gpu_up", "gpu_utilization_ratio", "gpu_memory_bandwidth_utilization_ratio",
           "gpu_sm_occupancy_ratio", "gpu_power_watts", "gpu_memory_used_bytes",
           "gpu_memory_total_bytes"]
VENDORS = [("nvidia", "h100-sxm"), ("amd", "mi300x"), ("intel", "max-1550")]
CLOUDS = ["aws", "gcp", "azure", "onprem"]

# What a Grafana fleet-overview dashboard asks for, one instant query per panel.
PROMQL = [
    "count(gpu_up)",
    "sum(gpu_up)",
    "count(gpu_up == 0)",
    "count by (vendor) (gpu_up)",
    "gpu_up",
    "gpu_utilization_ratio",
    "gpu_memory_bandwidth_utilization_ratio",
    "gpu_sm_occupancy_ratio",
    "gpu_power_watts",
    "gpu_memory_used_bytes / gpu_memory_total_bytes",
    "time() - timestamp(gpu_up)",
]


def value(metric, i, k):
    if metric == "gpu_up":
        return 0.0 if i % 97 == 0 else 1.0
    if metric == "gpu_power_watts":
        return 200.0 + (i * 7 + k) % 400
    if metric == "gpu_memory_total_bytes":
        return 80e9
    if metric == "gpu_memory_used_bytes":
        return float((i * 13 % 80) * 1e9)
    return ((i * 31 + k * 7) % 100) / 100.0


def bodies(gpus, now_ms):
    """Remote-write bodies of at most 2,000 series each."""
    series = []
    out = []
    for i in range(gpus):
        vendor, model = VENDORS[i % 3]
        node = f"node-{i // 8:05d}"
        base = {"gpu_uuid": f"GPU-{i:06d}", "gpu": str(i % 8), "node": node, "vendor": vendor,
                "model": model, "cloud": CLOUDS[(i // 8) % 4], "region": "r1"}
        for m in METRICS:
            labels = dict(base, __name__=m)
            if m == "gpu_up":
                labels["reason"] = "ok" if value(m, i, 0) > 0 else "timeout"
            series.append((labels, [(now_ms - 15000 * (1 - k), value(m, i, k)) for k in range(2)]))
            if len(series) == 2000:
                out.append(remote_write_body(series))
                series = []
    if series:
        out.append(remote_write_body(series))
    return out


def push(url, payloads):
    for b in payloads:
        status, text = http("POST", url, body=b, timeout=60,
                            headers={"Content-Type": "application/x-protobuf",
                                     "Content-Encoding": "snappy",
                                     "X-Prometheus-Remote-Write-Version": "0.1.0"})
        if status not in (200, 204):
            raise RuntimeError(f"{url}: HTTP {status}: {text[:200]}")


def timed_get(url):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
    return time.perf_counter() - t0, body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gpufleet")
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    ap.add_argument("--gpus", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()
    gpufleet = os.path.abspath(args.gpufleet or os.path.join(args.build_dir, "src/cli/gpufleet"))
    if not os.access(gpufleet, os.X_OK):
        sys.exit(f"no gpufleet at {gpufleet}: build the gpufleet target")
    if not os.access(args.victoria_metrics, os.X_OK):
        sys.exit(f"no victoria-metrics at {args.victoria_metrics} (Debian package victoria-metrics)")

    tmp = tempfile.mkdtemp(prefix="gpufleet-fleet-bench-")
    procs = []
    try:
        vm_port, gf_port = free_port(), free_port()
        vm = f"http://127.0.0.1:{vm_port}"
        gf = f"http://127.0.0.1:{gf_port}"
        procs.append(subprocess.Popen(
            [args.victoria_metrics, f"-httpListenAddr=127.0.0.1:{vm_port}",
             f"-storageDataPath={tmp}/vmdata", "-retentionPeriod=100y",
             "-search.latencyOffset=0s", "-search.maxUniqueTimeseries=1000000"],
            stdout=open(os.path.join(tmp, "vm.log"), "w"), stderr=subprocess.STDOUT))
        config = os.path.join(tmp, "server.toml")
        with open(config, "w") as f:
            # One client stands for every agent: lift the per-address rate limit.
            f.write("[limits]\nrequests_per_second = 1000000\nburst = 1000000\n"
                    "[detect]\ninterval = \"1h\"\n")
        procs.append(subprocess.Popen(
            [gpufleet, "server", "--listen", f"127.0.0.1:{gf_port}", "--db", f"{tmp}/gf.db",
             "--config", config],
            stdout=open(os.path.join(tmp, "gf.log"), "w"), stderr=subprocess.STDOUT, cwd=tmp))
        wait_for("victoria-metrics", lambda: http("GET", vm + "/health")[0] == 200, 60)
        wait_for("gpufleet server", lambda: http("GET", gf + "/-/ready")[0] == 200, 60)

        now_ms = int(time.time() * 1000)
        payloads = bodies(args.gpus, now_ms)
        push(vm + "/api/v1/write", payloads)
        push(gf + "/api/v1/write", payloads)
        http("GET", vm + "/internal/force_flush")

        fleet_url = gf + "/api/v1/fleet"
        _, body = timed_get(fleet_url)
        devices = json.loads(body)["counts"]["devices"]
        at = now_ms / 1000.0
        urls = [vm + "/api/v1/query?" + urllib.parse.urlencode({"query": q, "time": f"{at:.3f}"})
                for q in PROMQL]

        def vm_ready():
            _, b = timed_get(urls[0])
            r = json.loads(b)["data"]["result"]
            return r and float(r[0]["value"][1]) == args.gpus
        wait_for("victoria-metrics to see every device", vm_ready, 60)
        for u in urls:  # warm both sides once
            timed_get(u)
        timed_get(fleet_url)

        api_s, vm_sum_s = [], []
        per_query = {q: [] for q in PROMQL}
        size = 0
        for _ in range(args.repeat):
            t, body = timed_get(fleet_url)
            api_s.append(t)
            size = len(body)
            total = 0.0
            for q, u in zip(PROMQL, urls):
                t, _ = timed_get(u)
                per_query[q].append(t)
                total += t
            vm_sum_s.append(total)

        api_med, vm_med = statistics.median(api_s), statistics.median(vm_sum_s)
        result = {
            "gpus": args.gpus, "devices_in_answer": devices, "repeat": args.repeat,
            "api_median_ms": round(api_med * 1e3, 2), "api_best_ms": round(min(api_s) * 1e3, 2),
            "api_answer_bytes": size,
            "vm_queries": len(PROMQL),
            "vm_sum_median_ms": round(vm_med * 1e3, 2),
            "vm_sum_best_ms": round(min(vm_sum_s) * 1e3, 2),
            "vm_per_query_median_ms": {q: round(statistics.median(v) * 1e3, 2)
                                       for q, v in per_query.items()},
            "ratio_vm_sum_over_api": round(vm_med / api_med, 2),
            "api_under_50ms": api_med < 0.050,
        }
        print(f"gpufleet GET /api/v1/fleet, {devices} devices: median {result['api_median_ms']} ms"
              f" (best {result['api_best_ms']} ms, {size} bytes)")
        print(f"VictoriaMetrics, {len(PROMQL)} Grafana-style instant queries: sum median "
              f"{result['vm_sum_median_ms']} ms (best {result['vm_sum_best_ms']} ms)")
        for q, ms in result["vm_per_query_median_ms"].items():
            print(f"  {ms:8.2f} ms  {q}")
        print(f"ratio VictoriaMetrics sum / gpufleet API: {result['ratio_vm_sum_over_api']}"
              f" (> 1: the API is faster); API under 50 ms: {result['api_under_50ms']}")
        print(json.dumps(result))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=2)
    finally:
        for p in procs:
            stop_process(p)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
