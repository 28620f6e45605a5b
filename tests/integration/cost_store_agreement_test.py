#!/usr/bin/env python3
"""Integration test: the cost ledger recomputed from a real long-term store agrees with the
server's own ledger (issue 14, item 7: `gpufleet cost report --from-store URL`).

For each engine, VictoriaMetrics and then Prometheus (Debian packages, on loopback, with
temporary data dirs): `gpufleet server --simulate default --speedup 30 --forward URL` meters
the simulated mixed fleet into its state database and forwards every accepted write to the
engine through its disk queue. After the run, the same whole minutes are charged twice:
`cost report --db` (the server's rollup) and `cost report --from-store URL --db` (raw samples
read back through the engine's query API and metered again; incidents from the same db).
Every group's total must agree within 1%, and the fleet total within 0.5%.

Then the recording rules of `gpufleet rules export --cost` (checked by promtool): the engine
evaluates them over the same minutes, as one subquery per rule with the rules they read
inlined (sum_over_time((expr)[period:1m]) / 60; recorded series would only exist from the
moment a ruler loaded them), and each namespace's charge and the unallocated idle must agree
with the built-in ledger's allocation basis (idle none, contention off) within 1%, and each
namespace's usage and usage-mean charges with the ledger's base lines under those bases. Every
process is always stopped."""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "e2e"))
from server_harness import ServerProcess, dump_log, free_port, stop_process, wait_for  # noqa: E402

PRICES = os.path.join(SOURCE_DIR, "data", "prices", "demo.toml")
RUN_S = 45  # real seconds: about 22 simulated minutes at 30x


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def start_engine(kind, tmp):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(tmp, f"{kind}.log"), "w")
    if kind == "victoriametrics":
        # latencyOffset=0: just-written points are visible at once; the simulated clock runs
        # ahead of the wall clock, so nothing may be held back relative to "now".
        cmd = [shutil.which("victoria-metrics"), f"-httpListenAddr=127.0.0.1:{port}",
               f"-storageDataPath={tmp}/vm", "-retentionPeriod=100y",
               "-search.latencyOffset=0s", "-search.disableCache"]
        write, ready = base + "/api/v1/write", base + "/health"
    else:
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1m\n")
        cmd = [shutil.which("prometheus"), f"--config.file={cfg}",
               f"--storage.tsdb.path={tmp}/prom", f"--web.listen-address=127.0.0.1:{port}",
               "--web.enable-remote-write-receiver", "--storage.tsdb.retention.time=100y"]
        write, ready = base + "/api/v1/write", base + "/-/ready"
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    wait_for(f"{kind} ready", lambda: get(ready) is not None, 60)
    return proc, base, write


