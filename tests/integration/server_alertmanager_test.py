#!/usr/bin/env python3
"""Integration: a real Alertmanager (Debian prometheus-alertmanager) receives
the server's alerts through its v2 API.

Runs `gpufleet server --simulate default` with a config that points at an
Alertmanager on a free loopback port (clustering off, temp storage). The
default scenario's memory-contention episode must arrive as an active alert
routed to team "platform" (checked with GET /api/v2/alerts), and when the
episode ends the server's resolve (endsAt) must make it inactive. A canary
regression posted to POST /api/v1/canary must arrive as an alert too, stay
active past detect.resolve_after, and end when a canary push passes. Both
processes are always stopped.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import re
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from server_harness import ServerProcess, dump_log, free_port, get_json, http, wait_for  # noqa

DEMO_PRICES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                           "prices", "demo.toml")


def contention_alerts(am):
    return [a for a in get_json(am + "/api/v2/alerts")
            if a["labels"].get("kind") == "memory_contention"]


def canary_alerts(am):
    return [a for a in get_json(am + "/api/v2/alerts")
            if a["labels"].get("kind") == "canary_regression"]


def budget_alerts(am):
    return [a for a in get_json(am + "/api/v2/alerts")
            if a["labels"].get("kind") == "budget_forecast_over"]


def push_canary(url, verdict):
    body = {"node": "gpu-node-17",
            "checks": [{"target": "model=h200-sxm", "benchmark": "gemm.bf16@8192",
                        "unit": "flop_per_second", "verdict": verdict, "median": 6.4e14,
                        "baseline_median": 7.1e14, "worse_fraction": 0.099}]}
    status, text = http("POST", url + "/api/v1/canary", json.dumps(body).encode(),
                        {"Content-Type": "application/json"})
    assert status == 200, (status, text)
    return json.loads(text)["data"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--alertmanager", default=shutil.which("prometheus-alertmanager"))
    args = ap.parse_args()
    if not args.alertmanager:
        print("prometheus-alertmanager not installed", file=sys.stderr)
        sys.exit(1)
    with tempfile.TemporaryDirectory(prefix="gpufleet_am_") as tmp:
        am_port = free_port()
        am = f"http://127.0.0.1:{am_port}"
        with open(os.path.join(tmp, "am.yml"), "w") as f:
            f.write("route:\n  receiver: default\n  group_wait: 1s\nreceivers:\n- name: default\n")
        # The demo's site prices with budgets the sped-up fleet overspends
        # within seconds: "over" by spend does not depend on the calendar
        # (a forecast does: the demo's own budgets sit near the month's
        # forecast early in a month and under it late in one).
        prices = os.path.join(tmp, "prices.toml")
        with open(DEMO_PRICES) as f:
            text = f.read()
        small = {"research": 2, "product": 1, "search": 0.25}
        for team, usd in small.items():
            text, n = re.subn(r'(team = "%s"\nusd_per_month = )[0-9.]+' % team,
                              r"\g<1>%s" % usd, text)
            assert n == 1, f"no [[budget]] for {team} in {DEMO_PRICES}"
        with open(prices, "w") as f:
            f.write(text)
        with open(os.path.join(tmp, "server.toml"), "w") as f:
            f.write(f'[alerts]\nalertmanager = ["{am}"]\nresend = "1m"\n'
                    '[detect]\nresolve_after = "1m"\n'
                    f'[cost]\nprices = "{prices}"\n')
        am_log = open(os.path.join(tmp, "am.log"), "wb")
        am_proc = subprocess.Popen(
            [args.alertmanager, f"--config.file={tmp}/am.yml", f"--storage.path={tmp}/am",
             f"--web.listen-address=127.0.0.1:{am_port}", "--cluster.listen-address="],
            stdout=am_log, stderr=subprocess.STDOUT)
        log = os.path.join(tmp, "server.log")
        try:
            wait_for("alertmanager readiness", lambda: http("GET", am + "/-/ready")[0] == 200, 30)
            with ServerProcess(args.gpufleet,
                               ["--config", os.path.join(tmp, "server.toml"),
                                "--db", os.path.join(tmp, "state.db"),
                                "--simulate", "default", "--speedup", "30"], log) as srv:
                srv.wait_ready()
                alerts = wait_for("a memory_contention alert in Alertmanager",
                                  lambda: contention_alerts(am), 120)
                a = alerts[0]
                assert a["labels"]["team"] == "platform", a
                assert a["labels"]["alertname"] == "GpuFleetMemoryContention", a
                assert a["labels"].get("severity") in ("warning", "critical"), a
                assert a["annotations"].get("summary"), a
                assert a["status"]["state"] == "active", a
                incident_id = a["labels"]["incident_id"]
                # The episode lasts 300 s of scenario time (10 s at 30x); the
                # incident resolves a minute (2 s) later and the alert ends.
                wait_for("the alert to resolve", lambda: not contention_alerts(am), 120)
                inc = get_json(f"{srv.url}/api/v1/incidents/{incident_id}")["data"]
                assert inc["status"] == "resolved", inc
                metrics = http("GET", srv.url + "/metrics")[1]
                assert "gpufleet_server_alerts_sent_total" in metrics

                # A canary regression alerts; it does not resolve by age (the
                # 2 s resolve_after passes many times) but on a passing run.
                data = push_canary(srv.url, "regression")
                assert data["created"] == 1, data
                canary_id = data["incidents"][0]
                alerts = wait_for("a canary_regression alert in Alertmanager",
                                  lambda: canary_alerts(am), 60)
                a = alerts[0]
                assert a["labels"]["alertname"] == "GpuFleetCanaryRegression", a
                assert a["labels"]["benchmark"] == "gemm.bf16@8192", a
                assert a["labels"]["incident_id"] == str(canary_id), a
                assert a["status"]["state"] == "active", a
                assert push_canary(srv.url, "regression")["created"] == 0
                http("POST", srv.url + "/api/v1/admin/detect")
                time.sleep(3)  # > resolve_after in real time at 30x
                http("POST", srv.url + "/api/v1/admin/detect")
                inc = get_json(f"{srv.url}/api/v1/incidents/{canary_id}")["data"]
                assert inc["status"] == "open", inc
                assert canary_alerts(am), "the canary alert ended without a pass"
                data = push_canary(srv.url, "pass")
                assert data["resolved"] == [canary_id], data
                wait_for("the canary alert to resolve", lambda: not canary_alerts(am), 60)

                # Every team has spent more than its (tiny) budget by now or soon
                # (GET /api/v1/cost/budgets says so), so the budget check alerts
                # each team once, and the incidents stay open through the
                # detectors' staleness sweeps.
                over = set(small)
                wait_for("every team over its budget",
                         lambda: {b["team"] for b in get_json(srv.url + "/api/v1/cost/budgets")
                                  ["budgets"] if b["state"] == "over"} >= over, 60)
                alerts = wait_for("budget alerts for " + ", ".join(sorted(over)),
                                  lambda: (lambda a: a if {x["labels"]["team"] for x in a}
                                           >= over else None)(budget_alerts(am)), 120)
                for a in alerts:
                    assert a["labels"]["alertname"] == "GpuFleetBudgetForecastOver", a
                    assert a["labels"]["month"], a
                    assert a["labels"]["team"] in over, a
                    inc = get_json(f"{srv.url}/api/v1/incidents/{a['labels']['incident_id']}")
                    assert inc["data"]["status"] == "open", inc
                    assert inc["data"]["kind"] == "budget_forecast_over", inc
        except Exception:
            dump_log(log)
            dump_log(os.path.join(tmp, "am.log"))
            raise
        finally:
            am_proc.terminate()
            try:
                am_proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                am_proc.kill()
                am_proc.wait()
            am_log.close()
    print("server alertmanager integration: ok")


if __name__ == "__main__":
    main()
