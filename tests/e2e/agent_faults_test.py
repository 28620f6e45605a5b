#!/usr/bin/env python3
"""End-to-end fault tests of the real `gpufleet agent` binary.

The agent loads fake vendor libraries built in the test tree through the
real dlopen path (LD_LIBRARY_PATH points at them, exactly as the real
libnvidia-ml.so.1 would be found) and the fakes are scripted through their
config files while the agent runs. Covers: a GPU lost mid-run and its
return, a hung library call (the scrape and the other GPU are unaffected,
and the agent recovers), a missing library, a partial library (symbols
absent), a driver/library mismatch, absurd values, and CLI errors.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

FAILS = []
PASSES = [0]


def check(cond, msg):
    if cond:
        PASSES[0] += 1
    else:
        FAILS.append(msg)
        print(f"FAIL: {msg}", file=sys.stderr)


def parse(text):
    """Exposition text -> list of (name, labels dict, value)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not m:
            continue
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def series(samples, name, **want):
    return [s for s in samples if s[0] == name and all(s[1].get(k) == v for k, v in want.items())]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Env:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="gpufleet-e2e-")
        self.config = os.path.join(self.tmp, "fake_nvml.conf")
        open(self.config, "w").close()

    def env(self, libdir):
        e = dict(os.environ)
        e["LD_LIBRARY_PATH"] = libdir
        e["GPUFLEET_FAKE_NVML_CONFIG"] = self.config
        return e

    def write_config(self, text):
        # A new mtime even within one second: the fake also watches the size.
        with open(self.config, "w") as f:
            f.write(text + "\n# " + str(time.time()) + "\n")

    def once(self, *extra, libdir=None, timeout=60):
        libdir = libdir or self.args.fake_nvml_dir
        t0 = time.time()
        p = subprocess.run([self.args.gpufleet, "agent", "--source", "nvml", "--once",
                            "--interval", "0.3", "--node", "n1", *extra],
                           env=self.env(libdir), capture_output=True, text=True, timeout=timeout)
        return p, parse(p.stdout), time.time() - t0


def uuids(samples):
    return sorted({s[1]["gpu_uuid"] for s in series(samples, "gpu_info")})


def test_healthy(env):
    p, s, _ = env.once()
    check(p.returncode == 0, f"healthy run exits 0: {p.stderr[-500:]}")
    gpus = uuids(s)
    check(len(gpus) == 2, f"two GPUs discovered, got {gpus}")
    check(len(series(s, "gpu_up", reason="ok")) >= 2, "gpu_up ok for every device")
    mig = series(s, "gpu_up", partition_kind="mig")
    check(len(mig) == 2, f"two MIG instances as partitions, got {len(mig)}")
    power = series(s, "gpu_power_watts", vendor="nvidia")
    check(power and all(50 <= x[2] <= 700 for x in power), f"power in watts: {power[:2]}")
    mem = series(s, "gpu_memory_total_bytes")
    check(mem and any(x[2] > 70 * 2**30 for x in mem), "memory total in bytes")
    util = series(s, "gpu_utilization_ratio")
    check(util and all(0 <= x[2] <= 1 for x in util) and util[0][1].get("method") == "nvml",
          f"utilization is a 0-1 ratio with method=nvml: {util[:1]}")
    gpm = series(s, "gpu_sm_active_ratio", method="gpm")
    check(len(gpm) > 0, "GPM SM activity (two samples in --once)")
    check(all(x[1].get("node") == "n1" for x in series(s, "gpu_info")), "node label")
    return gpus


def test_lost_gpu_once(env, gpus):
    # Lost before discovery: NVML cannot read its identity, so the agent
    # serves the other GPU and nothing stale for the lost one.
    env.write_config("lost = 1")
    p, s, _ = env.once()
    check(p.returncode == 0, "lost GPU: agent still exits 0")
    check(gpus[0] in uuids(s), f"the healthy GPU is still discovered: {uuids(s)}")
    check(series(s, "gpu_power_watts", gpu_uuid=gpus[0]), "the other GPU keeps its values")
    check(not series(s, "gpu_power_watts", gpu_uuid=gpus[1]), "no values for the lost GPU")


def test_hang_once(env):
    # Every call on GPU 1 blocks for 30 s, discovery included: --once must
    # still finish, count the timeout, and not wait for the stuck call.
    env.write_config("hang_ms.1 = 30000")
    p, s, elapsed = env.once("--collect-timeout", "0.3", timeout=25)
    check(p.returncode == 0, "hung call: --once still finishes")
    check(elapsed < 20, f"--once does not wait for the 30 s hang ({elapsed:.1f} s)")
    t = series(s, "gpufleet_agent_collector_errors_total", reason="timeout")
    check(t and t[0][2] >= 1, "the stuck call is counted as a timeout")


