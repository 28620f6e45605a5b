#!/usr/bin/env python3
"""E2E: workloads report their step durations to a real `gpufleet agent`.

Two real loops on this host report through python/gpufleet_steps.py: a small
PyTorch model trained on the CPU (Debian's python3-torch, timed through
attach_to_optimizer) and a plain-Python loop (mark()). Each child measures
its own step times independently (time.perf_counter around the step), records
every duration the reporter queued, and prints both with its pid. The agent
must then serve gpu_workload_step_duration_seconds{pid, workload_name,
workload_team} equal to the last duration that child queued (once its next
collection has run: until then it may serve an earlier queued step), the queued
durations must add up to the child's own timer over the whole loop, and a bad
report gets a 400 that names the field.

Step by step the two timers can differ by milliseconds: the reporter's
background thread may take the interpreter between the reporter's mark and
the child's own clock read, lengthening one of the child's steps and
shortening the next. Over the whole loop those shifts cancel, so the sums are
compared, not single steps."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import free_port, http, stop_process, wait_for  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TORCH_LOOP = r"""
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import torch
from gpufleet_steps import StepReporter, attach_to_optimizer
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(512, 64)
y = torch.randint(0, 10, (512,))
rep = StepReporter("tiny-mlp", team="research", url=sys.argv[2], flush_interval_s=0.2)
reported = []
def _record(d, _step=rep.step):
    reported.append(float(d))
    _step(d)
rep.step = _record
attach_to_optimizer(opt, rep)
own, losses, last = [], [], time.perf_counter()
for step in range(60):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    now = time.perf_counter()
    own.append(now - last)
    last = now
    losses.append(loss.item())
rep.close()
print(json.dumps({"pid": os.getpid(), "own": own, "reported": reported, "sent": rep.sent, "errors": rep.errors,
                  "last_error": rep.last_error, "loss_first": losses[0], "loss_last": losses[-1]}))
"""

PLAIN_LOOP = r"""
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
from gpufleet_steps import StepReporter
rep = StepReporter("plain-loop", url=sys.argv[2], flush_interval_s=0.2)
reported = []
def _record(d, _step=rep.step):
    reported.append(float(d))
    _step(d)
rep.step = _record
rep.mark()
own, last = [], time.perf_counter()
for step in range(20):
    sum(i * i for i in range(20000))
    rep.mark()
    now = time.perf_counter()
    own.append(now - last)
    last = now
rep.close()
print(json.dumps({"pid": os.getpid(), "own": own, "reported": reported, "sent": rep.sent, "errors": rep.errors,
                  "last_error": rep.last_error}))
"""


def torch_python():
    """A Python that can import torch: Debian's /usr/bin/python3 first."""
    for exe in ("/usr/bin/python3", sys.executable):
        if os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import torch"], capture_output=True).returncode == 0:
            return exe
    raise SystemExit("python3-torch is not installed (scripts/setup.sh installs it)")


def served(text, pid, workload):
    for line in text.splitlines():
        if not line.startswith("gpu_workload_step_duration_seconds{"):
            continue
        if f'pid="{pid}"' in line and f'workload_name="{workload}"' in line:
            return line, float(line.rsplit(" ", 1)[1])
    return None


def served_last(url, pid, workload, reported, timeout_s=10):
    """Polls /metrics until the agent serves the child's last queued step.

    The agent publishes what it had at its last collection (every 0.2 s
    here), so right after the child's final report it may still serve a step
    from an earlier batch. Every value seen on the way must be one the child
    queued; the last one must show up within `timeout_s`."""
    deadline = time.time() + timeout_s
    seen = []
    while True:
        found = served(http("GET", url + "/metrics")[1], pid, workload)
        if found:
            line, value = found
            assert any(abs(value - r) <= 1e-9 + 1e-6 * r for r in reported), \
                ("served a step the child never queued", value, line)
            if abs(value - reported[-1]) <= 1e-9 + 1e-6 * reported[-1]:
                return line, value
            seen.append(value)
        assert time.time() < deadline, \
            ("the agent never served the last queued step", reported[-1], seen[-5:])
        time.sleep(0.05)


def run_child(exe, code, url):
    out = subprocess.run([exe, "-c", code, REPO, url], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    exe = torch_python()
    with tempfile.TemporaryDirectory(prefix="gpufleet_steps_") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = open(os.path.join(tmp, "agent.log"), "ab")
        agent = subprocess.Popen([args.gpufleet, "agent", "--source", "sim", "--listen",
                                  f"127.0.0.1:{port}", "--interval", "0.2", "--node", "n-test"],
                                 stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for("the agent", lambda: http("GET", url + "/healthz")[0] == 200, 30)
            for name, code, workload, team in (("torch", TORCH_LOOP, "tiny-mlp", "research"),
                                               ("plain", PLAIN_LOOP, "plain-loop", None)):
                child = run_child(exe, code, url)
                assert child["errors"] == 0, child
                own, reported = child["own"], child["reported"]
                assert len(reported) == len(own) and child["sent"] == len(reported), child
                if name == "torch":
                    assert child["loss_last"] < child["loss_first"], child  # it really trained
                line, value = served_last(url, child["pid"], workload, reported)
                # The reporter's steps cover the child's loop: its first mark
                # and the child's first clock read are one statement apart, as
                # are its last mark and the child's last read.
                total_own, total_rep = sum(own), sum(reported)
                assert abs(total_rep - total_own) <= 0.005 + 0.02 * total_own, \
                    (total_rep, total_own)
                assert 'node="n-test"' in line, line
                if team:
                    assert f'workload_team="{team}"' in line, line
                print(f"{name}: {len(own)} steps, {total_own * 1e3:.1f} ms own timer, "
                      f"{total_rep * 1e3:.1f} ms reported, last {value * 1e3:.3f} ms served")
            status, body = http("POST", url + "/api/v1/steps",
                                body=b'{"pid": 1, "workload": "w", "steps_s": [0.5, -2]}',
                                headers={"Content-Type": "application/json"})
            assert status == 400 and "steps_s[1]" in body, (status, body)
        finally:
            stop_process(agent)
    print("step reporter e2e: ok")


if __name__ == "__main__":
    main()
