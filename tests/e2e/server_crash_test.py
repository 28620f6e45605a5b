#!/usr/bin/env python3
"""E2E crash safety: kill -9 the server under load, restart, and check that
nothing it acknowledged is lost and the database is intact.

1. `gpufleet server --simulate default --db tmp.db` (sped-up simulated fleet)
   while this test also pushes remote-write batches as fast as it can.
2. Wait for incidents (API) and learned baselines (database), record them.
3. SIGKILL the server in the middle of the load.
4. `PRAGMA integrity_check` must say ok; restart the server on the same
   database; every recorded incident must be there unchanged in identity
   (id, key, kind, first_seen) and every recorded baseline must still exist
   with at least the recorded sample count.
"""
import argparse
import os
import sqlite3
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_harness import (ServerProcess, dump_log, get_json, http,  # noqa: E402
                            remote_write_body, wait_for)


def pusher(url, stop, counts):
    n = 0
    while not stop.is_set():
        now_ms = int(time.time() * 1000)
        series = [({"__name__": "crash_test_load", "shard": str(i), "batch": "x"},
                   [(now_ms, float(n))]) for i in range(50)]
        try:
            status, _ = http("POST", url + "/api/v1/write", remote_write_body(series),
                             {"Content-Type": "application/x-protobuf",
                              "Content-Encoding": "snappy"}, timeout=5)
            counts[status] = counts.get(status, 0) + 1
        except OSError:
            counts["error"] = counts.get("error", 0) + 1
        n += 1


def baselines(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return {(k, m): c for k, m, c in
                con.execute("SELECT key, metric, count FROM detect_baselines")}
    except sqlite3.OperationalError:  # table not created yet
        return {}
    finally:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpufleet_crash_") as tmp:
        db = os.path.join(tmp, "state.db")
        log = os.path.join(tmp, "server.log")
        # The load comes from one address; the per-client rate limit would
        # (rightly) answer it with 429s.
        config = os.path.join(tmp, "server.toml")
        with open(config, "w") as f:
            f.write("[limits]\nrequests_per_second = 0\n")
        try:
            srv = ServerProcess(args.gpufleet, ["--config", config, "--db", db, "--simulate",
                                                "default", "--speedup", "60"], log)
            stop = threading.Event()
            counts = {}
            threads = []
            try:
                srv.wait_ready()
                threads = [threading.Thread(target=pusher, args=(srv.url, stop, counts))
                           for _ in range(3)]
                for t in threads:
                    t.start()
                wait_for("incidents", lambda: get_json(srv.url + "/api/v1/incidents")["data"],
                         90)
                wait_for("learned baselines in the database", lambda: baselines(db), 90)
                # Record what the server acknowledged, then crash it mid-load.
                acked = {i["id"]: i for i in get_json(srv.url + "/api/v1/incidents")["data"]}
                learned = baselines(db)
                time.sleep(0.5)
                srv.kill9()
            finally:
                stop.set()
                for t in threads:
                    t.join()
                srv.stop()
            assert counts.get(204, 0) > 0, f"load was not accepted: {counts}"
            print(f"acknowledged {len(acked)} incidents, {len(learned)} baselines; "
                  f"load answers {counts}")

            con = sqlite3.connect(db)
            check = con.execute("PRAGMA integrity_check").fetchone()[0]
            con.close()
            assert check == "ok", f"integrity_check: {check}"

            with ServerProcess(args.gpufleet, ["--db", db], log) as again:
                again.wait_ready()
                for iid, before in acked.items():
                    after = get_json(f"{again.url}/api/v1/incidents/{iid}")["data"]
                    for field in ("key", "kind", "first_seen_ns", "team"):
                        assert after[field] == before[field], (field, before, after)
            now = baselines(db)
            for key, count in learned.items():
                assert key in now, f"baseline {key} lost"
                assert now[key] >= count, f"baseline {key}: {now[key]} < {count}"
        except Exception:
            dump_log(log)
            raise
    print("server crash e2e: ok")


if __name__ == "__main__":
    main()
