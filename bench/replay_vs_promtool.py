#!/usr/bin/env python3
"""Replay speed: `gpufleet detect replay` against Prometheus evaluating the
exported rules over the same recording, both on one core, in the same run.

Goal (issue 17): >= 10x Prometheus and >= 2 million samples/s, memory
independent of the recording's length.

Recording: `gpufleet sim detect --write DIR` (the simulated fleet in the
replay format, 16 GPUs, 10 s interval). gpufleet replays all of it with every
detector on. The anchor is `promtool test rules` (Prometheus' rule engine on
its in-memory storage) with the rules of `gpufleet rules export`, fed the
series those rules read (input_series in promtool's values notation, one
point per 10 s) and evaluated at every 10 s step of the recording (one
alert_rule_test at its last step; whether that test passes is irrelevant,
only the time is measured). Each side's rate counts the samples it was
given: gpufleet every sample of the file, promtool the rule inputs.

Usage: bench/replay_vs_promtool.py [--build-dir build] [--gpu-days 2] [--seed 1]
Prints one line per side and the ratio. Exit status 0 whatever the ratio.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

SERIES_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)\s+(\S+)$')


def timed(cmd):
    """Runs cmd pinned to one core; returns (wall seconds, peak RSS KiB of children)."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    start = time.monotonic()
    proc = subprocess.run(pin + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    return wall, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--gpu-days", type=float, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    gpufleet = os.path.join(args.build_dir, "src/cli/gpufleet")
    promtool = shutil.which("promtool")
    if not os.path.exists(gpufleet) or promtool is None:
        sys.exit("needs %s and promtool (scripts/setup.sh installs it)" % gpufleet)
    work = tempfile.mkdtemp(prefix="gpufleet-replay-bench-")
    try:
        subprocess.run([gpufleet, "sim", "detect", "--gpu-days", str(args.gpu_days), "--seed",
                        str(args.seed), "--write", work, "-o", os.path.join(work, "score.md")],
                       check=True, stderr=subprocess.DEVNULL)
        series_path = os.path.join(work, "series.om")
        rules_path = os.path.join(work, "rules.yml")
        subprocess.run([gpufleet, "rules", "export", "-o", rules_path], check=True)

        # The rule inputs on the 10 s grid, per series, for promtool.
        rule_metrics = set(re.findall(r"\b(gpu_[a-z_]+)\b", open(rules_path).read()))
        total = 0
        by_series = {}
        first_ts = None
        with open(series_path) as f:
            for line in f:
                m = SERIES_RE.match(line.strip())
                if not m:
                    continue
                total += 1
                if m.group(1) not in rule_metrics:
                    continue
                ts = float(m.group(4))
                if first_ts is None:
                    first_ts = ts
                step = int(round((ts - first_ts) / 10))
                by_series.setdefault(m.group(1) + (m.group(2) or ""), {})[step] = m.group(3)
        steps = 1 + max(max(v) for v in by_series.values())
        prom_samples = sum(len(v) for v in by_series.values())
        test_path = os.path.join(work, "test.yml")
        with open(test_path, "w") as out:
            out.write("rule_files: [rules.yml]\nevaluation_interval: 10s\ntests:\n")
            out.write("  - interval: 10s\n    input_series:\n")
            for name, points in by_series.items():
                values = " ".join(points.get(i, "_") for i in range(steps))
                out.write("      - series: '%s'\n        values: '%s'\n" % (name, values))
            out.write("    alert_rule_test:\n      - eval_time: %ds\n" % (10 * (steps - 1)))
            out.write("        alertname: GpufleetMemoryContention\n        exp_alerts: []\n")
        shutil.copy(test_path, "/tmp/replay_bench_test.yml") if os.environ.get("KEEP") else None

        g_wall, _ = timed([gpufleet, "detect", "replay", "--input", series_path, "-q"])
        p_wall, p_proc = timed([promtool, "test", "rules", test_path])
        if "FAILED" not in p_proc.stderr + (p_proc.stdout or "") and p_proc.returncode != 0:
            print("promtool: %s" % p_proc.stderr.strip()[-2000:])
        g_rate = total / g_wall
        p_rate = prom_samples / p_wall
        print("gpufleet detect replay: %d samples in %.2f s = %.0f samples/s (every detector)"
              % (total, g_wall, g_rate))
        print("promtool test rules:    %d samples in %.2f s = %.0f samples/s (exported rules)"
              % (prom_samples, p_wall, p_rate))
        print("ratio: %.1fx (goal >= 10x and >= 2,000,000 samples/s)" % (g_rate / p_rate))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
