#!/usr/bin/env python3
"""E2E: `gpufleet detect replay` reads one recording the same way in each of
its input formats.

1. The simulated fleet (`sim detect --write`, needs ../shared's Gavel table;
   skipped with a message when it is absent) as OpenMetrics text, as
   VictoriaMetrics /api/v1/export JSON lines (one line per series, as
   VictoriaMetrics writes them) and as the real promtool's `tsdb dump` of a
   TSDB built from it with `tsdb create-blocks-from openmetrics`: the same
   samples, devices, incidents and scores. Every export line once came out
   with the first line's labels.
2. A dcgm-exporter recording (two H100s, 30 minutes at 10 s, Kubernetes
   pod labels) as Prometheus text with millisecond timestamps, as export
   lines and as tsdb dump lines: each is translated from dcgm_exporter and
   gives the same replay, the memory-bound device's informational incident
   among it.
3. Export lines that are not export lines are counted, named with their
   line, and the rest is replayed."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAVEL = os.path.join(os.path.dirname(ROOT), "shared", "traces", "gavel",
                     "colocation_throughputs_sf1.csv")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+) (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def replay(gpufleet, *args):
    out = subprocess.run([gpufleet, "detect", "replay", *args], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, (args, out.returncode, out.stderr[-2000:])
    return out


def to_export_lines(om_path, json_path):
    """OpenMetrics text (seconds) -> export lines (milliseconds), series by series."""
    series = {}
    with open(om_path) as f:
        for line in f:
            m = SAMPLE.match(line.strip())
            if not m:
                continue
            labels = dict(LABEL.findall(m.group(2)))
            labels["__name__"] = m.group(1)
            key = (m.group(1), m.group(2))
            s = series.setdefault(key, (labels, [], []))
            s[1].append(float(m.group(3)))
            s[2].append(int(round(float(m.group(4)) * 1000)))
    with open(json_path, "w") as f:
        for labels, values, stamps in series.values():
            f.write(json.dumps({"metric": labels, "values": values, "timestamps": stamps}) + "\n")
    return len(series)


def check_simulated_fleet(gpufleet, tmp):
    if not os.path.exists(GAVEL):
        print("detect_replay_test: %s absent, simulated-fleet part skipped" % GAVEL)
        return
    rec = os.path.join(tmp, "sim")
    out = subprocess.run([gpufleet, "sim", "detect", "--gpu-days", "2", "--seed", "3",
                          "--colocation", GAVEL, "--write", rec, "-o", os.path.join(tmp, "s.md")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    om = os.path.join(rec, "series.om")
    js = os.path.join(tmp, "series.jsonl")
    n = to_export_lines(om, js)
    assert n > 100, n
    truth = os.path.join(rec, "truth.csv")
    a = replay(gpufleet, "--input", om, "--truth", truth, "--json", os.path.join(tmp, "a.json"))
    b = replay(gpufleet, "--input", js, "--truth", truth, "--json", os.path.join(tmp, "b.json"))
    ja = json.load(open(os.path.join(tmp, "a.json")))
    jb = json.load(open(os.path.join(tmp, "b.json")))
    assert ja["devices"] == jb["devices"] == 16, (ja["devices"], jb["devices"])
    assert ja["input"]["samples"] == jb["input"]["samples"], (ja["input"], jb["input"])
    assert len(ja["incidents"]) > 10, len(ja["incidents"])
    assert ja["incidents"] == jb["incidents"], "incidents differ between text and export lines"
    assert ja["score"] == jb["score"], "scores differ between text and export lines"
    assert "translated" not in a.stderr + b.stderr, (a.stderr, b.stderr)

    promtool = shutil.which("promtool")
    if promtool is None:
        print("detect_replay_test: no promtool, the tsdb dump part skipped")
        return
    tsdb = os.path.join(tmp, "tsdb")
    out = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", om, tsdb],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    os.makedirs(os.path.join(tsdb, "wal"), exist_ok=True)  # promtool 2.42 reads a WAL folder
    dump = os.path.join(tmp, "dump.txt")
    with open(dump, "w") as f:
        out = subprocess.run([promtool, "tsdb", "dump", tsdb], stdout=f, stderr=subprocess.PIPE,
                             text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert open(dump).readline().startswith("{"), "not the dump format this test expects"
    replay(gpufleet, "--input", dump, "--truth", truth, "--json", os.path.join(tmp, "c.json"))
    jc = json.load(open(os.path.join(tmp, "c.json")))
    assert jc["input"]["samples"] == ja["input"]["samples"], (ja["input"], jc["input"])
    assert jc["incidents"] == ja["incidents"], "incidents differ between text and tsdb dump"
    assert jc["score"] == ja["score"], "scores differ between text and tsdb dump"


def dcgm_recording(tmp):
    t0 = 1_800_000_000_000
    gpus = {  # gpu -> field -> value: a memory-bound job on 0, a compute-bound one on 1
        "0": {"DCGM_FI_PROF_DRAM_ACTIVE": 0.92, "DCGM_FI_PROF_SM_OCCUPANCY": 0.3,
              "DCGM_FI_DEV_GPU_UTIL": 95, "DCGM_FI_PROF_SM_ACTIVE": 0.9},
        "1": {"DCGM_FI_PROF_DRAM_ACTIVE": 0.2, "DCGM_FI_PROF_SM_OCCUPANCY": 0.6,
              "DCGM_FI_DEV_GPU_UTIL": 90, "DCGM_FI_PROF_SM_ACTIVE": 0.85},
    }
    series = []
    for gpu, fields in gpus.items():
        for name, v in fields.items():
            labels = {"__name__": name, "gpu": gpu, "UUID": "GPU-%08d-aaaa-bbbb-cccc-dddddddddddd" % int(gpu),
                      "device": "nvidia" + gpu, "modelName": "NVIDIA H100 80GB HBM3",
                      "Hostname": "n1", "exported_pod": "train-" + gpu,
                      "exported_namespace": "ml", "exported_container": "main"}
            stamps = [t0 + 10_000 * i for i in range(180)]
            values = [v if v >= 1 else round(v + 0.002 * (i % 3), 4) for i in range(180)]
            series.append((labels, stamps, values))
    text = os.path.join(tmp, "dcgm.prom")
    with open(text, "w") as f:  # successive scrapes, as a recording of /metrics would be
        for i in range(180):
            for labels, stamps, values in series:
                body = ",".join('%s="%s"' % (k, v) for k, v in labels.items() if k != "__name__")
                f.write("%s{%s} %s %d\n" % (labels["__name__"], body, values[i], stamps[i]))
    js = os.path.join(tmp, "dcgm.jsonl")
    with open(js, "w") as f:
        for labels, stamps, values in series:
            f.write(json.dumps({"metric": labels, "values": values, "timestamps": stamps}) + "\n")
    dump = os.path.join(tmp, "dcgm.dump")
    with open(dump, "w") as f:  # as `promtool tsdb dump` writes a series: labels sorted, name among them
        for labels, stamps, values in series:
            body = ", ".join('%s="%s"' % (k, labels[k]) for k in sorted(labels))
            for t, v in zip(stamps, values):
                f.write("{%s} %s %d\n" % (body, v, t))
    return text, js, dump


def check_vendor_recording(gpufleet, tmp):
    text, js, dump = dcgm_recording(tmp)
    a = replay(gpufleet, "--input", text)
    b = replay(gpufleet, "--input", js)
    c = replay(gpufleet, "--input", dump)
    assert "translated from dcgm_exporter\n" in a.stderr, a.stderr
    assert "translated from dcgm_exporter (VictoriaMetrics export lines)" in b.stderr, b.stderr
    assert "translated from dcgm_exporter (promtool tsdb dump lines)" in c.stderr, c.stderr
    assert a.stdout == b.stdout == c.stdout, (a.stdout, b.stdout, c.stdout)
    assert "2 device(s)" in a.stdout, a.stdout
    assert re.search(r"open  memory_bound  n1/GPU-00000000-aaaa-bbbb-cccc-dddddddddddd ", a.stdout), \
        a.stdout
    assert "GPU-00000001" not in a.stdout, a.stdout  # the compute-bound device is quiet

    # A broken export line among good ones: counted with its line, the rest replayed.
    lines = open(js).read().splitlines()
    bad = os.path.join(tmp, "dcgm-bad.jsonl")
    with open(bad, "w") as f:
        f.write("\n".join(lines[:3] + ['{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL"},"values":[1'] +
                          lines[3:]) + "\n")
    c = replay(gpufleet, "--input", bad)
    assert "dcgm-bad.jsonl:4:" in c.stderr, c.stderr
    assert "2 device(s)" in c.stdout, c.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        check_vendor_recording(args.gpufleet, tmp)
        check_simulated_fleet(args.gpufleet, tmp)
    print("detect_replay_test: ok")


if __name__ == "__main__":
    main()
