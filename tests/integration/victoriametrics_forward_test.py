#!/usr/bin/env python3
"""Integration test: remote write forwarding into a real VictoriaMetrics survives an outage.

Starts victoria-metrics (Debian package) on loopback with a temporary data path, runs the
remote_write_push driver (the real RemoteWriteForwarder and its on-disk queue) pushing a
known set of samples, stops VictoriaMetrics for 30 s mid-stream, restarts it on the same
data path, and checks through /api/v1/export that every sample arrived, exactly once per
(series, timestamp). With --gpufleet it also runs `gpufleet agent --source sim
--remote-write URL` and checks that gpu_power_watts arrived. Every process is always stopped.
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
import urllib.parse
import urllib.request

OUTAGE_S = 30


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


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
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}; last result: {last}")


class VictoriaMetrics:
    def __init__(self, binary, tmp):
        self.binary = binary
        self.data = os.path.join(tmp, "vmdata")
        self.log = open(os.path.join(tmp, "victoria-metrics.log"), "a")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        # latencyOffset=0 makes just-written points visible to queries at once.
        self.proc = subprocess.Popen(
            [self.binary, f"-httpListenAddr=127.0.0.1:{self.port}",
             f"-storageDataPath={self.data}", "-retentionPeriod=100y",
             "-search.latencyOffset=0s", "-search.disableCache"],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_for("victoria-metrics ready", lambda: get(f"{self.base}/health").strip() == "OK", 60)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def flush(self):
        get(f"{self.base}/internal/force_flush")

    def export(self, match):
        body = get(f"{self.base}/api/v1/export?" + urllib.parse.urlencode({"match[]": match}))
        return [json.loads(line) for line in body.splitlines() if line.strip()]

    def count(self, match):
        return sum(len(s["values"]) for s in self.export(match))


def check_forwarded(vm, args, tmp, failures):
    queue = os.path.join(tmp, "queue")
    out_path = os.path.join(tmp, "push.out")
    # Timestamps one second apart ending before now: queries (whose end defaults to now)
    # must see every one of them.
    start_ms = (int(time.time()) - args.batches - 60) * 1000
    push = subprocess.Popen(
        [args.push, "--url", f"{vm.base}/api/v1/write", "--queue", queue,
         "--start-ms", str(start_ms),
         "--series", str(args.series), "--batches", str(args.batches),
         "--interval-ms", str(args.interval_ms)],
        stdout=open(out_path, "w"), stderr=open(os.path.join(tmp, "push.log"), "w"))
    try:
        # Let some data arrive, then take the receiver away for OUTAGE_S mid-stream.
        def arrived():
            vm.flush()
            return vm.count("gpufleet_forward_test")
        wait_for("first forwarded samples", arrived, 60)
        vm.stop()
        print(f"victoria-metrics stopped for {OUTAGE_S} s")
        time.sleep(OUTAGE_S)
        if push.poll() is not None:
            failures.append("the push driver ended during the outage: stream too short")
        vm.start()
        print("victoria-metrics restarted")
        rc = push.wait(timeout=args.batches * args.interval_ms / 1000 + 180)
    finally:
        if push.poll() is None:
            push.kill()
            push.wait()
    stats = json.loads(open(out_path).read().strip() or "{}")
    print(f"forwarder: {stats}")
    if rc != 0:
        failures.append(f"push driver exit {rc}: {stats}")
    if stats.get("retries", 0) == 0:
        failures.append("no retries seen: the outage did not hit the stream")

    expected = args.series * args.batches
    vm.flush()
    series = vm.export("gpufleet_forward_test")
    seen = set()
    total = 0
    for s in series:
        sid = s["metric"].get("series")
        for ts, value in zip(s["timestamps"], s["values"]):
            total += 1
            seen.add((sid, ts))
            want = (ts - stats.get("start_ms", 0)) / 1000
            if value != want:
                failures.append(f"series {sid} at {ts}: value {value}, want {want}")
                break
    want_keys = {(str(i), stats.get("start_ms", 0) + b * 1000)
                 for i in range(args.series) for b in range(args.batches)}
    missing = want_keys - seen
    print(f"victoria-metrics holds {len(seen)} distinct samples ({total} stored) of {expected}")
    if missing:
        failures.append(f"{len(missing)} samples missing, e.g. {sorted(missing)[:3]}")
    if seen - want_keys:
        failures.append(f"unexpected samples: {sorted(seen - want_keys)[:3]}")
    if len(series) != args.series:
        failures.append(f"{len(series)} series, want {args.series}")


def check_agent_push(vm, args, tmp, failures):
    agent = subprocess.Popen(
        [args.gpufleet, "agent", "--source", "sim", "--listen", f"127.0.0.1:{free_port()}",
         "--interval", "1", "--remote-write", f"{vm.base}/api/v1/write",
         "--remote-write-queue", os.path.join(tmp, "agent-queue")],
        stdout=open(os.path.join(tmp, "agent.log"), "w"), stderr=subprocess.STDOUT)
    try:
        def power_series():
            vm.flush()
            return [s for s in vm.export("gpu_power_watts") if s["values"]]
        try:
            series = wait_for("gpu_power_watts from the agent", power_series, 60)
        except AssertionError as e:
            failures.append(str(e))
            return
        vendors = {s["metric"].get("vendor") for s in series}
        print(f"agent pushed gpu_power_watts for {len(series)} devices, vendors {sorted(vendors)}")
        if not {"nvidia", "amd", "intel"} <= vendors:
            failures.append(f"agent push: vendors {vendors}, want nvidia, amd and intel")
        if any(v < 0 or v > 2000 for s in series for v in s["values"]):
            failures.append("agent push: gpu_power_watts outside 0..2000 W")
    finally:
        agent.terminate()
        try:
            agent.wait(timeout=30)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--push", required=True, help="the remote_write_push driver")
    ap.add_argument("--gpufleet", help="also check `gpufleet agent --remote-write`")
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    ap.add_argument("--series", type=int, default=50)
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--interval-ms", type=int, default=500)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="gpufleet-vm-")
    vm = VictoriaMetrics(args.victoria_metrics, tmp)
    failures = []
    try:
        vm.start()
        check_forwarded(vm, args, tmp, failures)
        if args.gpufleet:
            check_agent_push(vm, args, tmp, failures)
    finally:
        vm.stop()
        if failures:
            print(f"logs kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    print("PASS" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