def test_absurd(env):
    env.write_config("temperature_c.0 = 60000")
    p, s, _ = env.once()
    gpu0 = uuids(s)[0] if uuids(s) else None
    temps = [x for x in series(s, "gpu_temperature_celsius", gpu_uuid=gpu0) if x[1].get("sensor") == "gpu"]
    check(not [x for x in temps if x[2] > 1000], f"absurd temperature not served: {temps}")
    absurd = series(s, "gpufleet_agent_collector_errors_total", reason="absurd")
    check(absurd and absurd[0][2] >= 1, "absurd value counted")


def test_mismatch(env):
    env.write_config("init_result = 18")
    p, s, _ = env.once()
    check(not series(s, "gpu_power_watts"), "no values on driver/library mismatch")
    failed = series(s, "gpufleet_agent_collector_errors_total", reason="discover_failed")
    check(failed and failed[0][2] >= 1, "discovery failure counted")
    check("mismatch" in p.stderr.lower() or "18" in p.stderr, f"mismatch explained on stderr: {p.stderr[-300:]}")


def test_missing_and_partial_library(env):
    empty = os.path.join(env.tmp, "nolib")
    os.makedirs(empty, exist_ok=True)
    env.write_config("")
    p, s, _ = env.once(libdir=empty)
    check(p.returncode == 0 and not series(s, "gpu_info"), "missing library: no devices, no crash")
    lib = series(s, "gpufleet_agent_collector_errors_total", reason="discover_failed")
    check(lib, "missing library counted")
    p = subprocess.run([env.args.gpufleet, "agent", "--once"], env=env.env(empty),
                       capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "--source sim" in p.stderr,
          f"auto with no GPU explains itself: rc={p.returncode} {p.stderr[-300:]}")

    p, s, _ = env.once(libdir=os.path.join(env.args.fake_nvml_dir, "partial"))
    check(p.returncode == 0 and len(uuids(s)) == 2, "partial library still discovers devices")
    check(series(s, "gpu_power_watts"), "partial library still serves basic values")
    miss = series(s, "gpufleet_agent_collector_errors_total", reason="symbol_missing")
    check(miss and miss[0][2] >= 1, "absent symbols counted as symbol_missing")


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return parse(r.read().decode())


def wait_until(fn, timeout_s, what):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            if fn():
                return True
        except OSError:
            pass
        time.sleep(0.2)
    check(False, f"timed out: {what}")
    return False


def test_running_agent_loses_and_regains(env):
    env.write_config("")
    port = free_port()
    agent = subprocess.Popen([env.args.gpufleet, "agent", "--source", "nvml", "--interval", "0.3",
                              "--collect-timeout", "0.2", "--listen", f"127.0.0.1:{port}"],
                             env=env.env(env.args.fake_nvml_dir), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: len(series(scrape(port), "gpu_up", reason="ok")) >= 2, 20, "agent up")
        env.write_config("lost = 0")
        wait_until(lambda: series(scrape(port), "gpu_up", reason="lost"), 10, "GPU 0 lost mid-run")
        env.write_config("")
        wait_until(lambda: not series(scrape(port), "gpu_up", reason="lost"), 10, "GPU 0 back")

        env.write_config("hang_ms.0 = 4000")
        wait_until(lambda: series(scrape(port), "gpu_up", reason="timeout"), 10, "GPU 0 hangs")
        # Scrapes keep answering while the call hangs.
        t0 = time.time()
        s = scrape(port)
        check(time.time() - t0 < 2.0, "a scrape does not wait for a hung call")
        check(series(s, "gpu_up", reason="ok"), "GPU 1 still served during the hang")
        env.write_config("")
        wait_until(lambda: not series(scrape(port), "gpu_up", reason="timeout"), 20,
                   "GPU 0 recovers after the hang")
    finally:
        agent.terminate()
        try:
            agent.wait(timeout=15)
        except subprocess.TimeoutExpired:
            agent.kill()
            check(False, "agent did not stop on SIGTERM")
    check(agent.returncode == 0, f"agent exits 0 on SIGTERM (rc={agent.returncode})")


def test_cli_errors(env):
    p = subprocess.run([env.args.gpufleet, "agent", "--intervall", "1"], capture_output=True, text=True)
    check(p.returncode == 2 and "--interval" in p.stderr, f"unknown flag suggests: {p.stderr}")
    p = subprocess.run([env.args.gpufleet, "agnet"], capture_output=True, text=True)
    check(p.returncode == 2 and "agent" in p.stderr, f"unknown command suggests: {p.stderr}")
    p = subprocess.run([env.args.gpufleet, "translate", "/nonexistent.prom"], capture_output=True, text=True)
    check(p.returncode != 0 and "/nonexistent.prom" in p.stderr, f"missing file named: {p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--fake-nvml-dir", required=True)
    args = ap.parse_args()
    env = Env(args)
    gpus = test_healthy(env)
    if len(gpus) == 2:
        test_lost_gpu_once(env, gpus)
    test_hang_once(env)
    test_absurd(env)
    test_mismatch(env)
    test_missing_and_partial_library(env)
    test_running_agent_loses_and_regains(env)
    test_cli_errors(env)
    print(f"{PASSES[0]} passed, {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
