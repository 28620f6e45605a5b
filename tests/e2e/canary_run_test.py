"""End to end: `gpufleet canary run` against the fake CUDA and HIP stacks
(tests/fakes/gpu/), through the real binary and its real dlopen path.

- a normal run's JSON reads back through `canary baseline set`;
- a rerun passes `run --check`, a 10% slower node fails it (exit 1);
- a partial stack (no GemmEx, no NCCL) skips only those benchmarks;
- fp8 GEMM runs through the fake BLASLt, the STREAM kernels through the fake
  driver (or are skipped when the build found no nvcc); `--device all`
  gives one result per GPU;
- `canary check --server` posts the regression to a running `gpufleet
  server`, which shows it as a canary_regression incident.
Figures from the fakes prove the plumbing, not GPU performance."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_harness as h  # noqa: E402

SCRIPT = """device_count = 2
memory_gbps = 4200
h2d_gbps = 52
d2h_gbps = 50
gemm_tflops.bf16 = 720
gemm_tflops.fp16 = 700
gemm_tflops.fp32 = 48
gemm_tflops.fp8 = 1450
allreduce_busbw_gbps = 360
jitter = 0.003
"""

SMALL = ["--reps", "5", "--iters", "3", "--gemm-size", "1024", "--stream-bytes", "67108864",
         "--transfer-bytes", "16777216", "--alloc-sizes", "1048576", "--alloc-samples", "3",
         "--allreduce-sizes", "8388608", "--image", "trainer:1.2"]


def run(gpufleet, args, env, expect_rc):
    p = subprocess.run([gpufleet] + args, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != expect_rc:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}, want {expect_rc}\n"
                             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--fakes", required=True, help="build/tests/fakes/gpu")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gpufleet_canary_run_")
    db = os.path.join(tmp, "state.db")
    env = dict(os.environ)

    def script(name, extra=""):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(SCRIPT + extra)
        env["GPUFLEET_FAKE_CUDA_CONFIG"] = path
        env["GPUFLEET_FAKE_HIP_CONFIG"] = path

    cuda = ["canary", "run", "--vendor", "nvidia", "--library-path",
            os.path.join(a.fakes, "cuda")] + SMALL

    # 1. Normal run -> JSON -> baseline.
    script("normal.conf")
    base_json = os.path.join(tmp, "base.json")
    p = run(a.gpufleet, cuda + ["-o", base_json], env, 0)
    assert re.search(r"gemm\.bf16@1024 +7[12]\d TFLOP/s", p.stdout), p.stdout
    # fp8 through the fake cuBLASLt (an sm_90 GPU by default).
    assert re.search(r"gemm\.fp8@1024 +1\.4[4-6] PFLOP/s", p.stdout), p.stdout
    # The STREAM kernels run through the fake libcuda when this build found
    # nvcc (the embedded fatbin), and are skipped saying so when not (CI).
    kernels = "built without nvcc" not in p.stdout
    if kernels:
        assert re.search(r"stream\.triad@67108864 +4\.[12]\d* TB/s", p.stdout), p.stdout
    else:
        assert "skipped stream.triad@67108864: gpufleet was built without nvcc" in p.stdout, \
            p.stdout
    doc = json.load(open(base_json))
    assert doc["format"] == "gpufleet-canary-results", doc
    assert doc["target"]["model"] == "h200-sxm", doc["target"]
    assert doc["target"]["image"] == "trainer:1.2", doc["target"]
    ids = {r["benchmark"] for r in doc["results"]}
    for want in ["gemm.bf16@1024", "gemm.fp8@1024", "stream.memcpy@67108864",
                 "stream.axpy_triad@67108864",
                 "copy.h2d_pinned@16777216", "copy.d2h_pinned@16777216",
                 "alloc.latency_p50@1048576", "nccl.all_reduce.busbw@8388608"]:
        assert want in ids, (want, ids)
    run(a.gpufleet, ["canary", "baseline", "set", base_json, "--db", db], env, 0)

    # 2. A normal rerun passes; 10% slower fails. Allocation latency is timed
    # on the host clock (the fakes' malloc takes ~1-2 us, all noise), so the
    # gated reruns measure only the device-timed benchmarks; alloc timing is
    # covered by canary_run_test against a scripted allocation delay.
    device_timed = ["--benchmarks", "gemm,stream,h2d,allreduce"]
    script("rerun.conf", "# rerun\n")
    p = run(a.gpufleet, cuda + device_timed + ["--db", db, "--check"], env, 0)
    # gemm x4, memcpy, axpy_triad, h2d, d2h, all-reduce (+ copy, triad).
    want_pass = 9 + (2 if kernels else 0)
    assert re.search(rf"summary: pass={want_pass} regression=0 fail=0 inconclusive=0",
                     p.stdout), p.stdout
    assert "pass         gemm.bf16@1024" in p.stdout, p.stdout
    script("slow.conf", "slowdown = 1.10\n")
    slow_json = os.path.join(tmp, "slow.json")
    p = run(a.gpufleet, cuda + device_timed + ["--db", db, "--check", "-o", slow_json], env, 1)
    assert "regression   gemm.bf16@1024" in p.stdout, p.stdout
    assert "gate failed" in p.stderr, p.stderr

    # 3. Partial stack: only GEMM/axpy and all-reduce are skipped, naming why.
    script("partial.conf")
    p = run(a.gpufleet, ["canary", "run", "--vendor", "nvidia", "--library-path",
                         os.path.join(a.fakes, "cuda", "partial"), "--json"] + SMALL, env, 0)
    doc = json.loads(p.stdout)
    skipped = {s["benchmark"]: s["reason"] for s in doc["skipped"]}
    assert "cublasGemmEx" in skipped["gemm.bf16@1024"], skipped
    assert "libcublasLt.so.12" in skipped["gemm.fp8@1024"], skipped
    assert "libnccl.so.2" in skipped["nccl.all_reduce.busbw@8388608"], skipped
    assert {r["benchmark"] for r in doc["results"]} >= {"stream.memcpy@67108864",
                                                       "copy.h2d_pinned@16777216"}

    # 3b. --device all: one result per GPU (same id, the GPU in the source).
    script("all.conf")
    p = run(a.gpufleet, cuda + ["--device", "all", "--benchmarks", "gemm", "--precisions",
                                "bf16", "--json"], env, 0)
    doc = json.loads(p.stdout)
    gpus = sorted(r["source"].split(" gpu")[1].split(",")[0] for r in doc["results"]
                  if r["benchmark"] == "gemm.bf16@1024")
    assert gpus == ["0", "1"], doc["results"]
    p = run(a.gpufleet, cuda + ["--device", "sideways"], env, 2)  # usage error
    assert "expected a GPU index or 'all'" in p.stderr, p.stderr

    # 4. The HIP stack through the same binary.
    p = run(a.gpufleet, ["canary", "run", "--vendor", "amd", "--library-path",
                         os.path.join(a.fakes, "hip"), "--json"] + SMALL, env, 0)
    doc = json.loads(p.stdout)
    assert doc["target"]["model"] == "mi300x" and doc["target"]["runtime"] == "rocm-6.2", doc

    # 5. Push the regression to a server; it becomes an incident.
    log = os.path.join(tmp, "server.log")
    try:
        with h.ServerProcess(a.gpufleet, ["--db", os.path.join(tmp, "server.db"),
                                          "--token", "s3cret"], log) as srv:
            srv.wait_ready()
            p = run(a.gpufleet, ["canary", "check", slow_json, "--db", db, "--server", srv.url,
                                 "--token", "s3cret", "--node", "gpu-node-17"], env, 1)
            assert "pushed failing verdicts" in p.stderr, p.stderr
            inc = h.get_json(srv.url + "/api/v1/incidents?status=open")["data"]
            canary = [i for i in inc if i["kind"] == "canary_regression"]
            assert canary, inc
            assert all(i["team"] == "platform" for i in canary), canary
            assert any(i["subject"].get("benchmark") == "gemm.bf16@1024" and
                       i["devices"] == ["gpu-node-17"] for i in canary), canary
            # Without the token the push is refused and the command says so.
            p = run(a.gpufleet, ["canary", "check", slow_json, "--db", db, "--server", srv.url,
                                 "--node", "gpu-node-17"], env, 1)
            assert "HTTP 401" in p.stderr, p.stderr
    except Exception:
        h.dump_log(log)
        raise
    print("canary run e2e: ok")


if __name__ == "__main__":
    main()
