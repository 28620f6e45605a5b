#!/usr/bin/env python3
"""Integration test: GET /api/v1/series reads ranges older than the server's window
from a real VictoriaMetrics through its Prometheus query API ([longterm] query_url).

Starts victoria-metrics (Debian package) on loopback with a temporary data path,
imports samples from two to three hours ago for two devices (older than the server's
30-minute window, so the server itself never held them), starts `gpufleet server`
with [longterm] query_url pointing at it, writes recent samples to the server by
remote write, and checks:
  - an old range answers with "source": "longterm" and VictoriaMetrics' values;
  - the same with aggregate=vendor gives the per-vendor mean;
  - a recent range answers from the window ("source": "window");
  - with VictoriaMetrics stopped, an old range answers "partial": true with a warning.
Every process is always stopped. Exit 77 (skip) when victoria-metrics is absent.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from server_harness import (ServerProcess, dump_log, free_port, get_json, http,  # noqa: E402
                            remote_write_body, stop_process, wait_for)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    args = ap.parse_args()
    if not os.access(args.victoria_metrics, os.X_OK):
        print(f"SKIP: no victoria-metrics at {args.victoria_metrics}")
        return 77

    tmp = tempfile.mkdtemp(prefix="gpufleet-longterm-")
    vm_port = free_port()
    vm_url = f"http://127.0.0.1:{vm_port}"
    vm_log = open(os.path.join(tmp, "vm.log"), "wb")
    vm = subprocess.Popen(
        [args.victoria_metrics, f"-httpListenAddr=127.0.0.1:{vm_port}",
         f"-storageDataPath={tmp}/vmdata", "-retentionPeriod=100y",
         "-search.latencyOffset=0s", "-search.disableCache"],
        stdout=vm_log, stderr=subprocess.STDOUT)
    server_log = os.path.join(tmp, "server.log")
    failures = []
    try:
        wait_for("victoria-metrics ready", lambda: http("GET", vm_url + "/health")[1].strip() == "OK",
                 60)
        # Samples every minute from 3 h to 2 h ago, aligned to whole minutes.
        now = int(time.time()) // 60 * 60
        start, end = now - 3 * 3600, now - 2 * 3600
        lines = []
        for t in range(start, end + 1, 60):
            for uuid, vendor, base in (("GPU-old-1", "nvidia", 100.0), ("AMD-old-1", "amd", 300.0)):
                value = base + (t - start) / 60
                lines.append(f'gpu_power_watts{{gpu_uuid="{uuid}",vendor="{vendor}",node="old-node"}}'
                             f" {value} {t * 1000}")
        status, body = http("POST", vm_url + "/api/v1/import/prometheus",
                            body="\n".join(lines).encode() + b"\n")
        if status not in (200, 204):
            raise AssertionError(f"import into victoria-metrics: HTTP {status}: {body}")
        http("GET", vm_url + "/internal/force_flush")

        config = os.path.join(tmp, "server.toml")
        with open(config, "w") as f:
            f.write(f'[longterm]\nquery_url = "{vm_url}"\ntimeout = "5s"\n')
        with ServerProcess(args.gpufleet, ["--db", os.path.join(tmp, "s.db"), "--config", config],
                           server_log) as server:
            server.wait_ready()
            recent_ms = int(time.time() * 1000) - 5000
            body = remote_write_body([({"__name__": "gpu_power_watts", "gpu_uuid": "GPU-new-1",
                                        "vendor": "nvidia", "node": "new-node"},
                                       [(recent_ms, 250.0)])])
            status, text = http("POST", server.url + "/api/v1/write", body=body,
                                headers={"Content-Type": "application/x-protobuf",
                                         "Content-Encoding": "snappy"})
            if status != 204:
                failures.append(f"remote write: HTTP {status}: {text}")

            def series(**params):
                return get_json(server.url + "/api/v1/series?" + urllib.parse.urlencode(params))

            def old_ready():
                s = series(metric="gpu_power_watts", **{"from": str(start), "to": str(end)}, step="60")
                return s if len(s["series"]) == 2 else None
            old = wait_for("victoria-metrics to answer the imported series", old_ready, 30)
            if old["source"] != "longterm" or old["partial"]:
                failures.append(f"old range: source {old['source']}, partial {old['partial']}")
            by_uuid = {s["labels"].get("gpu_uuid"): s for s in old["series"]}
            gpu = by_uuid.get("GPU-old-1")
            if gpu is None:
                failures.append(f"old range: no GPU-old-1 in {list(by_uuid)}")
            else:
                # Grid point k is start + 60 k; the sample there is 100 + k.
                want = [100.0 + k for k in range(len(gpu["t"]))]
                if gpu["v"] != want:
                    failures.append(f"old range values: {gpu['v'][:5]}... want {want[:5]}...")
                if gpu["t"][0] != start or len(gpu["t"]) != 61:
                    failures.append(f"old range grid: first {gpu['t'][0]}, {len(gpu['t'])} points")
            agg = series(metric="gpu_power_watts", aggregate="vendor",
                         **{"from": str(start), "to": str(start + 600)}, step="60")
            means = {s["labels"].get("vendor"): s["v"][0] for s in agg["series"]}
            if agg["source"] != "longterm" or means != {"amd": 300.0, "nvidia": 100.0}:
                failures.append(f"aggregate: source {agg['source']}, first values {means}")
            recent = series(metric="gpu_power_watts", step="15s", **{"from": "-5m"})
            if recent["source"] != "window" or len(recent["series"]) != 1 or \
                    recent["series"][0]["labels"].get("gpu_uuid") != "GPU-new-1":
                failures.append(f"recent range: {json.dumps(recent)[:300]}")

            stop_process(vm)
            down = series(metric="gpu_power_watts", **{"from": str(start), "to": str(end)}, step="60")
            if not down["partial"] or down["source"] != "window" or "warning" not in down:
                failures.append(f"store down: partial {down['partial']}, source {down['source']}")
            status, text = http("GET", server.url + "/api/v1/series?metric=gpu_power_watts&from=-400d"
                                "&step=1s")
            if status != 400 or "step:" not in text:
                failures.append(f"too many points: HTTP {status}: {text[:200]}")
    except Exception:
        dump_log(server_log)
        raise
    finally:
        stop_process(vm)
        vm_log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        dump_log(server_log)
        for f in failures:
            print("FAIL:", f)
        return 1
    print("OK: /api/v1/series read VictoriaMetrics for ranges older than the window")
    return 0


if __name__ == "__main__":
    sys.exit(main())
