#!/usr/bin/env python3
"""E2E: the README's main job. `gpufleet server --simulate default` runs the
simulated mixed fleet on a sped-up clock; within a minute the contention
episode of the default scenario must show up, and `gpufleet incidents list`
(through the API and straight from the database) must list a
memory_contention incident that `incidents show` can display with evidence."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from server_harness import ServerProcess, dump_log, get_json, wait_for  # noqa: E402


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
        except Exception:
            dump_log(log)
            raise
    print("server main job e2e: ok")


if __name__ == "__main__":
    main()
