#!/usr/bin/env python3
"""Integration test: every query of `gpufleet dashboards export` returns data from a real
Prometheus and a real VictoriaMetrics fed by a gpufleet agent on the simulated fleet.

Two stacks, each fed the way an operator would feed it:
  agent (sim) --remote write--> gpufleet server --forward (remote write)--> VictoriaMetrics
  Prometheus  scrapes the agent and the server's /metrics, evaluates `gpufleet rules export`
  VictoriaMetrics scrapes the server's /metrics (cost, incident series); vmalert evaluates the
  same exported rules against it and writes their ALERTS series back.
The scenario is data/scenarios/default.toml with every start_s set to 0 (derived here, so
the contention episode, the ECC trickle, throttling and the lost GPU are all live at once).

Each panel target, annotation query and template variable query runs twice through both query APIs:
with every variable on All (".*") and with the values of the contended device (its vendor,
cloud, model, node, team, pod and uuid). A panel in ratio units (percentunit) must answer values
in 0-1: a vendor left in percent or MiB would show there. Grafana's $__rate_interval / $__range / $__interval are
replaced by fixed windows. A target must answer "success" with at least one series. The
panels whose data cannot exist in this setup are listed in NO_DATA with the reason; one of
them answering with data is reported too (the list must stay true). Every process is
always stopped.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from server_harness import free_port, wait_for  # noqa: E402

# (dashboard uid, panel title) -> why no data can exist in this test.
NO_DATA = {
    ("gpufleet-contention", "Memory stalls"):
        "the simulated fleet emits no gpu_memory_stall_ratio (no stall counters in "
        "data/scenarios; real NVIDIA DCGM profiling and AMD rocprofiler report it)",
}
BUILTINS = {"$__rate_interval": "20s", "$__range": "1m", "$__interval": "5s"}
WINDOW_S = 60


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def api(base, path, params):
    """GET a Prometheus-API endpoint; returns (ok, data or error text)."""
    url = f"{base}{path}?" + urllib.parse.urlencode(params, doseq=True)
    try:
        body = json.loads(get(url))
    except urllib.error.HTTPError as e:
        return False, f"HTTP {e.code}: {e.read().decode()[:300]}"
    except Exception as e:  # connection trouble is a failure too
        return False, str(e)
    if body.get("status") != "success":
        return False, json.dumps(body)[:300]
    return True, body["data"]


def regex_escape(value):
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", value)


def substitute(expr, values):
    for k, v in BUILTINS.items():
        expr = expr.replace(k, v)
    # Longest names first, so $node does not eat a prefix of a longer name.
    for name in sorted(values, key=len, reverse=True):
        expr = expr.replace("${" + name + "}", values[name]).replace("$" + name, values[name])
    return expr


def derived_scenario(source_dir, path):
    text = open(os.path.join(source_dir, "data/scenarios/default.toml")).read()
    text = re.sub(r"(?m)^start_s = \d+", "start_s = 0", text)
    with open(path, "w") as f:
        f.write("# DERIVED by tests/integration/dashboards_query_test.py from "
                "data/scenarios/default.toml: every start_s set to 0.\n" + text)


def start(cmd, log, procs):
    p = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    procs.append((p, log))
    return p


def run_target(base, expr, instant):
    now = time.time()
    if instant:
        ok, data = api(base, "/api/v1/query", {"query": expr, "time": f"{now:.3f}"})
        if ok and not data.get("result"):
            return False, "empty result"
        return ok, data
    ok, data = api(base, "/api/v1/query_range",
                   {"query": expr, "start": f"{now - WINDOW_S:.3f}", "end": f"{now:.3f}",
                    "step": "5"})
    if ok and not any(s.get("values") for s in data.get("result", [])):
        return False, "empty result"
    return ok, data


# rate() of a seconds counter (time throttled) divides the counter's advance, taken at the
# agent's collection times, by the span of Prometheus' scrape times: the two are out of phase,
# so a device throttled the whole window reads up to a few percent over 1 (the same effect
# tests/integration/prometheus_scrape_test.py explains for energy). Gauge ratios get no slack.
RATE_SLACK = 0.05


def out_of_unit_range(data, expr):
    """A value of a ratio panel outside 0-1 (units mixed up across vendors), or None."""
    top = 1 + (RATE_SLACK if "rate(" in expr else 1e-9)
    for series in data.get("result", []):
        points = series.get("values") or ([series["value"]] if "value" in series else [])
        for _, v in points:
            if not -1e-9 <= float(v) <= top:
                return f"{v} ({series.get('metric')})"
    return None


def variable_query(base, definition, values):
    m = re.fullmatch(r"label_values\((.*), *([a-zA-Z_]+)\)", definition)
    if not m:
        return False, f"not label_values(series, label): {definition}"
    series, label = substitute(m.group(1), values), m.group(2)
    now = time.time()
    ok, data = api(base, f"/api/v1/label/{label}/values",
                   {"match[]": series, "start": f"{now - WINDOW_S:.3f}", "end": f"{now:.3f}"})
    if ok and not data:
        return False, "no values"
    return ok, data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--prometheus", default=shutil.which("prometheus") or "/usr/bin/prometheus")
    ap.add_argument("--victoria-metrics",
                    default=shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics")
    ap.add_argument("--vmalert", default=shutil.which("vmalert") or "/usr/bin/vmalert")
    args = ap.parse_args()
    for binary in (args.prometheus, args.victoria_metrics, args.vmalert):
        if not os.path.exists(binary):
            print(f"{binary} not installed (scripts/setup.sh installs it)", file=sys.stderr)
            return 1

    tmp = tempfile.mkdtemp(prefix="gpufleet-dash-")
    procs = []
    failures = []
    try:
        dash_dir = os.path.join(tmp, "dashboards")
        subprocess.run([args.gpufleet, "dashboards", "export", "-o", dash_dir], check=True,
                       stdout=subprocess.DEVNULL)
        rules = os.path.join(tmp, "rules.yml")
        subprocess.run([args.gpufleet, "rules", "export", "-o", rules], check=True)
        scenario = os.path.join(tmp, "scenario.toml")
        derived_scenario(args.source_dir, scenario)

        p_vm, p_vma, p_prom, p_srv, p_agent = (free_port() for _ in range(5))
        vm = f"http://127.0.0.1:{p_vm}"
        prom = f"http://127.0.0.1:{p_prom}"
        server = f"127.0.0.1:{p_srv}"
        agent = f"127.0.0.1:{p_agent}"

        with open(os.path.join(tmp, "vmscrape.yml"), "w") as f:
            f.write(f"global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: server\n"
                    f"    static_configs:\n      - targets: ['{server}']\n")
        start([args.victoria_metrics, f"-httpListenAddr=127.0.0.1:{p_vm}",
               f"-storageDataPath={tmp}/vmdata", "-retentionPeriod=100y",
               "-search.latencyOffset=0s", "-search.disableCache",
               f"-promscrape.config={tmp}/vmscrape.yml"], os.path.join(tmp, "vm.log"), procs)
        wait_for("victoria-metrics ready", lambda: get(f"{vm}/health").strip() == "OK", 60)
        # vmalert needs a notifier; nothing listens there (delivery errors are logged only).
        start([args.vmalert, f"-rule={rules}", f"-datasource.url={vm}",
               f"-remoteWrite.url={vm}", f"-notifier.url=http://127.0.0.1:{free_port()}",
               f"-httpListenAddr=127.0.0.1:{p_vma}", "-evaluationInterval=2s"],
              os.path.join(tmp, "vmalert.log"), procs)

        with open(os.path.join(tmp, "server.toml"), "w") as f:
            f.write(f'[forward]\nurl = "{vm}/api/v1/write"\nqueue_dir = "{tmp}/fwdq"\n')
        start([args.gpufleet, "server", "--config", os.path.join(tmp, "server.toml"),
               "--listen", server, "--db", os.path.join(tmp, "state.db")],
              os.path.join(tmp, "server.log"), procs)
        wait_for("server /metrics", lambda: "gpufleet_server" in get(f"http://{server}/metrics"),
                 30)
        agent_started = time.time()
        start([args.gpufleet, "agent", "--source", "sim", "--scenario", scenario,
               "--interval", "1", "--listen", agent,
               "--remote-write", f"http://{server}/api/v1/write",
               "--remote-write-queue", os.path.join(tmp, "agentq")],
              os.path.join(tmp, "agent.log"), procs)

        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write(f"global:\n  scrape_interval: 1s\n  evaluation_interval: 2s\n"
                    f"rule_files: ['{rules}']\nscrape_configs:\n"
                    f"  - job_name: agent\n    static_configs:\n      - targets: ['{agent}']\n"
                    f"  - job_name: server\n    static_configs:\n      - targets: ['{server}']\n")
        start([args.prometheus, f"--config.file={tmp}/prometheus.yml",
               f"--storage.tsdb.path={tmp}/promdata", f"--web.listen-address=127.0.0.1:{p_prom}"],
              os.path.join(tmp, "prometheus.log"), procs)
        wait_for("prometheus ready", lambda: "Ready" in get(f"{prom}/-/ready"), 60)

        engines = {"prometheus": prom, "victoriametrics": vm}
        for name, base in engines.items():
            def three_vendors(base=base):
                ok, d = api(base, "/api/v1/query", {"query": "count by (vendor) (gpu_up)"})
                return ok and len(d["result"]) == 3
            wait_for(f"{name}: three vendors", three_vendors, 60)
            for what in ("gpufleet_cost_device_usd_per_hour", "ALERTS"):
                wait_for(f"{name}: {what}",
                         lambda base=base, what=what:
                         api(base, "/api/v1/query", {"query": what})[1]["result"], 60)
        # Rates and increases over the substituted windows ($__rate_interval 20s) need
        # that much history in both stores.
        time.sleep(max(0.0, agent_started + 25 - time.time()))

        # The contended device's labels: the second pass's variable values.
        ok, hot = api(prom, "/api/v1/query",
                      {"query": "gpu_memory_bandwidth_utilization_ratio > 0.85 and on (gpu_uuid)"
                                " gpu_sm_occupancy_ratio < 0.5"})
        if not ok or not hot["result"]:
            failures.append(f"no device in the contention corner: {hot}")
            hot = {"result": [{"metric": {}}]}
        labels = hot["result"][0]["metric"]
        uuid = labels.get("gpu_uuid", "")
        ok, steps = api(prom, "/api/v1/query",
                        {"query": f'gpu_workload_step_duration_seconds{{gpu_uuid="{uuid}"}}'})
        step = steps["result"][0]["metric"] if ok and steps["result"] else {}
        concrete = {k: regex_escape(labels.get(k, "")) for k in ("vendor", "cloud", "model", "node")}
        concrete["team"] = regex_escape(step.get("workload_team", ""))
        concrete["pod"] = regex_escape(step.get("workload_pod", ""))
        concrete["gpu"] = regex_escape(uuid)
        print(f"contended device: {uuid} {concrete}")
        passes = {"all": {k: ".*" for k in concrete}, "device": concrete}

        queries = 0
        unexpected_data = []
        for fname in sorted(os.listdir(dash_dir)):
            d = json.load(open(os.path.join(dash_dir, fname)))
            uid = d["uid"]
            for pass_name, values in passes.items():
                vals = dict(values, datasource="unused")
                for v in d["templating"]["list"]:
                    if v["type"] != "query":
                        continue
                    for ename, base in engines.items():
                        ok, res = variable_query(base, v["definition"], vals)
                        queries += 1
                        if not ok:
                            failures.append(f"{uid} variable ${v['name']} [{pass_name}, {ename}]:"
                                            f" {res}")
                for a in d["annotations"]["list"]:
                    if "expr" not in a:
                        continue  # Grafana's built-in annotations
                    for ename, base in engines.items():
                        ok, res = run_target(base, substitute(a["expr"], vals), False)
                        queries += 1
                        if not ok:
                            failures.append(f"{uid} annotation {a['name']} [{pass_name}, "
                                            f"{ename}]: {res}")
                for p in d["panels"]:
                    if p["type"] == "row":
                        continue
                    excused = NO_DATA.get((uid, p["title"]))
                    unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
                    got_any = False
                    for t in p["targets"]:
                        expr = substitute(t["expr"], vals)
                        for ename, base in engines.items():
                            ok, res = run_target(base, expr, t.get("instant", False))
                            queries += 1
                            if ok:
                                got_any = True
                                if unit == "percentunit":
                                    bad = out_of_unit_range(res, expr)
                                    if bad:
                                        failures.append(
                                            f"{uid} / {p['title']} / {t['refId']} [{pass_name}, "
                                            f"{ename}]: ratio panel has {bad} outside 0-1\n"
                                            f"    {expr}")
                            elif not (excused and res == "empty result"):
                                failures.append(f"{uid} / {p['title']} / {t['refId']} "
                                                f"[{pass_name}, {ename}]: {res}\n    {expr}")
                    if excused and got_any:
                        unexpected_data.append(f"{uid} / {p['title']}")

        # The server names the dashboards read exist on a running server's /metrics.
        names = set()
        for fname in os.listdir(dash_dir):
            names |= set(re.findall(r"gpufleet_(?:server|cost)_[a-z_]+",
                                    open(os.path.join(dash_dir, fname)).read()))
        served = get(f"http://{server}/metrics")
        for n in sorted(names):
            if not re.search(rf"(?m)^{n}[{{ ]", served):
                failures.append(f"{n} is read by a dashboard but not on the server's /metrics")

        for (uid, title), why in NO_DATA.items():
            print(f"no data expected: {uid} / {title}: {why}")
        for u in unexpected_data:
            failures.append(f"{u} is listed in NO_DATA but answered with data: update the list")
        print(f"{queries} queries over {len(os.listdir(dash_dir))} dashboards, "
              f"{len(failures)} failures")
        for f in failures:
            print(f"FAIL: {f}", file=sys.stderr)
        return 0 if not failures else 1
    finally:
        for p, _ in procs:
            p.terminate()
        for p, _ in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if failures or os.environ.get("GPUFLEET_TEST_VERBOSE"):
            for _, log in procs:
                if os.path.exists(log):
                    print(f"--- {os.path.basename(log)}\n{open(log).read()[-1500:]}",
                          file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
