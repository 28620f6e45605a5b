#!/usr/bin/env python3
"""E2E: agents and server together, both ways the README describes.
One `gpufleet agent --source sim` is scraped by the server ([scrape] targets
in a config file), another pushes to it with --remote-write. The server must
count successful scrapes and remote-write requests, hold the agents' series
in its window store, and list the simulated fleet's devices of all three
vendors in its inventory."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import (ServerProcess, dump_log, free_port, get_json, http,  # noqa: E402
                            stop_process, wait_for)


def metric(text, name):
    m = re.search(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpufleet_agent_server_") as tmp:
        agent_port = free_port()
        agent_url = f"http://127.0.0.1:{agent_port}/metrics"
        config = os.path.join(tmp, "server.toml")
        with open(config, "w") as f:
            f.write(f'[scrape]\ntargets = ["{agent_url}"]\ninterval = "1s"\n')
        log = os.path.join(tmp, "server.log")
        agents = []
        try:
            with ServerProcess(args.gpufleet, ["--config", config,
                                               "--db", os.path.join(tmp, "state.db")],
                               log) as srv:
                srv.wait_ready()
                agent_log = open(os.path.join(tmp, "agents.log"), "ab")
                agents.append(subprocess.Popen(
                    [args.gpufleet, "agent", "--source", "sim", "--listen",
                     f"127.0.0.1:{agent_port}"], stdout=agent_log, stderr=subprocess.STDOUT))
                agents.append(subprocess.Popen(
                    [args.gpufleet, "agent", "--source", "sim", "--listen",
                     f"127.0.0.1:{free_port()}", "--remote-write", srv.url + "/api/v1/write",
                     "--remote-write-queue", os.path.join(tmp, "rwq")],
                    stdout=agent_log, stderr=subprocess.STDOUT))

                def both_paths():
                    text = http("GET", srv.url + "/metrics")[1]
                    scrapes = metric(text, "gpufleet_server_scrapes_total")
                    failures = metric(text, "gpufleet_server_scrape_failures_total")
                    writes = metric(text, "gpufleet_server_write_requests_total")
                    ok = scrapes - failures >= 2 and writes >= 2
                    return (text, scrapes, failures, writes) if ok else None
                text, scrapes, failures, writes = wait_for(
                    "two good scrapes and two remote writes", both_paths, 60)
                assert metric(text, "gpufleet_server_write_requests_rejected_total") == 0, text
                assert metric(text, "gpufleet_server_samples_ingested_total") > 0, text
                assert metric(text, "gpufleet_server_window_series") > 0, text

                def devices():
                    inv = get_json(srv.url + "/api/v1/inventory")["data"]
                    vendors = {d["vendor"] for d in inv["devices"]}
                    return vendors if {"nvidia", "amd", "intel"} <= vendors else None
                wait_for("devices of all three vendors in the inventory", devices, 30)
                print(f"scrapes {scrapes:.0f} (failures {failures:.0f}), "
                      f"remote-write requests {writes:.0f}")
        except Exception:
            dump_log(log)
            raise
        finally:
            for a in agents:
                stop_process(a)
    print("agent + server e2e: ok")


if __name__ == "__main__":
    main()
