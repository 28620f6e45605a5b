#!/usr/bin/env python3
"""E2E: placement through its three doors, with the real `gpufleet` binary.
1. `gpufleet place` on data/place/: text and JSON, exit 0 placed / 1 nothing
   fits / 2 bad input.
2. `gpufleet server` with [place] inventory: POST /api/v1/place (200, 400),
   and 404 on a server without it.
   Both with an objective (data/place/request-objective.toml) when Gavel's
   table is in ../shared/traces/gavel/ (said and skipped when absent).
3. `gpufleet place extender` on loopback: kube-scheduler's filter and
   prioritize bodies from tests/data/k8s/ (hand-written, see the README
   there), under a urlPrefix, and an inventory change picked up live."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import (ServerProcess, dump_log, free_port, http,  # noqa: E402
                            stop_process, wait_for)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLACE = os.path.join(ROOT, "data", "place")
K8S = os.path.join(ROOT, "tests", "data", "k8s")
GAVEL = os.path.join(os.path.dirname(ROOT), "shared", "traces", "gavel",
                     "simulation_throughputs.json")


def check_objective_answer(obj, objective):
    """Every candidate carries duration, $/job, price with source and date,
    and the chosen one wins the objective among those that qualify."""
    assert obj["objective"] == objective, obj
    opts = obj["options"]
    assert len(opts) >= 2, obj
    for o in opts:
        assert o["duration_hours"] > 0 and o["steps_per_s"] > 0, o
        assert o["price"]["source"] and o["price"]["date"], o
        assert o["usd_per_job"] > 0 and o["usd_per_effective_tflop"] > 0, o
        assert o["throughput_basis"].startswith("predicted") == o["predicted"], o
        if o["predicted"]:
            assert o["typical_relative_error"] > 0, o
    chosen = [o for o in opts if o["chosen"]]
    assert len(chosen) == 1, obj
    key = "duration_hours" if objective == "fastest" else "usd_per_job"
    ok = [o for o in opts if o["meets_deadline"]]
    assert chosen[0][key] == min(o[key] for o in ok), obj
    assert chosen[0]["colocation_penalty"] is not None, chosen
    assert chosen[0]["gpu_model"] in obj["reason"], obj


def check_cli_objective(gpufleet, tmp):
    if not os.path.exists(GAVEL):
        print(f"objective checks skipped: {GAVEL} is absent")
        return
    inv = os.path.join(PLACE, "inventory.toml")
    req = os.path.join(PLACE, "request-objective.toml")
    for objective in ("fastest", "cheapest-per-job", "cheapest-meeting-deadline"):
        out = run(gpufleet, "place", "--inventory", inv, "--request", req, "--throughputs", GAVEL,
                  "--objective", objective, "--json")
        assert out.returncode == 0, (objective, out.returncode, out.stdout, out.stderr)
        j = json.loads(out.stdout)
        check_objective_answer(j["objective"], objective)
        assert j["placed"], j
    out = run(gpufleet, "place", "--inventory", inv, "--request", req, "--throughputs", GAVEL)
    assert out.returncode == 0 and "objective: " in out.stdout, (out.stdout, out.stderr)
    print(out.stdout)
    # A deadline nobody meets: exit 1, and the reason names the fastest.
    out = run(gpufleet, "place", "--inventory", inv, "--request", req, "--throughputs", GAVEL,
              "--deadline-hours", "0.5")
    assert out.returncode == 1 and "meets the 0.5 h deadline" in out.stderr, (out.stdout, out.stderr)
    # Errors name file, line and field.
    bad = os.path.join(tmp, "bad-objective.toml")
    with open(bad, "w") as f:
        f.write('gpus = 1\njob_type = "A3C"\nsteps = 10\nobjective = "cheapest"\n')
    out = run(gpufleet, "place", "--inventory", inv, "--request", bad, "--throughputs", GAVEL)
    assert out.returncode == 2 and f"{bad}:4:" in out.stderr and "objective" in out.stderr, out.stderr
    out = run(gpufleet, "place", "--inventory", inv, "--request", req, "--throughputs",
              os.path.join(tmp, "missing.json"))
    assert out.returncode == 2 and "missing.json" in out.stderr, out.stderr


def check_sim_startup_and_feasibility(gpufleet):
    """`sim gavel` charges start-ups and takes runs out, through the CLI."""
    if not os.path.exists(GAVEL):
        print(f"sim gavel checks skipped: {GAVEL} is absent")
        return
    base = ("sim", "gavel", "--throughputs", GAVEL, "--policy", "fifo_perf", "--rates", "0.4")
    rows = {}
    for name, extra in (("free", ()), ("startup", ("--startup-minutes", "3")),
                        ("no-k80-nlp", ("--cannot-run", "Transformer,LM:k80"))):
        out = run(gpufleet, *base, *extra)
        assert out.returncode == 0, (name, out.stderr)
        header, row = out.stdout.strip().splitlines()[:2]
        rows[name] = dict(zip(header.split(","), row.split(",")))
    # Without start-up cost none is counted; with it every one of the 5,000
    # jobs starts at least once, and the average job is at least 3 minutes longer.
    assert rows["free"]["startups"] == "0", rows["free"]
    assert int(rows["startup"]["startups"]) >= 5000, rows["startup"]
    assert float(rows["startup"]["avg_jct_hours"]) >= float(rows["free"]["avg_jct_hours"]) + 0.04, rows
    assert rows["no-k80-nlp"]["completed"] == rows["free"]["completed"] == "1000", rows
    out = run(gpufleet, *base, "--cannot-run", "Transformer:h100")
    assert out.returncode != 0 and '"h100"' in out.stderr, out.stderr


def run(gpufleet, *args):
    return subprocess.run([gpufleet, *args], capture_output=True, text=True, timeout=60)


def check_cli(gpufleet, tmp):
    inv = os.path.join(PLACE, "inventory.toml")
    out = run(gpufleet, "place", "--inventory", inv, "--request",
              os.path.join(PLACE, "request-train.toml"))
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    assert "train-llm: placed on gcp-a3-h100-01 GPUs 0,1,2,3" in out.stdout, out.stdout
    assert "software (1):\n    gcp-a3-h100-02:" in out.stdout, out.stdout
    print(out.stdout)

    out = run(gpufleet, "place", "--inventory", inv, "--request",
              os.path.join(PLACE, "request-infer.toml"), "--policy", "bestfit", "--json")
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["node"] == "aws-p4d-a100-01" and j["gpus"] == [3], j
    assert len(j["alternatives"]) == 3, j

    big = os.path.join(tmp, "big.toml")
    with open(big, "w") as f:
        f.write('name = "huge"\ngpus = 9\nvendor = "nvidia"\n')
    out = run(gpufleet, "place", "--inventory", inv, "--request", big)
    assert out.returncode == 1, (out.returncode, out.stdout, out.stderr)
    assert "huge: no node fits (6 nodes" in out.stdout, out.stdout
    assert "gpu_capacity (3):" in out.stdout, out.stdout

    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w") as f:
        f.write('gpus = 1\nvendr = "amd"\n')
    out = run(gpufleet, "place", "--inventory", inv, "--request", bad)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert f"{bad}:2: unknown key 'vendr' (did you mean 'vendor'?)" in out.stderr, out.stderr
    out = run(gpufleet, "place", "--inventory", os.path.join(tmp, "missing.toml"), "--request", bad)
    assert out.returncode == 2, (out.returncode, out.stderr)
    out = run(gpufleet, "place", "--inventory", inv, "--request", bad, "--polcy", "fgd")
    assert out.returncode == 2 and "--policy" in out.stderr, out.stderr


def check_server(gpufleet, tmp):
    cfg = os.path.join(tmp, "server.toml")
    with open(cfg, "w") as f:
        f.write(f'[place]\ninventory = "{os.path.join(PLACE, "inventory.toml")}"\n'
                'policy = "bestfit"\n')
    log = os.path.join(tmp, "server.log")
    try:
        with ServerProcess(gpufleet, ["--db", os.path.join(tmp, "s.db"), "--config", cfg],
                           log) as srv:
            srv.wait_ready()
            body = json.dumps({"name": "infer", "cpu": "4", "memory": "16Gi", "gpu_share": 0.25,
                               "min_gpu_memory": "40Gi"}).encode()
            status, text = http("POST", srv.url + "/api/v1/place", body,
                                {"Content-Type": "application/json"})
            assert status == 200, (status, text)
            j = json.loads(text)
            assert j["node"] == "aws-p4d-a100-01" and j["gpus"] == [3], j
            assert j["policy"] == "bestfit", j
            assert j["rejected_by_reason"] == {"model": ["aws-cpu-01"]}, j
            status, text = http("POST", srv.url + "/api/v1/place", b'{"gpus": 1, "cuda": "12"}')
            assert status == 400 and "unknown key 'cuda'" in text, (status, text)
            status, text = http("POST", srv.url + "/api/v1/place",
                                b'{"gpus": 1, "job_type": "A3C", "steps": 5, "objective": "fastest"}')
            assert status == 400 and "throughputs" in text, (status, text)

        if os.path.exists(GAVEL):
            with open(cfg, "a") as f:
                f.write(f'throughputs = "{GAVEL}"\n')
            with ServerProcess(gpufleet, ["--db", os.path.join(tmp, "s3.db"), "--config", cfg],
                               log) as srv:
                srv.wait_ready()
                body = json.dumps({"name": "train", "gpus": 4, "vendor": "nvidia",
                                   "job_type": "Transformer (batch size 64)", "steps": 2000000,
                                   "objective": "cheapest-per-job"}).encode()
                status, text = http("POST", srv.url + "/api/v1/place", body,
                                    {"Content-Type": "application/json"})
                assert status == 200, (status, text)
                j = json.loads(text)
                check_objective_answer(j["objective"], "cheapest-per-job")
                body = json.dumps({"gpus": 1, "job_type": "Nope", "steps": 5,
                                   "objective": "fastest"}).encode()
                status, text = http("POST", srv.url + "/api/v1/place", body)
                assert status == 400 and 'job_type: \\"Nope\\"' in text, (status, text)

        with ServerProcess(gpufleet, ["--db", os.path.join(tmp, "s2.db")], log) as srv:
            srv.wait_ready()
            status, text = http("POST", srv.url + "/api/v1/place", b'{"gpus": 1}')
            assert status == 404 and "[place] inventory" in text, (status, text)
    except Exception:
        dump_log(log)
        raise


def check_extender(gpufleet, tmp):
    inv = os.path.join(tmp, "inventory.toml")
    shutil.copy(os.path.join(PLACE, "inventory.toml"), inv)
    port = free_port()
    url = f"http://127.0.0.1:{port}/gpufleet"
    log_path = os.path.join(tmp, "extender.log")
    log = open(log_path, "ab")
    proc = subprocess.Popen([gpufleet, "place", "extender", "--inventory", inv, "--listen",
                             f"127.0.0.1:{port}", "--policy", "bestfit"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        def healthy():
            if proc.poll() is not None:
                raise RuntimeError(f"extender exited with {proc.returncode}")
            return http("GET", f"http://127.0.0.1:{port}/-/healthy", timeout=2)[0] == 200
        wait_for("extender health", healthy, 30)

        def post(verb, name):
            with open(os.path.join(K8S, name), "rb") as f:
                status, text = http("POST", f"{url}/{verb}", f.read(),
                                    {"Content-Type": "application/json"})
            assert status == 200, (verb, name, status, text)
            return json.loads(text)

        r = post("filter", "filter-train-nodenames.json")
        assert r["nodenames"] == ["gcp-a3-h100-01", "aws-p4d-a100-01"], r
        assert r["failedNodes"] == {"kind-worker-9": "not in gpufleet inventory"}, r
        assert "gcp-a3-h100-02" in r["failedAndUnresolvableNodes"], r
        r = post("filter", "filter-infer-nodes.json")
        assert [n["metadata"]["name"] for n in r["nodes"]["items"]] == [
            "gcp-a3-h100-01", "aws-p4d-a100-01"], r
        r = post("filter", "bad-quantity.json")
        assert "'4GB' is not a memory quantity" in r["error"], r
        r = post("prioritize", "prioritize-infer-nodenames.json")
        scores = {h["host"]: h["score"] for h in r}
        assert scores["aws-p4d-a100-01"] == 10 and scores["aws-cpu-01"] == 0, scores

        # Seven AMD GPUs do not fit (six free) until the inventory says they do.
        with open(os.path.join(K8S, "filter-amd.json")) as f:
            args = json.load(f)
        args["pod"]["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"] = "7"
        body = json.dumps(args).encode()
        r = json.loads(http("POST", f"{url}/filter", body)[1])
        assert r["nodenames"] == [] and "azure-nd-mi300x-01" in r["failedNodes"], r
        with open(inv) as f:
            text = f.read()
        text = text.replace("gpu_free = [1000, 1000, 1000, 1000, 1000, 1000, 0, 0]",
                            "gpu_free = [1000, 1000, 1000, 1000, 1000, 1000, 1000, 0]")
        with open(inv, "w") as f:
            f.write(text)
        later = time.time() + 5  # a new mtime even on coarse-timestamp file systems
        os.utime(inv, (later, later))
        r = json.loads(http("POST", f"{url}/filter", body)[1])
        assert r["nodenames"] == ["azure-nd-mi300x-01"], r
    except Exception:
        log.close()
        dump_log(log_path)
        raise
    finally:
        stop_process(proc)
    assert proc.returncode == 0, proc.returncode
    log.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpufleet_place_") as tmp:
        check_cli(args.gpufleet, tmp)
        check_cli_objective(args.gpufleet, tmp)
        check_sim_startup_and_feasibility(args.gpufleet)
        check_server(args.gpufleet, tmp)
        check_extender(args.gpufleet, tmp)
    print("place e2e: ok")


if __name__ == "__main__":
    main()