def report(gpufleet, extra, period, by="team,workload"):
    out = subprocess.run([gpufleet, "cost", "report", "--prices", PRICES, "--by", by,
                          "--format", "json", "--from", str(period[0]), "--to", str(period[1])]
                         + extra, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    if out.stderr:
        print(out.stderr.strip())
    return json.loads(out.stdout)


def load_rules(gpufleet, tmp):
    path = os.path.join(tmp, "cost-rules.yml")
    out = subprocess.run([gpufleet, "rules", "export", "--cost", "-o", path],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    check = subprocess.run([shutil.which("promtool"), "check", "rules", path],
                           capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stdout + check.stderr
    rules, record = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("- record: "):
                record = line[len("- record: "):]
            elif line.startswith("expr: '") and record:
                expr = line[len("expr: '"):-1]
                # Inline the rules recorded before this one (longest names first).
                for name in sorted(rules, key=len, reverse=True):
                    expr = re.sub(r"(?<![\w:])" + re.escape(name) + r"(?![\w:])",
                                  lambda _m, n=name: "(" + rules[n] + ")", expr)
                rules[record] = expr
    return rules


def engine_sum(base, expr, by, period):
    # One step per minute, at the minutes' ends: (from, to]. A second short of the period, since
    # Prometheus 2.x ranges include their left end (3.x and VictoriaMetrics do not).
    span = period[1] - period[0] - 1
    query = f"sum by ({by}) (sum_over_time(({expr})[{span}s:60s])) / 60" if by else \
        f"sum(sum_over_time(({expr})[{span}s:60s])) / 60"
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": query, "time": period[1]})
    doc = json.loads(get(url, timeout=60))
    assert doc["status"] == "success", doc
    return {r["metric"].get(by, "") if by else "": float(r["value"][1])
            for r in doc["data"]["result"]}


def check_rules(gpufleet, kind, base_url, db, rules, period):
    own = report(gpufleet, ["--db", db, "--basis", "allocation", "--idle", "none",
                            "--contention", "off"], period, by="namespace")
    ledger = {}
    for r in own["rows"]:
        ns = r["group"]["namespace"]
        ledger[ns] = ledger.get(ns, 0) + r["total_usd"]
    held = engine_sum(base_url, rules["gpufleet:holder_cost_usd_per_hour"], "workload_namespace",
                      period)
    idle = engine_sum(base_url, rules["gpufleet:device_idle_cost_usd_per_hour"], None, period)
    print(f"{kind} rules: {sorted(held.items())}, unallocated {idle}; ledger {sorted(ledger.items())}")
    for ns, usd in ledger.items():
        got = idle.get("", 0) if ns == "(unallocated)" else held.get(
            "" if ns == "(none)" else ns, 0)
        assert abs(got - usd) <= max(0.01 * abs(usd), 1e-3), (kind, ns, usd, got)
    total_rules = sum(held.values()) + sum(idle.values())
    total = sum(ledger.values())
    print(f"{kind}: recording rules ${total_rules:.4f} vs ledger ${total:.4f} "
          f"(ratio {total_rules / total:.5f}) over {(period[1] - period[0]) // 60} minutes")
    # The usage bases: each namespace's base charge (the rest is its idle).
    for basis, rule in (("usage", "gpufleet:holder_usage_cost_usd_per_hour"),
                        ("usage-mean", "gpufleet:holder_usage_mean_cost_usd_per_hour")):
        rows = report(gpufleet, ["--db", db, "--basis", basis, "--idle", "none",
                                 "--contention", "off"], period, by="namespace")["rows"]
        base = {}
        for r in rows:
            if r["group"]["namespace"] != "(unallocated)":
                ns = r["group"]["namespace"]
                base[ns] = base.get(ns, 0) + r["base_usd"]
        got = engine_sum(base_url, rules[rule], "workload_namespace", period)
        print(f"{kind} {basis}: rules {sorted(got.items())}; ledger {sorted(base.items())}")
        assert sum(base.values()) < 0.95 * total, ("the usage basis charged everything", basis)
        for ns, usd in base.items():
            g = got.get("" if ns == "(none)" else ns, 0)
            assert abs(g - usd) <= max(0.01 * abs(usd), 1e-3), (kind, basis, ns, usd, g)


def check(gpufleet, kind, tmp, rules):
    work = os.path.join(tmp, kind)
    os.makedirs(work)
    engine, base, write = start_engine(kind, work)
    try:
        db = os.path.join(work, "state.db")
        cfg = os.path.join(work, "server.toml")
        with open(cfg, "w") as f:
            f.write(f'[forward]\nqueue_dir = "{work}/queue"\n')
        log = os.path.join(work, "server.log")
        try:
            with ServerProcess(gpufleet, ["--config", cfg, "--db", db, "--simulate", "default",
                                          "--speedup", "30", "--forward", write], log) as srv:
                srv.wait_ready()
                time.sleep(RUN_S)
                # Minutes before the newest one are complete and were enqueued before the
                # newest began (the simulator writes in order); once the queue is seen empty
                # they have all reached the engine.
                with sqlite3.connect(db) as c:
                    lo, hi = c.execute("SELECT min(minute), max(minute) FROM cost_minutes").fetchone()

                def drained():
                    for ln in get(srv.url + "/metrics").splitlines():
                        if ln.startswith("gpufleet_server_forward_queue_bytes "):
                            return float(ln.split()[1]) == 0
                    return False
                wait_for("the forward queue to drain", drained, 60)
        except Exception:
            dump_log(log)
            raise
        # Whole minutes only: the first may have begun before the server; [.., hi) is forwarded.
        period = (lo + 60, hi)
        assert period[1] - period[0] >= 600, ("too few metered minutes", lo, hi)
        if kind == "victoriametrics":
            get(base + "/internal/force_flush")
        own = report(gpufleet, ["--db", db], period)
        replayed = report(gpufleet, ["--db", db, "--from-store", base], period)
        rows = {tuple(r["group"].values()): r["total_usd"] for r in own["rows"]}
        again = {tuple(r["group"].values()): r["total_usd"] for r in replayed["rows"]}
        assert set(rows) == set(again), (sorted(rows), sorted(again))
        worst = 0.0
        for g, usd in rows.items():
            diff = abs(again[g] - usd) / max(abs(usd), 1e-9)
            worst = max(worst, diff if abs(usd) > 0.01 else 0)
            assert abs(again[g] - usd) <= max(0.01 * abs(usd), 1e-4), (kind, g, usd, again[g])
        t0, t1 = own["total"]["total_usd"], replayed["total"]["total_usd"]
        assert abs(t1 - t0) <= 0.005 * t0, (kind, t0, t1)
        print(f"{kind}: {len(rows)} groups over {(period[1] - period[0]) // 60} minutes; "
              f"ledger ${t0:.4f}, from the store ${t1:.4f} (ratio {t1 / t0:.5f}); "
              f"worst group difference {worst * 100:.3f}%")
        check_rules(gpufleet, kind, base, db, rules, period)
    finally:
        stop_process(engine)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    missing = [b for b in ("victoria-metrics", "prometheus", "promtool") if shutil.which(b) is None]
    if missing:
        print("missing (scripts/setup.sh installs them): " + ", ".join(missing))
        return 1
    with tempfile.TemporaryDirectory(prefix="gpufleet_cost_store_") as tmp:
        rules = load_rules(args.gpufleet, tmp)
        for kind in ("victoriametrics", "prometheus"):
            check(args.gpufleet, kind, tmp, rules)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
