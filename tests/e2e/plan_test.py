#!/usr/bin/env python3
"""E2E: the planners through the real `gpufleet` binary.
1. `gpufleet plan training|ring` on data/plan/ examples (text and JSON), bad
   input exits 2 naming file:line.
2. `gpufleet plan inference --trace synthetic` (no shared data needed), and
   `plan calibration` / `plan inference --trace conv` when ../shared/traces is
   beside the clone (first 1,500 requests).
3. `gpufleet server`: POST /api/v1/plan/ring and /api/v1/plan/training, and a
   training job whose ranks' micro-batch times are the steps that were
   remote-written to the server (measured_workload)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import ServerProcess, dump_log, http, remote_write_body  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAN = os.path.join(ROOT, "data", "plan")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def run(gpufleet, *args):
    return subprocess.run([gpufleet, *args], capture_output=True, text=True, timeout=120)


def check_cli(gpufleet, tmp):
    out = run(gpufleet, "plan", "training", "--job", os.path.join(PLAN, "training-example.toml"))
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert "4x h100 11, 4x mi250x 5 micro-batches each" in out.stdout, out.stdout
    assert "1.44x faster than the even split" in out.stdout, out.stdout
    out = run(gpufleet, "plan", "--json", "ring", "--topology", os.path.join(PLAN, "ring-example.toml"))
    assert out.returncode == 0, (out.returncode, out.stderr)
    j = json.loads(out.stdout)
    assert j["chosen"]["cross_cloud_bytes"] == j["min_cross_cloud_bytes"] == 2 * 1024 * 1048576, j
    assert j["naive"]["cross_cloud_edges"] == 4, j
    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w") as f:
        f.write('mode = "data"\nmicrobatches = 0\n')
    out = run(gpufleet, "plan", "training", "--job", bad)
    assert out.returncode == 2 and "bad.toml:2" in out.stderr, (out.returncode, out.stderr)
    out = run(gpufleet, "plan", "--shared", os.path.join(tmp, "none"), "--json", "inference",
              "--trace", "synthetic", "--model", "llama3-8b", "--rate", "2", "--duration-s", "60",
              "--gpu-type", "h100", "--gpu-type", "a100-80gb", "--tp", "1")
    assert out.returncode == 0, (out.returncode, out.stderr)
    j = json.loads(out.stdout)
    assert j["chosen"]["attainment"] >= 0.99, j
    assert any("uncalibrated" in n for n in j["notes"]), j["notes"]
    # The planner choosing the serving policy: one line per policy tried,
    # and the chosen plan's policy named.
    out = run(gpufleet, "plan", "--shared", os.path.join(tmp, "none"), "inference",
              "--trace", "synthetic", "--model", "llama3-8b", "--rate", "2", "--duration-s", "60",
              "--gpu-type", "h100", "--tp", "1", "--search-serving")
    assert out.returncode == 0, (out.returncode, out.stderr)
    policies = [l for l in out.stdout.splitlines() if l.startswith("Policy ")]
    assert len(policies) == 8, out.stdout
    assert "(the cheapest of 8 policies)" in out.stdout, out.stdout
    out = run(gpufleet, "plan", "--shared", os.path.join(tmp, "none"), "inference")
    assert out.returncode != 0 and "azure-llm-2023" in out.stderr, (out.returncode, out.stderr)
    print("plan CLI: ok")


def check_shared(gpufleet):
    if not os.path.isdir(os.path.join(SHARED, "traces", "azure-llm-2023")):
        print(f"skipping the shared-data checks: {SHARED}/traces not found")
        return
    out = run(gpufleet, "plan", "--shared", SHARED, "calibration")
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert "splitwise  all" in out.stdout and "mi300x" in out.stdout, out.stdout
    out = run(gpufleet, "plan", "--shared", SHARED, "--json", "inference", "--trace", "conv",
              "--max-requests", "1500")
    assert out.returncode == 0, (out.returncode, out.stderr)
    j = json.loads(out.stdout)
    assert j["requests"] == 1500 and j["chosen"]["attainment"] >= 0.99, j
    assert j["chosen"]["usd_per_mtoken"] <= j["best_single_type"]["usd_per_mtoken"], j
    # No plan pays less than the fluid bound of its own pools, nor than the
    # least bound of any plan.
    b = j["cost_bound"]
    assert 0 < b["any_usd_per_mtoken"] <= b["single_type_usd_per_mtoken"], b
    for plan, key in (("chosen", "chosen_usd_per_mtoken"),
                      ("best_single_type", "best_single_type_usd_per_mtoken")):
        assert b["any_usd_per_mtoken"] <= b[key] <= j[plan]["usd_per_mtoken"], (plan, b, j[plan])
    # With the TTFT SLO the bound rises but stays under every plan that keeps the SLO.
    assert b["any_usd_per_mtoken"] <= b["slo_any_usd_per_mtoken"], b
    assert b["slo_any_usd_per_mtoken"] <= b["slo_single_type_usd_per_mtoken"], b
    for plan in ("chosen", "best_single_type"):
        assert b["slo_any_usd_per_mtoken"] <= j[plan]["usd_per_mtoken"], (plan, b, j[plan])
    assert all(o["ttft_instances"] >= 1 for o in b["options"] if o["tp"] >= 4), b
    print("plan with shared data: ok")


def check_server(gpufleet, tmp):
    log = os.path.join(tmp, "server.log")
    try:
        with ServerProcess(gpufleet, ["--db", os.path.join(tmp, "s.db")], log) as srv:
            srv.wait_ready()
            with open(os.path.join(PLAN, "ring-example.toml"), "rb") as f:
                status, text = http("POST", srv.url + "/api/v1/plan/ring", f.read())
            assert status == 200, (status, text)
            assert json.loads(text)["chosen"]["algorithm"] == "hierarchical by cloud", text
            with open(os.path.join(PLAN, "training-example.toml"), "rb") as f:
                status, text = http("POST", srv.url + "/api/v1/plan/training", f.read())
            assert status == 200 and json.loads(text)["step_s"] > 0, (status, text)
            status, text = http("POST", srv.url + "/api/v1/plan/training", b"microbatches = 'x'\n")
            assert status == 400 and "request body:1" in text, (status, text)
            check_measured_steps(srv.url)
    except Exception:
        dump_log(log)
        raise
    print("plan server: ok")


def check_measured_steps(url):
    """Micro-batch times reported as steps (two ranks on two nodes, the MI250X
    one twice as slow, one outlier each) reach the training plan as the
    median of what was written."""
    now_ms = int(time.time() * 1000)
    series = []
    for node, base in (("h100-node", 0.100), ("mi250x-node", 0.200)):
        steps = [base * (1 + 0.01 * (k % 5)) for k in range(20)] + [base * 9]
        series.append(({"__name__": "gpu_workload_step_duration_seconds", "node": node,
                        "gpu": "0", "workload_name": "llm-mb"},
                       [(now_ms - 1000 * (len(steps) - k), v) for k, v in enumerate(steps)]))
    status, text = http("POST", url + "/api/v1/write", remote_write_body(series),
                        {"Content-Type": "application/x-protobuf", "Content-Encoding": "snappy"})
    assert status in (200, 204), (status, text)
    job = (b'mode = "data"\nmicrobatches = 64\nallreduce_ms = 40\n'
           b'[[rank]]\nname = "h100-node"\ngpu = "h100"\ncount = 4\n'
           b'measured_workload = "llm-mb"\nnode = "h100-node"\n'
           b'[[rank]]\nname = "mi250x-node"\ngpu = "mi250x"\ncount = 4\n'
           b'measured_workload = "llm-mb"\nnode = "mi250x-node"\n')
    status, text = http("POST", url + "/api/v1/plan/training", job)
    assert status == 200, (status, text)
    j = json.loads(text)
    units = {r["name"]: r["unit_s"] for r in j["ranks"]}
    assert abs(units["h100-node-0"] - 0.102) < 1e-9 and abs(units["mi250x-node-0"] - 0.204) < 1e-9, units
    assert all(r["measured"] for r in j["ranks"]), j
    assert any("median of 21 steps of workload llm-mb on h100-node" in n for n in j["notes"]), j["notes"]
    # The same split as the example file's 100 ms / 200 ms ranks.
    assert sorted({r["planned"] for r in j["ranks"]}) == [5, 11], j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        check_cli(a.gpufleet, tmp)
        check_shared(a.gpufleet)
        check_server(a.gpufleet, tmp)


if __name__ == "__main__":
    main()
