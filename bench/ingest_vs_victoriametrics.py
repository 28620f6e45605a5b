#!/usr/bin/env python3
"""Remote-write ingest rate of `gpufleet server` against VictoriaMetrics, same payloads, same run.

Issue 3's speed point: the server must ingest at least as fast as VictoriaMetrics stores.
Both receivers are started here on loopback with empty temporary data directories; the
same load generator (bench/remote_write_load.cc, built as remote_write_load) pushes the
same remote-write bodies (--gpus simulated GPUs x 40 canonical series, agent labels, one
sample per series per round) to each, one after the other, over the same number of
connections. Bodies are encoded before timing starts.

gpufleet runs twice, with its cost ledger on (the default) and off, so the share of
the ingest rate that metering costs is printed too; --cost-pairs N repeats that pair N
times (on, off, off, on, ... so drift in the machine's load falls on both) and prints
the median share.

With two CPUs or more, each receiver is bound to the last CPU and the load generator to
the others (--pin split, the default): on a small machine an unbound generator takes CPU
from the receiver it measures, and from each receiver differently. --pin none binds nothing.

Printed per receiver: samples/s, failed requests, CPU per sample, how busy it was (CPU seconds
per second of load; a receiver well under its CPUs did not set the rate, and a note says so),
resident set (VmRSS) before and after, and memory per active series = (RSS after - RSS before)
/ series. Then the ratio gpufleet / VictoriaMetrics of the ingest rates (> 1 means gpufleet is
faster) and of their CPU per sample.
If `gpufleet server` is not built, that half is skipped with a message.

Usage: bench/ingest_vs_victoriametrics.py [--build-dir build] [--gpus 10000] [--rounds 3]
         [--connections 8] [--cost-pairs 1] [--pin split|none] [--json FILE]
Exit status 0 whether or not gpufleet is faster (it measures; it does not gate).
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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, proc, timeout_s=60):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: process exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {timeout_s} s")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def cpu_s(pid):
    """User + system CPU seconds of a process so far (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pinned(cpus):
    """A preexec_fn that binds the child to `cpus` (None: no binding)."""
    if cpus is None:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def measure(name, cmd, ready_url, write_url, args, tmp):
    log = open(os.path.join(tmp, f"{name}.log"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                            preexec_fn=pinned(args.receiver_cpus))
    try:
        wait_ready(ready_url, proc)
        time.sleep(1)
        before = rss_mb(proc.pid)
        cpu_before = cpu_s(proc.pid)
        out = subprocess.run(
            [args.load, "--url", write_url, "--gpus", str(args.gpus), "--rounds",
             str(args.rounds), "--connections", str(args.connections)],
            capture_output=True, text=True, timeout=1800, preexec_fn=pinned(args.load_cpus))
        if out.stderr:
            print(f"{name}: {out.stderr.strip()}", file=sys.stderr)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        # CPU the receiver spent during the load, per sample: unlike the rate,
        # it does not move with what else the machine runs.
        cpu_used = cpu_s(proc.pid) - cpu_before
        result["cpu_us_per_sample"] = round(cpu_used * 1e6 / max(1, result["samples"]), 3)
        # Share of the load's wall time the receiver spent on CPU: well under
        # its CPUs, something else (the generator, the network path) set the
        # rate. A Nagle / delayed-ACK stall once held both receivers at ~50%.
        result["receiver_busy"] = round(cpu_used / max(result["seconds"], 1e-9), 3)
        time.sleep(2)  # let background flushes settle before reading memory
        after = rss_mb(proc.pid)
        result.update(rss_before_mb=round(before, 1), rss_after_mb=round(after, 1),
                      bytes_per_series=round((after - before) * 1e6 / result["series"], 1))
        return result
    finally:
        stop(proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gpufleet")
    ap.add_argument("--load")
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    ap.add_argument("--gpus", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=8,
                    help="concurrent connections of the load generator (a fleet's agents "
                         "each hold one; with 4 the generator's round trips, not the "
                         "receivers, capped both rates)")
    ap.add_argument("--cost-pairs", type=int, default=1,
                    help="gpufleet runs with the ledger on and off, this many pairs")
    ap.add_argument("--pin", choices=["split", "none"], default="split",
                    help="split (default, with >= 2 CPUs): each receiver on the last CPU, "
                         "the load generator on the others, so the generator does not take "
                         "the receiver's CPU; none: no binding (both share every CPU)")
    ap.add_argument("--json")
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if args.pin == "split" and len(cpus) >= 2:
        args.receiver_cpus, args.load_cpus = {cpus[-1]}, set(cpus[:-1])
    else:
        args.receiver_cpus = args.load_cpus = None
    args.gpufleet = args.gpufleet or os.path.join(args.build_dir, "src/cli/gpufleet")
    args.load = os.path.abspath(args.load or os.path.join(args.build_dir, "bench/remote_write_load"))
    args.gpufleet = os.path.abspath(args.gpufleet)
    if not os.access(args.load, os.X_OK):
        sys.exit(f"no load generator at {args.load}: build the remote_write_load target")

    tmp = tempfile.mkdtemp(prefix="gpufleet-ingest-")
    results = {}
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        results["victoriametrics"] = measure(
            "victoriametrics",
            [args.victoria_metrics, f"-httpListenAddr=127.0.0.1:{port}",
             f"-storageDataPath={tmp}/vmdata", "-retentionPeriod=100y"],
            f"{base}/health", f"{base}/api/v1/write", args, tmp)

        if os.access(args.gpufleet, os.X_OK) and subprocess.run(
                [args.gpufleet, "server", "--help"], capture_output=True).returncode == 0:
            # One load generator stands for 10,000 agents on one address: the
            # per-client rate limit (50 requests/s by default) would throttle
            # it, so it is lifted; detectors stay on (the defaults).
            # The cost ledger meters every write (on by default); a second
            # run with it off gives metering's share of the ingest cost.
            order = []
            for k in range(max(1, args.cost_pairs)):
                pair = [("gpufleet", "true"), ("gpufleet-no-cost", "false")]
                order += pair if k % 2 == 0 else pair[::-1]
            runs = {"gpufleet": [], "gpufleet-no-cost": []}
            for i, (name, cost) in enumerate(order):
                port = free_port()
                base = f"http://127.0.0.1:{port}"
                config = os.path.join(tmp, f"{name}-{i}.toml")
                with open(config, "w") as f:
                    f.write("[limits]\nrequests_per_second = 1000000\nburst = 1000000\n"
                            f"[cost]\nenabled = {cost}\n")
                runs[name].append(measure(
                    name,
                    [args.gpufleet, "server", "--listen", f"127.0.0.1:{port}",
                     "--db", f"{tmp}/{name}-{i}.db", "--config", config],
                    f"{base}/-/healthy", f"{base}/api/v1/write", args, tmp))
            shares = [1 - on["samples_per_second"] / off["samples_per_second"]
                      for on, off in zip(runs["gpufleet"], runs["gpufleet-no-cost"])]
            for name, rs in runs.items():  # the median run of each
                results[name] = sorted(rs, key=lambda r: r["samples_per_second"])[len(rs) // 2]
            results["metering_shares"] = [round(x, 4) for x in shares]
            # The same share in CPU per sample (metering's part of the
            # server's CPU), steadier than the rate on a busy machine.
            results["metering_cpu_shares"] = [
                round(1 - off["cpu_us_per_sample"] / on["cpu_us_per_sample"], 4)
                for on, off in zip(runs["gpufleet"], runs["gpufleet-no-cost"])]
        else:
            print(f"SKIP gpufleet: no `gpufleet server` at {args.gpufleet}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    series = args.gpus * 40
    print(f"payload: {args.gpus} GPUs x 40 series = {series} series, {args.rounds} rounds, "
          f"{args.connections} connections")
    if args.receiver_cpus is not None:
        print(f"receiver on CPU {sorted(args.receiver_cpus)}, load generator on CPUs "
              f"{sorted(args.load_cpus)}")
    else:
        print("no CPU binding: receiver and load generator share every CPU")
    results["receiver_cpus"] = sorted(args.receiver_cpus or [])
    results["load_cpus"] = sorted(args.load_cpus or [])
    for name, r in results.items():
        if not isinstance(r, dict):
            continue
        print(f"{name:16s} {r['samples_per_second']:>12,.0f} samples/s  "
              f"{r['failed_requests']} failed requests  RSS {r['rss_before_mb']} -> "
              f"{r['rss_after_mb']} MB  ({r['bytes_per_series']} bytes per active series)  "
              f"{r['cpu_us_per_sample']} us CPU per sample  busy {r['receiver_busy']:.2f} CPU")
        if args.receiver_cpus is not None and r["receiver_busy"] < 0.8 * len(args.receiver_cpus):
            print(f"  note: {name} was idle part of the load: its rate measures the load "
                  "generator or the network path as much as the receiver")
    if "gpufleet" in results:
        ratio = (results["gpufleet"]["samples_per_second"] /
                 results["victoriametrics"]["samples_per_second"])
        results["ratio_gpufleet_over_victoriametrics"] = round(ratio, 3)
        print(f"ratio gpufleet / victoriametrics: {ratio:.2f} "
              f"({'faster' if ratio >= 1 else 'slower'})")
        cpu_ratio = (results["victoriametrics"]["cpu_us_per_sample"] /
                     max(results["gpufleet"]["cpu_us_per_sample"], 1e-9))
        results["cpu_ratio_victoriametrics_over_gpufleet"] = round(cpu_ratio, 3)
        print(f"CPU per sample, victoriametrics / gpufleet: {cpu_ratio:.2f}")
    if "gpufleet-no-cost" in results:
        for key, out, what in (("metering_shares", "metering_share_of_ingest", "ingest rate"),
                               ("metering_cpu_shares", "metering_share_of_cpu",
                                "server CPU per sample")):
            shares = sorted(results[key])
            share = shares[len(shares) // 2] if len(shares) % 2 else \
                (shares[len(shares) // 2 - 1] + shares[len(shares) // 2]) / 2
            results[out] = round(share, 4)
            print(f"cost metering: {100 * share:.1f}% of the {what}, median of "
                  f"{len(shares)} pairs ({', '.join(f'{100 * x:.1f}%' for x in results[key])}) "
                  "(gpufleet with the ledger on vs off, same run)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
