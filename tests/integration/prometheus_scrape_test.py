#!/usr/bin/env python3
"""Integration test: a real Prometheus scrapes `gpufleet agent --source sim`.

Starts the agent and Prometheus (Debian package `prometheus`) on loopback,
waits until Prometheus has scraped the simulated mixed fleet, and checks
through Prometheus' HTTP query API that canonical series for all three
vendors exist with values in the right units (memory in bytes equal to the
hardware catalog, ratios in 0-1, energy counter consistent with power).
Both processes are always stopped.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def query(prom, expr):
    body = get(f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    data = json.loads(body)
    if data["status"] != "success":
        raise AssertionError(f"query {expr!r} failed: {body}")
    return data["data"]["result"]


def wait_for(what, fn, timeout_s):
    deadline = time.time() + timeout_s
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # not up yet
            last = e
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; last result: {last}")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {msg}", file=sys.stderr)


# Energy (joules counter) and power (watts gauge) must agree: the counter's
# increase over a window is the mean power times the time it covers.
#
# Two traps this avoids (the first is why an earlier rate(energy)/power check
# read ~0.36 and was taken for a simulator bug):
# - rate() divides by the whole range, so a window longer than the series has
#   existed (the agent started seconds ago) under-reads by the missing part.
#   The check waits until the window is fully covered by scrapes.
# - rate() extrapolates to the window edges on *scrape* times, while the
#   counter advances on *collection* times; scrape and collection are both
#   1 s apart but out of phase, so one endpoint can be up to 1 s staler than
#   the other (up to 1/30 of a 30 s window). Dividing the counter's increase
#   by the delta of the agent's own collection timestamp, taken from the same
#   scrapes and extrapolated the same way, cancels both effects.
# What is left is the gauge being sampled once per collection: the window's
# first and last gauge values stand in for one second each, and a collection
# period slightly longer than the scrape period repeats one gauge value in
# about 100; with 24 devices whose power changes by at most ~20% between
# seconds, that is well under 1% in the sum and under 2% per device.
ENERGY_WINDOW_S = 30


def check_energy_matches_power(c, base):
    w = f"[{ENERGY_WINDOW_S}s]"
    wait_for(f"{ENERGY_WINDOW_S} s of scrapes",
             lambda: (lambda r: r and float(r[0]["value"][1]) >= ENERGY_WINDOW_S - 1)(
                 query(base, f"min(count_over_time(gpu_power_watts{w}))")),
             ENERGY_WINDOW_S + 60)
    ts = query(base, f"delta(gpufleet_agent_last_collection_timestamp_seconds{w})")
    c.check(len(ts) == 1, f"one collection timestamp series: {ts}")
    if not ts:
        return
    covered_s = float(ts[0]["value"][1])
    c.check(ENERGY_WINDOW_S * 0.9 < covered_s < ENERGY_WINDOW_S * 1.1,
            f"collections cover {covered_s} s of the {ENERGY_WINDOW_S} s window")
    key = "gpu_uuid, partition_id"
    energy = {tuple(r["metric"].get(k, "") for k in ("gpu_uuid", "partition_id")):
              float(r["value"][1])
              for r in query(base, f"sum by ({key}) (increase(gpu_energy_joules_total{w}))")}
    power = {tuple(r["metric"].get(k, "") for k in ("gpu_uuid", "partition_id")):
             float(r["value"][1])
             for r in query(base, f"sum by ({key}) (avg_over_time(gpu_power_watts{w}))")}
    c.check(len(energy) == 24 and energy.keys() == power.keys(),
            f"energy and power for the same 24 devices: {len(energy)} vs {len(power)}")
    ratios = {k: energy[k] / (covered_s * power[k]) for k in energy if power.get(k)}
    if not ratios:
        return
    for k, r in ratios.items():
        c.check(0.98 < r < 1.02,
                f"device {k}: energy increase / (covered s * mean power) = {r:.4f}")
    total = sum(energy.values()) / (covered_s * sum(power.values()))
    c.check(0.99 < total < 1.01,
            f"fleet: energy increase / (covered s * mean power) = {total:.4f}, want 1 +- 1%")
    print(f"energy/power over {ENERGY_WINDOW_S} s: fleet {total:.4f}, devices "
          f"{min(ratios.values()):.4f}..{max(ratios.values()):.4f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--prometheus", default=shutil.which("prometheus") or "/usr/bin/prometheus")
    args = ap.parse_args()

    hw = tomllib.load(open(os.path.join(args.source_dir, "data/hardware.toml"), "rb"))
    models = {g["name"]: g for g in hw["gpu"]}

    tmp = tempfile.mkdtemp(prefix="gpufleet-prom-")
    agent_port, prom_port = free_port(), free_port()
    procs = []
    try:
        agent = subprocess.Popen(
            [args.gpufleet, "agent", "--source", "sim", "--listen", f"127.0.0.1:{agent_port}",
             "--interval", "1"],
            stdout=open(os.path.join(tmp, "agent.log"), "w"), stderr=subprocess.STDOUT)
        procs.append(agent)
        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gpufleet
    static_configs:
      - targets: ['127.0.0.1:{agent_port}']
""")
        prom = subprocess.Popen(
            [args.prometheus, f"--config.file={config}", f"--storage.tsdb.path={tmp}/data",
             f"--web.listen-address=127.0.0.1:{prom_port}"],
            stdout=open(os.path.join(tmp, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
        procs.append(prom)
        base = f"http://127.0.0.1:{prom_port}"
        wait_for("prometheus ready", lambda: "Ready" in get(f"{base}/-/ready"), 60)
        vendors = wait_for(
            "three vendors in gpu_up",
            lambda: (lambda r: r if len(r) == 3 else None)(query(base, "count by (vendor) (gpu_up)")),
            90)
        # Rates need a few scrapes.
        wait_for("energy rate", lambda: query(base, "rate(gpu_energy_joules_total[15s])"), 60)
        time.sleep(5)

        c = Checks()
        c.check(sorted(v["metric"]["vendor"] for v in vendors) == ["amd", "intel", "nvidia"],
                f"vendors: {vendors}")
        up = query(base, 'up{job="gpufleet"}')
        c.check(up and up[0]["value"][1] == "1", f"scrape target up: {up}")

        total = query(base, "gpu_memory_total_bytes")
        c.check(len(total) > 0, "gpu_memory_total_bytes present")
        for s in total:
            model = s["metric"].get("model")
            if s["metric"].get("partition_kind"):
                continue  # a partition has a share of the memory
            spec = models.get(model)
            c.check(spec is not None, f"model {model!r} in hardware catalog")
            if spec:
                want = spec["memory_gib"] * 2**30
                got = float(s["value"][1])
                c.check(abs(got - want) / want < 0.01,
                        f"{model}: memory total {got} bytes, want {want} (bytes, not MiB)")

        for name in ["gpu_utilization_ratio", "gpu_memory_bandwidth_utilization_ratio",
                     "gpu_sm_active_ratio"]:
            res = query(base, name)
            c.check(len(res) > 0, f"{name} present")
            for s in res:
                v = float(s["value"][1])
                c.check(0.0 <= v <= 1.0, f"{name}={v} must be a 0-1 ratio ({s['metric']})")
            vendors_with = {s["metric"]["vendor"] for s in res}
            if name == "gpu_utilization_ratio":
                c.check(vendors_with == {"nvidia", "amd", "intel"},
                        f"{name} for every vendor, got {vendors_with}")

        for s in query(base, "gpu_temperature_celsius"):
            v = float(s["value"][1])
            c.check(10.0 <= v <= 120.0, f"temperature {v} C plausible ({s['metric']})")
        for s in query(base, "gpu_clock_hertz"):
            v = float(s["value"][1])
            c.check(5e7 <= v <= 5e9, f"clock {v} Hz plausible ({s['metric']})")

        power = query(base, "gpu_power_watts")
        c.check(len(power) > 0, "gpu_power_watts present")
        for s in power:
            spec = models.get(s["metric"].get("model"))
            v = float(s["value"][1])
            if spec and not s["metric"].get("partition_kind"):
                c.check(0 < v <= spec["tdp_watts"] * 1.05,
                        f"power {v} W within TDP {spec['tdp_watts']} ({s['metric']['model']})")

        check_energy_matches_power(c, base)

        self_up = query(base, "gpufleet_agent_devices_up")
        c.check(self_up and float(self_up[0]["value"][1]) > 0, f"self-metric devices up: {self_up}")

        print(f"{c.passed} passed, {c.failed} failed")
        return 0 if c.failed == 0 else 1
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in ("agent.log", "prometheus.log"):
            path = os.path.join(tmp, log)
            if os.path.exists(path) and os.environ.get("GPUFLEET_TEST_VERBOSE"):
                print(open(path).read()[-3000:], file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
