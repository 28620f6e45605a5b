#!/usr/bin/env python3
"""CPU and memory footprint of `gpufleet agent --source sim` on 8 simulated GPUs.

Goal (issue 2): under 1% of one core at a 1 s collection interval and a
resident set under 30 MB. Anchor, measured in the same run and scraped the
same way: prometheus-node-exporter (Debian package), the exporter most GPU
nodes already run.

Both run on loopback ports. After a warm-up, two phases:
  1. scrape   every --scrape-s seconds (default 15, a usual Prometheus setting);
  2. stress   scrape every second (a figure for aggressive setups).
Per phase and process: CPU = delta of utime+stime (/proc/PID/stat, all
threads) over the wall time, as a percentage of one core; memory = VmRSS at
the end and VmHWM (peak) from /proc/PID/status. MB = 10^6 bytes.

Usage: bench/agent_footprint.py [--build-dir build] [--gpufleet PATH]
         [--node-exporter PATH] [--phase-s 60] [--warmup-s 10] [--scrape-s 15]
         [--interval 1] [--scenario data/scenarios/footprint_8gpu.toml] [--json FILE]
Exit status 0 whether or not the goals are met (it measures; it does not gate).
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
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_CPU_PCT = 1.0
GOAL_RSS_MB = 30.0
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


def cpu_s(pid):
    """utime + stime of every thread of `pid`, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After "pid (comm)": state is field 3, utime 14 and stime 15 (1-based).
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


def memory_mb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0]) * 1024 / 1e6  # kB (KiB) -> MB
    return out


def wait_ready(name, url, proc, timeout_s=30):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} before it was ready")
        try:
            if fetch(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} not ready at {url} after {timeout_s} s")


class Target:
    def __init__(self, name, proc, url):
        self.name, self.proc, self.url = name, proc, url
        self.scrapes = 0
        self.scrape_bytes = 0
        self.scrape_s = 0.0

    def scrape(self):
        start = time.perf_counter()
        status, body = fetch(self.url)
        self.scrape_s += time.perf_counter() - start
        if status != 200:
            raise RuntimeError(f"{self.name}: HTTP {status}")
        self.scrapes += 1
        self.scrape_bytes = len(body)
        self.series = sum(1 for line in body.decode().splitlines()
                          if line and not line.startswith("#"))


def run_phase(targets, duration_s, every_s):
    """Scrapes every target every `every_s` for `duration_s`; returns per-target figures."""
    for t in targets:
        t.scrapes, t.scrape_s = 0, 0.0
    start_cpu = {t.name: cpu_s(t.proc.pid) for t in targets}
    start = time.monotonic()
    next_scrape = start
    while True:
        now = time.monotonic()
        if now - start >= duration_s:
            break
        if now >= next_scrape:
            for t in targets:
                t.scrape()
            next_scrape += every_s
        time.sleep(max(0.0, min(next_scrape, start + duration_s) - time.monotonic()))
    wall = time.monotonic() - start
    out = {}
    for t in targets:
        used = cpu_s(t.proc.pid) - start_cpu[t.name]
        mem = memory_mb(t.proc.pid)
        out[t.name] = {
            "cpu_pct_of_core": 100.0 * used / wall,
            "cpu_s": used,
            "wall_s": wall,
            "rss_mb": mem["VmRSS"],
            "hwm_mb": mem["VmHWM"],
            "scrapes": t.scrapes,
            "scrape_bytes": t.scrape_bytes,
            "series": t.series,
            "mean_scrape_ms": 1000.0 * t.scrape_s / max(1, t.scrapes),
        }
    return out


