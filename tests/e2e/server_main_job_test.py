#!/usr/bin/env python3
"""E2E: the README's main job. `gpufleet server --simulate default` runs the
simulated mixed fleet on a sped-up clock; within a minute the contention
episode of the default scenario must show up, and `gpufleet incidents list`
(through the API and straight from the database) must list a
memory_contention incident that `incidents show` can display with evidence."""
import argparse
import csv
import io
import json
import re
import urllib.error
import urllib.request
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from server_harness import ServerProcess, dump_log, get_json, wait_for  # noqa: E402


FOCUS_MANDATORY = [
    "BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "BillingAccountId",
    "BillingAccountName", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd",
    "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "InvoiceIssuerName", "PricingQuantity", "PricingUnit", "ProviderName",
    "PublisherName", "ServiceCategory", "ServiceName"]
FOCUS_NOT_NULL = ["BilledCost", "EffectiveCost", "ListCost", "ContractedCost",
                  "BillingAccountId", "BillingCurrency", "BillingPeriodStart",
                  "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory",
                  "InvoiceIssuerName", "ProviderName", "PublisherName", "ServiceCategory",
                  "ServiceName"]


def check_focus(url, total):
    """FOCUS 1.2 rules a FinOps tool relies on (shared/reference/focus-columns.md)."""
    with urllib.request.urlopen(url, timeout=30) as r:
        rows = list(csv.DictReader(io.StringIO(r.read().decode())))
    assert rows, "no FOCUS rows"
    for col in FOCUS_MANDATORY:
        assert col in rows[0], col
    for col in rows[0]:
        assert col.startswith("x_") or col[0].isupper(), col
    stamp = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
    for row in rows:
        for col in FOCUS_NOT_NULL:
            assert row[col] != "", (col, row)
        for col in ("BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart",
                    "ChargePeriodEnd"):
            assert stamp.match(row[col]), (col, row[col])
        assert row["ChargeCategory"] in ("Usage", "Credit", "Adjustment"), row
        if row["ChargeCategory"] == "Usage":
            assert row["PricingQuantity"] and row["PricingUnit"] == "GPU-Hours", row
            assert row["SkuId"] and row["PricingCategory"], row
        else:
            assert row["PricingQuantity"] == "" and row["PricingUnit"] == "", row
        json.loads(row["Tags"])
    billed = sum(float(r["BilledCost"]) for r in rows)
    # The report's total came a moment earlier; the fleet kept running.
    assert billed >= total - 1e-6, (billed, total)
    return len(rows)


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpufleet_main_job_") as tmp:
        db = os.path.join(tmp, "state.db")
        log = os.path.join(tmp, "server.log")
        try:
            with ServerProcess(args.gpufleet, ["--db", db, "--simulate", "default",
                                               "--speedup", "30"], log) as srv:
                srv.wait_ready()
                # The web console is on the same port (tests/e2e/console_browser_test.mjs
                # drives it in a browser).
                with urllib.request.urlopen(srv.url + "/", timeout=30) as r:
                    page = r.read().decode()
                    assert "script-src 'self'" in r.headers["Content-Security-Policy"], r.headers
                assert "/assets/console-" in page, page[:300]

                def contention():
                    data = get_json(srv.url + "/api/v1/incidents")["data"]
                    return [i for i in data if i["kind"] == "memory_contention"]
                found = wait_for("a memory_contention incident", contention, 90)
                inc = found[0]
                assert inc["team"] == "platform", inc
                assert inc["devices"], inc

                out = subprocess.run([args.gpufleet, "incidents", "list", "--server", srv.url],
                                     capture_output=True, text=True, timeout=30)
                assert out.returncode == 0, out.stderr
                assert "memory_contention" in out.stdout, out.stdout
                print(out.stdout)

                shown = subprocess.run([args.gpufleet, "incidents", "show", str(inc["id"]),
                                        "--server", srv.url], capture_output=True, text=True,
                                       timeout=30)
                assert shown.returncode == 0, shown.stderr
                assert "evidence:" in shown.stdout, shown.stdout

                inv = get_json(srv.url + "/api/v1/inventory")["data"]
                vendors = {d["vendor"] for d in inv["devices"]}
                assert {"nvidia", "amd", "intel"} <= vendors, vendors

                # The console's APIs: the device list, the contention incident
                # with its evidence samples, a series in one unit for all vendors.
                fleet = get_json(srv.url + "/api/v1/fleet")
                assert fleet["counts"]["devices"] == len(fleet["devices"]) > 0, fleet["counts"]
                assert all(fleet["counts"]["by_vendor"][v] > 0 for v in ("nvidia", "amd", "intel"))
                assert any(d["open_incidents"] > 0 for d in fleet["devices"]), "no device flagged"
                assert any(d["memory_bandwidth"] is not None for d in fleet["devices"])
                listed = get_json(srv.url + "/api/v1/incidents?kind=memory_contention&limit=5")
                assert listed["data"] and all(i["kind"] == "memory_contention"
                                              for i in listed["data"]), listed
                detail = get_json(srv.url + f"/api/v1/incidents/{inc['id']}")["data"]
                assert "cost_usd" in detail, sorted(detail)
                drawn = [e for e in detail["evidence"] if e["samples"]["t"]]
                assert drawn, detail["evidence"]
                assert len(drawn[0]["samples"]["t"]) == len(drawn[0]["samples"]["v"])
                power = get_json(srv.url + "/api/v1/series?metric=gpu_power_watts"
                                 "&aggregate=vendor&from=-5m&step=30s")
                assert power["unit"] == "watts" and len(power["series"]) == 3, power["series"]
                print(f"console APIs: {len(fleet['devices'])} devices, incident {inc['id']} "
                      f"evidence with {len(drawn[0]['samples']['t'])} samples, "
                      f"cost_usd {detail['cost_usd']}")

                # The cost ledger: every device priced (the demo's site prices),
                # idle GPUs show as unallocated idle, and once the episode has
                # an estimated slowdown its cost moves from chat-api (product)
                # to the neighbour that moved in (embed-backfill, search).
                def cost():
                    r = get_json(srv.url + "/api/v1/cost?by=team,workload&from=-1d&to=now")
                    rows = {tuple(x["group"].values()): x for x in r["rows"]}
                    victim = rows.get(("product", "chat-api-7f9c6d"), {})
                    return r if victim.get("contention_usd", 0) < 0 else None
                report = wait_for("a contention charge in the cost ledger", cost, 90)
                assert not report["partial"], report["warnings"]
                rows = {tuple(x["group"].values()): x for x in report["rows"]}
                assert rows[("search", "embed-backfill-9q7")]["contention_usd"] > 0, rows
                assert rows[("(unallocated)", "(unallocated)")]["idle_usd"] > 0, rows
                total = report["total"]["total_usd"]
                assert abs(sum(x["total_usd"] for x in report["rows"]) - total) < 1e-6, report
                assert abs(report["total"]["contention_usd"]) < 1e-9, report
                print("cost ledger: total $%.2f over %d device-minutes"
                      % (total, report["device_minutes"]))

                # OpenCost's /allocation shape, and the FOCUS export.
                alloc = get_json(srv.url + "/allocation?window=1d&aggregate=namespace"
                                 "&includeIdle=true")
                assert alloc["code"] == 200 and alloc["status"] == "success", alloc
                sets = alloc["data"][0]
                assert {"serving", "research", "__idle__"} <= set(sets), sorted(sets)
                for name, a in sets.items():
                    for key in ("gpuHours", "gpuCost", "gpuCostAdjustment", "gpuEfficiency",
                                "totalCost", "window", "properties", "minutes"):
                        assert key in a, (name, key)
                budgets = get_json(srv.url + "/api/v1/cost/budgets")["budgets"]
                assert {b["team"] for b in budgets} == {"research", "product", "search"}, budgets
                for b in budgets:
                    assert b["state"] in ("ok", "forecast_over", "over"), b
                    assert b["forecast_usd"] >= b["spent_usd"] > 0, b
                print("budgets: " + "; ".join(b["summary"] for b in budgets))
                with urllib.request.urlopen(srv.url + "/metrics", timeout=30) as r:
                    metrics = r.read().decode()
                effective = [l for l in metrics.splitlines()
                             if l.startswith("gpufleet_cost_usd_per_effective_pflop_hour{")]
                assert any('cloud="aws"' in l for l in effective), effective
                assert "gpufleet_cost_device_usd_per_hour{" in metrics
                focus = check_focus(srv.url + "/api/v1/cost?from=-1d&format=focus", total)
                print("FOCUS export: %d rows" % focus)

                # Per job: the simulated workloads report steps, so the JSON
                # has $/step; the periodic cost check publishes them on
                # /metrics; a team's month reads as sentences.
                jobs = get_json(srv.url + "/api/v1/cost?by=workload&from=-1d")["jobs"]
                stepping = [j for j in jobs if j["usd_per_step"] is not None]
                assert stepping, jobs
                for j in stepping:
                    assert j["steps"] > 0 and j["cost_usd"] > 0, j
                    assert abs(j["usd_per_step"] - j["cost_usd"] / j["steps"]) < 1e-9, j
                    assert j["network_usd"] == 0, j  # the demo declares no transfers
                print("jobs: " + "; ".join("%s $%.4f/step" % (j["workload"], j["usd_per_step"])
                                           for j in stepping[:3]))

                def job_metrics():
                    with urllib.request.urlopen(srv.url + "/metrics", timeout=30) as r:
                        text = r.read().decode()
                    return text if "gpu_workload_cost_usd_per_step{" in text else None
                wait_for("job costs on /metrics", job_metrics, 90)
                summary = get_json(srv.url + "/api/v1/cost/summary?team=product")
                assert summary["team"] == "product" and summary["sentences"], summary
                assert summary["sentences"][0].startswith("product spent $"), summary
                print("summary: " + " ".join(summary["sentences"]))
                for bad in ("month=2026-13&team=product", "format=xml&team=product", "month=x"):
                    code = http_status(srv.url + "/api/v1/cost/summary?" + bad)
                    assert code == 400, (bad, code)

                # Bad parameters get a 400 naming them, never a crash.
                for bad in ("from=yesterday-ish", "to=-1d&from=now", "from=-500d",
                            "by=galaxy", "basis=vibes", "format=xml"):
                    code = http_status(srv.url + "/api/v1/cost?" + bad)
                    assert code == 400, (bad, code)
                for bad in ("window=fortnight", "aggregate=galaxy", "includeIdle=maybe"):
                    code = http_status(srv.url + "/allocation?" + bad)
                    assert code == 400, (bad, code)

            # The database alone answers too, after the server stopped.
            out = subprocess.run([args.gpufleet, "incidents", "list", "--db", db, "--json"],
                                 capture_output=True, text=True, timeout=30)
            assert out.returncode == 0, out.stderr
            kinds = {i["kind"] for i in json.loads(out.stdout)}
            assert "memory_contention" in kinds, kinds
            # The simulated clock runs ahead of the real one: ask for all time.
            out = subprocess.run([args.gpufleet, "cost", "report", "--db", db, "--from", "0",
                                  "--to", "4102444800", "--by", "cloud", "--prices",
                                  os.path.join(SOURCE_DIR, "data", "prices", "demo.toml")],
                                 capture_output=True, text=True, timeout=30)
            assert out.returncode == 0, out.stderr
            for cloud in ("aws", "azure", "onprem"):
                assert cloud in out.stdout, out.stdout
            assert "PARTIAL" not in out.stdout, out.stdout
            print(out.stdout)
            out = subprocess.run([args.gpufleet, "cost", "summary", "--db", db, "--team",
                                  "product", "--month", summary["month"], "--at", "4102444800",
                                  "--prices",
                                  os.path.join(SOURCE_DIR, "data", "prices", "demo.toml")],
                                 capture_output=True, text=True, timeout=30)
            assert out.returncode == 0, out.stderr
            assert out.stdout.startswith("product spent $"), out.stdout
        except Exception:
            dump_log(log)
            raise
    print("server main job e2e: ok")


if __name__ == "__main__":
    main()
