#!/usr/bin/env python3
"""End-to-end: `gpufleet trace analyze|merge|diff` on real HTA Kineto samples
(tests/data/trace, MIT) and on broken copies of them; `trace hang` on the
mixed NCCL 2.21 + RCCL 2.18 job of issue 19."""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, expect_rc=0):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if expect_rc is not None and p.returncode != expect_rc:
        sys.exit(f"FAIL: {' '.join(cmd)} -> rc {p.returncode}\nstdout:\n{p.stdout[-2000:]}\n"
                 f"stderr:\n{p.stderr[-2000:]}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
    print("ok:", what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    g = a.gpufleet
    data = os.path.join(a.source_dir, "tests", "data", "trace")
    nccl = os.path.join(data, "nccl_data.json.gz")
    r0 = os.path.join(data, "sampled_rank-0.json.gz")
    r1 = os.path.join(data, "sampled_rank-1.json.gz")

    with tempfile.TemporaryDirectory() as tmp:
        p = run([g, "trace", "analyze", nccl])
        check(len(p.stdout) > 100, "analyze prints a text summary")

        p = run([g, "trace", "analyze", "--format", "json", nccl])
        json.loads(p.stdout)
        check(True, "analyze --format json is valid JSON")

        p = run([g, "trace", "analyze", "--import-only", nccl])
        stats = dict(line.split(" ", 1) for line in p.stdout.strip().splitlines())
        check(int(stats["events"]) > 20000 and stats["partial"] == "no",
              "import-only reports events and no partial files")

        out = os.path.join(tmp, "merged.json")
        p = run([g, "trace", "merge", "-o", out, r0, r1])
        with open(out) as f:
            doc = json.load(f)
        files = doc["otherData"]["files"]
        check(len(files) == 2 and all("clock_offset_ns" in x for x in files),
              "merge records both files with their clock offsets")
        check("clock alignment" in p.stderr, "merge reports the applied alignment")
        names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "process_name"}
        gpu_pids = {pid for pid, n in names.items() if n.startswith("GPU")}
        check(len(gpu_pids) == 2, "each rank's GPU 0 has its own pid in the merged trace")
        check(any(e["ph"] == "f" for e in doc["traceEvents"]), "launch -> kernel flows present")

        p = run([g, "trace", "diff", r0, r1])
        check(len(p.stdout) > 0, "diff prints a comparison")

        # A truncated gzip keeps what inflated and says PARTIAL.
        raw = open(nccl, "rb").read()
        cut = os.path.join(tmp, "cut.json.gz")
        with open(cut, "wb") as f:
            f.write(raw[: len(raw) // 2])
        p = run([g, "trace", "analyze", "--import-only", cut])
        check("partial yes" in p.stdout and "PARTIAL" in p.stderr,
              "truncated gzip loads partially and says so")

        # JSON cut mid-array.
        text = gzip.decompress(raw)
        mid = os.path.join(tmp, "mid.json")
        with open(mid, "wb") as f:
            f.write(text[: len(text) // 3])
        p = run([g, "trace", "analyze", "--import-only", mid])
        check("partial yes" in p.stdout and "byte" in p.stderr,
              "JSON cut mid-array loads partially with a byte offset")

        junk = os.path.join(tmp, "junk.txt")
        with open(junk, "w") as f:
            f.write("not a trace\n")
        p = run([g, "trace", "analyze", junk], expect_rc=None)
        check(p.returncode != 0 and "junk.txt" in p.stderr, "unknown input names the file")

        # Issue 19: ranks 0-1 NCCL 2.21, ranks 2-3 RCCL 2.18 ("comm 0x... - Init COMPLETE"
        # init lines); rank 2 stops one AllReduce early, rank 3 does not.
        logs = [os.path.join(data, "nccl", n)
                for n in ("hang_nvidia_node1.log", "hang_amd_rccl218_node3.log")]
        p = run([g, "trace", "hang", "--json"] + logs)
        hang = json.loads(p.stdout)
        check(hang["root_ranks"] == [2] and not hang["partial"],
              "trace hang blames only rank 2 in the mixed NCCL 2.21 / RCCL 2.18 job")
    print("trace_cli_test: all passed")


if __name__ == "__main__":
    main()