def report(phase, figures, lines):
    a, n = figures["agent"], figures["node_exporter"]
    lines.append(f"\n{phase}")
    lines.append(f"  {'':16}{'CPU % core':>11}{'RSS MB':>9}{'peak MB':>9}{'series':>8}"
                 f"{'scrape KB':>10}{'scrape ms':>10}")
    for name, f in (("gpufleet agent", a), ("node_exporter", n)):
        lines.append(f"  {name:16}{f['cpu_pct_of_core']:11.3f}{f['rss_mb']:9.1f}{f['hwm_mb']:9.1f}"
                     f"{f['series']:8d}{f['scrape_bytes'] / 1000:10.1f}{f['mean_scrape_ms']:10.2f}")
    ne_cpu = n["cpu_pct_of_core"]
    cpu_ratio = a["cpu_pct_of_core"] / ne_cpu if ne_cpu else float("inf")
    lines.append(f"  agent / node_exporter: CPU {cpu_ratio:.2f}x, "
                 f"RSS {a['rss_mb'] / n['rss_mb']:.2f}x")
    lines.append(f"  agent / goal:          CPU {a['cpu_pct_of_core'] / GOAL_CPU_PCT:.2f} of "
                 f"{GOAL_CPU_PCT:g}% core, RSS {a['rss_mb'] / GOAL_RSS_MB:.2f} and peak "
                 f"{a['hwm_mb'] / GOAL_RSS_MB:.2f} of {GOAL_RSS_MB:g} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gpufleet", help="default: $GPUFLEET, else <build-dir>/src/cli/gpufleet")
    ap.add_argument("--node-exporter", default=shutil.which("prometheus-node-exporter")
                    or "/usr/bin/prometheus-node-exporter")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "data/scenarios/footprint_8gpu.toml"))
    ap.add_argument("--interval", type=float, default=1.0, help="agent collection interval, s")
    ap.add_argument("--warmup-s", type=float, default=10)
    ap.add_argument("--phase-s", type=float, default=60)
    ap.add_argument("--scrape-s", type=float, default=15, help="scrape period of phase 1")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    gpufleet = args.gpufleet or os.environ.get("GPUFLEET") or os.path.join(
        args.build_dir, "src/cli/gpufleet")
    for path in (gpufleet, args.node_exporter):
        if not os.access(path, os.X_OK):
            sys.exit(f"agent_footprint: {path} is not an executable (see --help)")

    tmp = tempfile.mkdtemp(prefix="gpufleet-footprint-")
    agent_port, ne_port = free_port(), free_port()
    procs = []
    done = False
    try:
        agent = subprocess.Popen(
            [gpufleet, "agent", "--source", "sim", "--scenario", args.scenario,
             "--interval", str(args.interval), "--listen", f"127.0.0.1:{agent_port}",
             "--node", "bench"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "agent.log"), "w"))
        procs.append(agent)
        node_exporter = subprocess.Popen(
            [args.node_exporter, f"--web.listen-address=127.0.0.1:{ne_port}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "node_exporter.log"), "w"))
        procs.append(node_exporter)
        wait_ready("gpufleet agent", f"http://127.0.0.1:{agent_port}/healthz", agent)
        wait_ready("node_exporter", f"http://127.0.0.1:{ne_port}/metrics", node_exporter)
        targets = [Target("agent", agent, f"http://127.0.0.1:{agent_port}/metrics"),
                   Target("node_exporter", node_exporter, f"http://127.0.0.1:{ne_port}/metrics")]
        for t in targets:
            t.scrape()  # first scrape: lazy initialisation is not the steady state
        time.sleep(args.warmup_s)

        results = {
            "scrape": run_phase(targets, args.phase_s, args.scrape_s),
            "stress": run_phase(targets, args.phase_s, 1.0),
        }
        for p in procs:
            if p.poll() is not None:
                sys.exit(f"agent_footprint: {p.args[0]} died during the run")

        lines = [f"gpufleet agent --source sim, {os.path.basename(args.scenario)}, "
                 f"{args.interval:g} s collection interval; anchor prometheus-node-exporter "
                 f"(default collectors); {args.phase_s:g} s per phase after {args.warmup_s:g} s "
                 f"warm-up; CPU = utime+stime of all threads / wall time, resolution "
                 f"{100.0 / TICKS_PER_S / args.phase_s:.3f}% of a core"]
        report(f"phase 1: scrape every {args.scrape_s:g} s", results["scrape"], lines)
        report("phase 2 (stress): scrape every 1 s", results["stress"], lines)
        print("\n".join(lines))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
        done = True
        return 0
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if done:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"agent_footprint: logs kept in {tmp}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
