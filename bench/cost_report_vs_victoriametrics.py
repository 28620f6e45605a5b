#!/usr/bin/env python3
"""A month's chargeback report from gpufleet's ledger against the same report as PromQL
over VictoriaMetrics, same fleet, same run (issue 14's speed point).

Side by side: --gpus GPUs (1,000) x --days days (30) of one-minute metering. The ledger
rows are written straight into a state database by build/bench/cost_ledger_gen (see its
header: not through ingest), which also writes the same canonical series as
/api/v1/import JSON lines for a VictoriaMetrics started here on loopback (Debian's
victoria-metrics binary, empty temporary data directory). The minimum series set the
allocation-basis report needs: gpu_up (presence, one sample a minute per GPU),
gpu_workload_info (the holder, one a minute while held, labels workload_team /
workload_namespace) and gpufleet_cost_device_usd_per_hour (the price, one an hour).

  - gpufleet: `gpufleet server --db ledger.db` with the bench's site prices, asked
    GET /api/v1/cost?by=team,namespace&format=json for the whole month over HTTP, as
    VictoriaMetrics is (both long-running servers on loopback; a `cost report --db`
    process would add the state database's integrity check at open, a full read of the
    file). The first request builds the hourly rollup (which a server does as hours
    close, so it is timed apart); then --repeat requests.
  - VictoriaMetrics: two instant queries at the month's end, the allocation per team and
    namespace and the unallocated GPU time's cost (held minutes x price / 60), --repeat
    times each; one report = the sum of both. Started with -search.disableCache: its
    rollup result cache would answer a repeated query from the previous answer (pass
    --vm-cache to keep it on and see that figure).
The figures are compared to the cent (prices are whole micro-dollars a minute), and the
ratio VictoriaMetrics / ledger printed (goal >= 10).

Alone: the same report for --big-gpus GPUs (10,000) x --days, goal < 10 s, from a ledger
written with --hours-only (the hourly rollup as the meter builds it, plus minute rows
of the hours whose holder changes; the minute rows of 10,000 GPU-months would not fit
the bench machine's disk). Disk: the 1,000-GPU database's size per GPU-month, and its
tables' shares (SQLite dbstat).

Usage: bench/cost_report_vs_victoriametrics.py [--build-dir build] [--gpus 1000]
         [--big-gpus 10000] [--days 30] [--repeat 5] [--json FILE]
Exit 0 either way (it measures).
"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from server_harness import free_port, http, stop_process, wait_for  # noqa: E402

START_S = 1793491200  # 2026-11-01T00:00:00Z

# Prices that are whole micro-dollars a minute, so float sums and the ledger's integer
# micro-dollars agree to the cent.
SITE = """
[[node]]
match = "ga-*"
pricing = "negotiated"
usd_per_gpu_hour = 2.40
source = "bench"
date = "2026-12-01"

[[node]]
match = "gb-*"
pricing = "negotiated"
usd_per_gpu_hour = 3.12
source = "bench"
date = "2026-12-01"

