#!/usr/bin/env python3
"""Integration test: serving engines' token counters reach the cost ledger through a real
Prometheus (issue 14: $/million tokens where serving metrics exist).

Two fake serving pods on loopback publish the token counters of the engines' documented
/metrics (docs.vllm.ai and docs.sglang.io "Production Metrics"; the values are generated
here, the names and labels are the engines'):
  - chat-0, vLLM with two data-parallel engines (label engine="0"/"1"): each scrape n
    makes the four counters 1013 + 10n, 509 + 4n (engine 0 prompt / generation) and
    211 + 6n, 103 + 2n (engine 1), so the pod's tokens are 1836 + 22n;
  - sgl-0, SGLang with tensor-parallel ranks tp_rank="0"/"1" reporting the same tokens:
    301 + 7n and 53 + 3n on each rank, so the pod's tokens are 354 + 10n (summing the
    ranks would give 708 + 20n, which ends in 8, never in 4).
A real Prometheus scrapes them every second (the pod name as the `pod` target label, as
Kubernetes service discovery relabels it), evaluates `gpufleet rules export --serving`
(checked by promtool) every second and remote-writes gpu_workload_tokens_total to
`gpufleet server`. Checked: the recorded values follow the formulas above; after the pods
stop (Prometheus then writes staleness markers), the tokens the server's work meter counted
per pod equal the increase of the recorded series as Prometheus holds it. Every process is
always stopped."""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "e2e"))
from server_harness import ServerProcess, dump_log, free_port, stop_process, wait_for  # noqa: E402

RUN_S = 20


class FakeEngines(BaseHTTPRequestHandler):
    scrapes = {"/chat": 0, "/sgl": 0}
    lock = threading.Lock()

    def do_GET(self):  # noqa: N802 (http.server's name)
        with self.lock:
            if self.path not in self.scrapes:
                self.send_error(404)
                return
            self.scrapes[self.path] += 1
            n = self.scrapes[self.path]
        if self.path == "/chat":
            model = 'model_name="meta-llama/Llama-3.1-8B-Instruct"'
            body = ("# TYPE vllm:prompt_tokens_total counter\n"
                    f'vllm:prompt_tokens_total{{engine="0",{model}}} {1013 + 10 * n}\n'
                    f'vllm:prompt_tokens_total{{engine="1",{model}}} {211 + 6 * n}\n'
                    "# TYPE vllm:generation_tokens_total counter\n"
                    f'vllm:generation_tokens_total{{engine="0",{model}}} {509 + 4 * n}\n'
                    f'vllm:generation_tokens_total{{engine="1",{model}}} {103 + 2 * n}\n'
                    "# TYPE vllm:num_requests_running gauge\n"
                    f'vllm:num_requests_running{{engine="0",{model}}} 3\n')
        else:
            body = "# TYPE sglang:prompt_tokens_total counter\n"
            for rank in ("0", "1"):
                body += (f'sglang:prompt_tokens_total{{model_name="qwen",tp_rank="{rank}"}} '
                         f"{301 + 7 * n}\n")
            body += "# TYPE sglang:generation_tokens_total counter\n"
            for rank in ("0", "1"):
                body += (f'sglang:generation_tokens_total{{model_name="qwen",tp_rank="{rank}"}} '
                         f"{53 + 3 * n}\n")
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def query(base, expr):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        doc = json.loads(r.read().decode())
    assert doc["status"] == "success", doc
    return doc["data"]["result"]


