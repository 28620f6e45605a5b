#!/usr/bin/env python3
"""E2E: `gpufleet advise` against a real `gpufleet server --simulate default`
(the embedded mixed fleet: 8 x H100 on AWS, 8 x MI300X on Azure, 4 x Max 1550
on premises, priced by data/prices/demo.toml). The advice is checked for
consistency with what the server's own APIs say (fleet, cost ledger): every
advised move goes to a node with a free whole GPU, finishes no later and
costs no more including its stated migration, and a job that cannot move
(6 GPUs, no node with 6 free) stays. Needs Gavel's table in
../shared/traces/gavel/ (said and skipped when absent)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import ServerProcess, dump_log, get_json, http, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOBS = os.path.join(ROOT, "data", "place", "advise-jobs.toml")
GAVEL = os.path.join(os.path.dirname(ROOT), "shared", "traces", "gavel",
                     "simulation_throughputs.json")


def run(gpufleet, *args):
    return subprocess.run([gpufleet, *args], capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    if not os.path.exists(GAVEL):
        print(f"advise e2e skipped: {GAVEL} is absent")
        return
    with tempfile.TemporaryDirectory(prefix="gpufleet_advise_") as tmp:
        log = os.path.join(tmp, "server.log")
        try:
            with ServerProcess(args.gpufleet, ["--db", os.path.join(tmp, "s.db"),
                                               "--simulate", "default", "--speedup", "120"],
                               log) as srv:
                srv.wait_ready()

                def ledger_ready():
                    # embed-batch starts 300 simulated s in: wait until it has run and
                    # chat-api has been metered, so the fleet is in its steady state.
                    rows = get_json(srv.url + "/api/v1/cost?from=-1h&by=workload&format=json")["rows"]
                    names = {r["group"]["workload"]: r for r in rows}
                    return ("chat-api-7f9c6d" in names and "embed-batch-x2k" in names and
                            names["chat-api-7f9c6d"]["gpu_hours"] > 0)
                wait_for("the cost ledger", ledger_ready, 60)

                out = run(args.gpufleet, "advise", "--server", srv.url, "--jobs", JOBS,
                          "--throughputs", GAVEL, "--json")
                assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
                advice = json.loads(out.stdout)
                fleet = get_json(srv.url + "/api/v1/fleet")["devices"]
                free_nodes = {d["node"] for d in fleet
                              if not d["workload"] and d["up"] and not d["stale"]
                              and "/p" not in d["device"].rsplit("/", 1)[-1][:2]}
                judged = {m["job"] for m in advice["moves"]}
                for m in advice["moves"]:
                    assert m["to_node"] in free_nodes, (m, free_nodes)
                    assert m["to_node"] != m["from_node"], m
                    assert m["hours_after"] <= m["hours_now"] + 1e-9, m
                    assert m["usd_after"] <= m["usd_now"] + 1e-9, m
                    assert m["migration_minutes"] > 0 and m["migration_usd"] > 0, m
                    assert m["sentence"].startswith(f"move {m['job']} from {m['from_node']}"), m
                    assert "minutes of checkpoint" in m["sentence"], m
                    assert m["predicted"] and "predicted, typically off by" in m["sentence"], m
                # chat-api and llm-pretrain report step times: their speed now is
                # measured, within what the server's series API holds for them (a
                # longer range: simulated time moves on between the two calls).
                steps = get_json(srv.url + "/api/v1/series?metric="
                                 "gpu_workload_step_duration_seconds&from=-30m&step=15s&limit=10000")
                reported = {}
                for one in steps["series"]:
                    values = [v for v in one["v"] if v is not None]
                    for key in ("workload_name", "workload_pod"):
                        if one["labels"].get(key):
                            reported.setdefault(one["labels"][key], []).extend(values)
                remaining = {"chat-api": 400000, "llm-pretrain": 20000}  # the jobs file's
                for m in advice["moves"]:
                    if m["job"] in remaining:
                        assert m["measured_now"] and m["step_samples"] > 0, m
                        assert "current throughput measured" in m["sentence"], m
                        values = reported[m["job"]]
                        assert min(values) <= m["measured_step_s"] <= max(values), (m, values)
                        expect_h = remaining[m["job"]] * m["measured_step_s"] / 3600
                        assert abs(m["hours_now"] - expect_h) < 1e-6 * expect_h, (m, expect_h)
                    else:
                        assert not m["measured_now"] and m["measured_step_s"] is None, m
                stays = "\n".join(advice["stays"])
                pretrain = [s for s in advice["stays"] if s.startswith("llm-pretrain:")]
                assert pretrain and "at its measured" in pretrain[0], stays
                assert "at its measured" not in "".join(
                    s for s in advice["stays"] if s.startswith("cfd-solver-0:")), stays
                assert "llm-pretrain: stays" in stays and "no other node has 6 free" in stays, advice
                assert "llm-pretrain" not in judged, advice
                # Every job of the file is accounted for: moved, staying or not judged.
                for name in ("chat-api", "llm-pretrain", "cfd-solver-0"):
                    assert (name in judged or f"{name}:" in stays or
                            any(s.startswith(name) for s in advice["not_judged"])), (name, advice)
                # The plain-language form.
                out = run(args.gpufleet, "advise", "--server", srv.url, "--jobs", JOBS,
                          "--throughputs", GAVEL)
                assert out.returncode == 0, out.stderr
                print(out.stdout)
                # The MI300X node's canary falls to a slow path (a GEMM at 0.8 of its
                # baseline): a move there counts it and says so; once it fails a
                # diagnostic it is no target at all.
                def push_canary(check):
                    status, body = http("POST", srv.url + "/api/v1/canary", json.dumps(
                        {"node": "azure-mi300x-0", "checks": [check]}).encode())
                    assert status == 200, (status, body)

                def advise_json():
                    out = run(args.gpufleet, "advise", "--server", srv.url, "--jobs", JOBS,
                              "--throughputs", GAVEL, "--json")
                    assert out.returncode == 0, out.stderr
                    return json.loads(out.stdout)
                push_canary({"target": "model=mi300x", "benchmark": "gemm.bf16@8192",
                             "unit": "flop_per_second", "verdict": "regression",
                             "median": 8.0e14, "baseline_median": 1.0e15, "n": 5,
                             "baseline_n": 5, "worse_fraction": 0.2, "reason": "slow path"})
                slowed = advise_json()
                to_mi300x = [m for m in slowed["moves"] if m["to_node"] == "azure-mi300x-0"]
                assert to_mi300x, slowed  # still where chat-api gains most, at 0.8 of the speed
                for m in to_mi300x:
                    assert m["target_canary"].startswith("gemm.bf16@8192 at 0.80"), m
                    assert "the target's canary: gemm.bf16@8192" in m["sentence"], m
                push_canary({"target": "model=mi300x", "benchmark": "rvs.gst", "unit": "pass",
                             "verdict": "fail", "median": 0, "n": 1, "reason": "diag failed"})
                failed = advise_json()
                assert all(m["to_node"] != "azure-mi300x-0" for m in failed["moves"]), failed
                # Bad input names the place; an unreachable server is an error.
                bad = os.path.join(tmp, "bad.toml")
                with open(bad, "w") as f:
                    f.write('[[job]]\nname = "x"\njob_type = "A3C"\nremaning_steps = 1\n')
                out = run(args.gpufleet, "advise", "--server", srv.url, "--jobs", bad,
                          "--throughputs", GAVEL)
                assert out.returncode == 2 and f"{bad}:4:" in out.stderr, (out.returncode, out.stderr)
            out = run(args.gpufleet, "advise", "--server", srv.url, "--jobs", JOBS,
                      "--throughputs", GAVEL)
            assert out.returncode != 0 and srv.url in out.stderr, (out.returncode, out.stderr)
        except Exception:
            dump_log(log)
            raise
    print("advise e2e: ok")


if __name__ == "__main__":
    main()