[[node]]
match = "gc-*"
pricing = "negotiated"
usd_per_gpu_hour = 6.00
source = "bench"
date = "2026-12-01"
"""


def promql(days):
    w = f"{days}d"
    price = "max by (node, gpu) (last_over_time(gpufleet_cost_device_usd_per_hour[2h]))"
    held = f"sum by (node, gpu) (count_over_time(gpu_workload_info[{w}]))"
    up = f"sum by (node, gpu) (count_over_time(gpu_up[{w}]))"
    return {
        "allocation": (f"sum by (workload_team, workload_namespace) (count_over_time("
                       f"gpu_workload_info[{w}]) * on (node, gpu) group_left {price}) / 60"),
        "unallocated": f"sum(({up} - ({held} or {up} * 0)) * on (node, gpu) {price}) / 60",
    }


def timed(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, out


def report_cmd(gpufleet, db, site, days):
    to = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(START_S + days * 86400))
    return [gpufleet, "cost", "report", "--db", db, "--prices", site, "--from", "2026-11-01",
            "--to", to, "--by", "team,namespace", "--format", "json"]


def table_bytes(db):
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall())
    except sqlite3.Error:
        return {}
    finally:
        con.close()


def post_import(url, path, chunk=32 << 20):
    """POSTs the JSON lines file in chunks that end at line boundaries."""
    with open(path, "rb") as f:
        buf = b""
        while True:
            data = f.read(chunk)
            if not data:
                break
            buf += data
            cut = buf.rfind(b"\n") + 1
            if cut:
                req = urllib.request.Request(url, data=buf[:cut], method="POST")
                urllib.request.urlopen(req, timeout=600).read()
                buf = buf[cut:]
        if buf:
            urllib.request.urlopen(urllib.request.Request(url, data=buf, method="POST"),
                                   timeout=600).read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gpus", type=int, default=1000)
    ap.add_argument("--big-gpus", type=int, default=10000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--vm-cache", action="store_true",
                    help="Leave VictoriaMetrics' rollup result cache on")
    ap.add_argument("--workdir", help="Work here and keep it; a second run with the same "
                    "directory reuses its ledger and VictoriaMetrics data (generation and "
                    "import are skipped, and the first report finds the rollup built)")
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    args = ap.parse_args()
    gpufleet = os.path.join(args.build_dir, "src", "cli", "gpufleet")
    gen = os.path.join(args.build_dir, "bench", "cost_ledger_gen")
    for p in (gpufleet, gen):
        if not os.access(p, os.X_OK):
            sys.exit(f"{p} is not built (cmake --build build --target gpufleet cost_ledger_gen)")
    if not os.access(args.victoria_metrics, os.X_OK):
        sys.exit(f"no victoria-metrics at {args.victoria_metrics} (Debian package victoria-metrics)")

    tmp = args.workdir or tempfile.mkdtemp(prefix="gpufleet-costbench-")
    os.makedirs(tmp, exist_ok=True)
    procs = []
    result = {"gpus": args.gpus, "days": args.days}
    try:
        site = os.path.join(tmp, "site.toml")
        with open(site, "w") as f:
            f.write(SITE)
        db = os.path.join(tmp, "ledger.db")
        vm_json = os.path.join(tmp, "vm.json")
        reuse = os.path.exists(db) and os.path.isdir(os.path.join(tmp, "vmdata"))
        if not reuse:
            t, out = timed([gen, "--gpus", str(args.gpus), "--days", str(args.days),
                            "--start-s", str(START_S), "--db", db, "--vm-json", vm_json])
            print(f"generated {out.strip()} in {t:.1f} s", flush=True)
        else:
            print(f"reusing {db} and {tmp}/vmdata", flush=True)
        vm_port = free_port()
        vm = f"http://127.0.0.1:{vm_port}"
        vm_proc = subprocess.Popen(
            [args.victoria_metrics, f"-httpListenAddr=127.0.0.1:{vm_port}",
             f"-storageDataPath={tmp}/vmdata", "-retentionPeriod=100y",
             "-search.latencyOffset=0s", "-search.maxSamplesPerQuery=10000000000",
             "-search.maxQueryDuration=600s"] + ([] if args.vm_cache else ["-search.disableCache"]),
            stdout=open(os.path.join(tmp, "vm.log"), "w"), stderr=subprocess.STDOUT)
        procs.append(vm_proc)
        wait_for("victoria-metrics", lambda: http("GET", vm + "/health")[0] == 200, 60)
        if not reuse:
            t0 = time.perf_counter()
            post_import(vm + "/api/v1/import", vm_json)
            http("GET", vm + "/internal/force_flush", timeout=600)
            result["vm_import_s"] = time.perf_counter() - t0
            print(f"imported into VictoriaMetrics in {result['vm_import_s']:.1f} s", flush=True)
            os.remove(vm_json)

        at = START_S + args.days * 86400
        queries = promql(args.days)
        urls = {k: vm + "/api/v1/query?" + urllib.parse.urlencode({"query": q, "time": str(at)})
                for k, q in queries.items()}

        def vm_report():
            t = time.perf_counter()
            res = {}
            for k, u in urls.items():
                with urllib.request.urlopen(u, timeout=600) as r:
                    body = json.loads(r.read())
                if body.get("status") != "success":
                    raise RuntimeError(f"{k}: {body}")
                res[k] = body["data"]["result"]
            return time.perf_counter() - t, res

        def vm_complete():
            _, res = vm_report()
            total = sum(float(s["value"][1]) for s in res["allocation"])
            return total > 0 and res["unallocated"]
        wait_for("victoria-metrics to answer", vm_complete, 120)

        gf_port = free_port()
        gf = f"http://127.0.0.1:{gf_port}"
        config = os.path.join(tmp, "server.toml")
        with open(config, "w") as f:
            f.write(f"[cost]\nprices = \"{site}\"\n[detect]\ninterval = \"1h\"\n")
        t0 = time.perf_counter()
        gf_proc = subprocess.Popen(
            [gpufleet, "server", "--listen", f"127.0.0.1:{gf_port}", "--db", db,
             "--config", config],
            stdout=open(os.path.join(tmp, "gf.log"), "w"), stderr=subprocess.STDOUT, cwd=tmp)
        procs.append(gf_proc)
        wait_for("gpufleet server", lambda: http("GET", gf + "/-/ready")[0] == 200, 600)
        print(f"gpufleet server ready in {time.perf_counter() - t0:.1f} s (opens and checks "
              f"the database)", flush=True)
        to_iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
        cost_url = gf + "/api/v1/cost?" + urllib.parse.urlencode(
            {"from": "2026-11-01T00:00:00Z", "to": to_iso, "by": "team,namespace",
             "format": "json"})

        def ledger_report():
            t = time.perf_counter()
            with urllib.request.urlopen(cost_url, timeout=1200) as r:
                body = r.read()
            return time.perf_counter() - t, body.decode()

        cold_s, _ = ledger_report()
        result["ledger_first_report_s"] = cold_s  # builds the hourly rollup (unless reused)
        print(f"ledger: first report ({'rollup already built' if reuse else 'builds the hourly rollup'}) "
              f"{cold_s:.2f} s", flush=True)
        ledger_s, vm_s = [], []
        for _ in range(args.repeat):
            t, out = ledger_report()
            ledger_s.append(t)
            t, res = vm_report()
            vm_s.append(t)
        report = json.loads(out)

        # Same figures: allocation per (team, namespace) and the unallocated cost.
        ledger_alloc = {}
        ledger_unalloc = 0.0
        for row in report["rows"]:
            g = row["group"]
            if g["team"] == "(unallocated)":
                ledger_unalloc += row["idle_usd"]
            else:
                ledger_alloc[(g["team"], g["namespace"])] = row["allocation_usd"]
        vm_alloc = {(s["metric"].get("workload_team", ""), s["metric"].get("workload_namespace", "")):
                    float(s["value"][1]) for s in res["allocation"]}
        vm_unalloc = sum(float(s["value"][1]) for s in res["unallocated"])
        keys = set(ledger_alloc) | set(vm_alloc)
        max_diff = max([abs(ledger_alloc.get(k, 0) - vm_alloc.get(k, 0)) for k in keys] +
                       [abs(ledger_unalloc - vm_unalloc)])
        same = max_diff < 0.005 and len(ledger_alloc) == len(vm_alloc)
        result.update({
            "groups": len(keys), "max_diff_usd": max_diff, "same_to_the_cent": same,
            "ledger_report_s": statistics.median(ledger_s), "ledger_report_best_s": min(ledger_s),
            "promql_report_s": statistics.median(vm_s), "promql_report_best_s": min(vm_s),
            "ledger_total_usd": report["total"]["total_usd"],
        })
        result["ratio_promql_over_ledger"] = result["promql_report_s"] / result["ledger_report_s"]
        result["ratio_promql_over_ledger_first_report"] = result["promql_report_s"] / cold_s
        size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
        gpu_months = args.gpus * args.days / 30.0
        result["ledger_bytes_per_gpu_month"] = size / gpu_months
        result["ledger_table_bytes_per_gpu_month"] = {
            k: v / gpu_months for k, v in table_bytes(db).items() if v > 1 << 20}
        print(f"same figures: {same} ({len(keys)} team/namespace groups, largest difference "
              f"${max_diff:.4f}); total ${report['total']['total_usd']:,.2f}")
        print(f"{args.gpus} GPUs x {args.days} days: ledger {result['ledger_report_s']:.3f} s "
              f"(best {min(ledger_s):.3f}), PromQL on VictoriaMetrics "
              f"{result['promql_report_s']:.3f} s (best {min(vm_s):.3f}): "
              f"ratio {result['ratio_promql_over_ledger']:.1f}x (goal >= 10x); "
              f"with the rollup built by the report itself "
              f"{result['ratio_promql_over_ledger_first_report']:.2f}x")
        print(f"ledger on disk: {size / gpu_months / 1e6:.2f} MB per GPU-month "
              f"({', '.join(f'{k} {v / 1e6:.2f}' for k, v in result['ledger_table_bytes_per_gpu_month'].items())})",
              flush=True)
        for p in procs:
            stop_process(p)
        procs.clear()
        if not args.workdir:
            os.remove(db)
            for s in ("-wal", "-shm"):
                if os.path.exists(db + s):
                    os.remove(db + s)

        if args.big_gpus > 0:
            big = os.path.join(tmp, f"big{args.big_gpus}.db")
            if not os.path.exists(big):
                t, out = timed([gen, "--gpus", str(args.big_gpus), "--days", str(args.days),
                                "--start-s", str(START_S), "--db", big, "--hours-only"])
                print(f"generated (hours only) {out.strip()} in {t:.1f} s", flush=True)
            gf_port = free_port()
            gf = f"http://127.0.0.1:{gf_port}"
            procs.append(subprocess.Popen(
                [gpufleet, "server", "--listen", f"127.0.0.1:{gf_port}", "--db", big,
                 "--config", config],
                stdout=open(os.path.join(tmp, "gf-big.log"), "w"), stderr=subprocess.STDOUT,
                cwd=tmp))
            wait_for("gpufleet server", lambda: http("GET", gf + "/-/ready")[0] == 200, 600)
            cost_url = gf + "/api/v1/cost?" + urllib.parse.urlencode(
                {"from": "2026-11-01T00:00:00Z", "to": to_iso, "by": "team,namespace",
                 "format": "json"})
            big_s = []
            for _ in range(max(1, args.repeat // 2)):
                t, _ = ledger_report()
                big_s.append(t)
            # And as a process (`cost report --db`: open with the integrity check too).
            t, _ = timed(report_cmd(gpufleet, big, site, args.days))
            result["big_report_cli_s"] = t
            result["big_gpus"] = args.big_gpus
            result["big_report_s"] = statistics.median(big_s)
            result["big_ratio_to_10s_goal"] = 10.0 / result["big_report_s"]
            print(f"{args.big_gpus} GPUs x {args.days} days: ledger report "
                  f"{result['big_report_s']:.2f} s (goal < 10 s; "
                  f"{result['big_ratio_to_10s_goal']:.1f}x under it); as a `cost report --db` "
                  f"process {result['big_report_cli_s']:.2f} s")
    finally:
        for p in procs:
            stop_process(p)
        if not args.workdir:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