def metered_tokens(db, pod):
    con = sqlite3.connect(db, timeout=10)
    try:
        row = con.execute("SELECT SUM(tokens) FROM cost_work_minutes WHERE workload = ?",
                          (pod,)).fetchone()
        return row[0] or 0.0
    finally:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    missing = [b for b in ("prometheus", "promtool") if shutil.which(b) is None]
    if missing:
        print("missing (scripts/setup.sh installs them): " + ", ".join(missing))
        return 1
    with tempfile.TemporaryDirectory(prefix="gpufleet_serving_tokens_") as tmp:
        rules = os.path.join(tmp, "serving-rules.yml")
        out = subprocess.run([args.gpufleet, "rules", "export", "--serving", "-o", rules],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        with open(rules) as f:
            text = f.read()
        assert "interval: 1m" in text, text
        with open(rules, "w") as f:
            f.write(text.replace("interval: 1m", "interval: 1s"))
        check = subprocess.run(["promtool", "check", "rules", rules], capture_output=True,
                               text=True)
        assert check.returncode == 0, check.stdout + check.stderr

        engines = ThreadingHTTPServer(("127.0.0.1", 0), FakeEngines)
        engine_port = engines.server_address[1]
        threading.Thread(target=engines.serve_forever, daemon=True).start()
        db = os.path.join(tmp, "gpufleet.db")
        server_log = os.path.join(tmp, "server.log")
        prom_log_path = os.path.join(tmp, "prometheus.log")
        prom = None
        with ServerProcess(args.gpufleet, ["--db", db], server_log) as srv:
            try:
                srv.wait_ready()
                prom_port = free_port()
                base = f"http://127.0.0.1:{prom_port}"
                cfg = os.path.join(tmp, "prometheus.yml")
                with open(cfg, "w") as f:
                    f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["{rules}"]
scrape_configs:
  - job_name: chat
    metrics_path: /chat
    static_configs: [{{targets: ["127.0.0.1:{engine_port}"], labels: {{pod: chat-0}}}}]
  - job_name: sgl
    metrics_path: /sgl
    static_configs: [{{targets: ["127.0.0.1:{engine_port}"], labels: {{pod: sgl-0}}}}]
remote_write:
  - url: {srv.url}/api/v1/write
    queue_config: {{batch_send_deadline: 1s}}
    write_relabel_configs:
      - source_labels: [__name__]
        regex: gpu_workload_tokens_total
        action: keep
""")
                prom_log = open(prom_log_path, "w")
                prom = subprocess.Popen(
                    [shutil.which("prometheus"), f"--config.file={cfg}",
                     f"--storage.tsdb.path={tmp}/prom", f"--web.listen-address=127.0.0.1:{prom_port}"],
                    stdout=prom_log, stderr=subprocess.STDOUT)
                wait_for("prometheus ready", lambda: urllib.request.urlopen(
                    base + "/-/ready", timeout=2).status == 200, 60)
                time.sleep(RUN_S)

                recorded = {r["metric"].get("workload_pod"): float(r["value"][1])
                            for r in query(base, "gpu_workload_tokens_total")}
                print("recorded:", recorded)
                assert set(recorded) == {"chat-0", "sgl-0"}, recorded
                chat, sgl = recorded["chat-0"], recorded["sgl-0"]
                assert chat > 1836 and (chat - 1836) % 22 == 0, chat  # both engines summed
                assert sgl > 354 and (sgl - 354) % 10 == 0, sgl  # ranks not double-counted

                engines.shutdown()  # the pods go away: scrapes fail, series go stale
                time.sleep(4)
                for pod in ("chat-0", "sgl-0"):
                    samples = query(base, f'gpu_workload_tokens_total{{workload_pod="{pod}"}}[10m]')
                    values = [float(v) for _, v in samples[0]["values"]]
                    want = values[-1] - values[0]
                    assert want > 0, (pod, values)

                    def caught_up(pod=pod, want=want):
                        return abs(metered_tokens(db, pod) - want) < 1e-6
                    wait_for(f"work meter of {pod} at {want}", caught_up, 30)
                    print(f"{pod}: {len(values)} recorded points, {want:.0f} tokens metered "
                          "by the server, as Prometheus recorded them")
            except BaseException:
                dump_log(server_log)
                dump_log(prom_log_path)
                raise
            finally:
                if prom is not None:
                    stop_process(prom)
                engines.server_close()
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
