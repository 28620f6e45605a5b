#!/usr/bin/env python3
"""E2E: `gpufleet server` beyond loopback (bound to 0.0.0.0, reached through
127.0.0.1) serves TLS from the committed test certificate (tests/data/tls/)
and applies the access rule of docs/server.md#security: a read without a token
is 401, a read token reads, a read token cannot write (403), an admin token
writes; plain http to the TLS port gets no answer; the console's static paths
need no token; `gpufleet incidents list` reaches it over https with --cacert
and GPUFLEET_TOKEN. And the server refuses to start beyond loopback without
TLS or without an admin token, saying why."""
import argparse
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from server_harness import (dump_log, free_port, remote_write_body, stop_process,  # noqa: E402
                            wait_for)

TLS_DIR = os.path.join(SOURCE_DIR, "tests", "data", "tls")
CA = os.path.join(TLS_DIR, "ca.pem")
ADMIN, READ = "adm1n-e2e-token", "r3ad-e2e-token"


def request(ctx, method, url, token=None, body=None, content_type=None):
    """(status, headers, body text); HTTP errors are answers."""
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def refused_to_start(gpufleet, args, want, workdir):
    """Runs the server expecting a quick refusal whose message contains `want`."""
    port = free_port()
    p = subprocess.run([gpufleet, "server", "--listen", f"0.0.0.0:{port}",
                        "--db", os.path.join(workdir, "refused.db")] + args,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0, f"server started beyond loopback with {args}: {p.stderr}"
    assert want in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(workdir, "refused.db")), "state touched before refusal"
    print(f"refused as expected ({' '.join(args) or 'no TLS, no token'}): "
          f"{p.stderr.strip().splitlines()[-1]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    cert, key = os.path.join(TLS_DIR, "server.pem"), os.path.join(TLS_DIR, "server.key")

    with tempfile.TemporaryDirectory() as tmp:
        refused_to_start(args.gpufleet, [],
                         "refusing to listen beyond loopback without TLS ([tls] cert_file and "
                         "key_file) and an admin token", tmp)
        refused_to_start(args.gpufleet, ["--token", ADMIN],
                         "refusing to listen beyond loopback without TLS", tmp)
        refused_to_start(args.gpufleet, ["--tls-cert", cert, "--tls-key", key],
                         "refusing to listen beyond loopback without an admin token", tmp)
        refused_to_start(args.gpufleet, ["--tls-cert", cert,
                                         "--tls-key", os.path.join(TLS_DIR, "other.key"),
                                         "--token", ADMIN],
                         "other.key does not match the certificate", tmp)

        token_file = os.path.join(tmp, "admin.tokens")
        with open(token_file, "w") as f:
            f.write("# admin tokens of the e2e test\n" + ADMIN + "\n")
        port = free_port()
        base = f"https://127.0.0.1:{port}"
        log_path = os.path.join(tmp, "server.log")
        env = dict(os.environ, GPUFLEET_READ_TOKENS=READ)
        env.pop("GPUFLEET_TOKEN", None)
        env.pop("GPUFLEET_ADMIN_TOKEN", None)
        log = open(log_path, "ab")
        proc = subprocess.Popen(
            [args.gpufleet, "server", "--listen", f"0.0.0.0:{port}",
             "--db", os.path.join(tmp, "state.db"), "--tls-cert", cert, "--tls-key", key,
             "--token-file", token_file],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        ctx = ssl.create_default_context(cafile=CA)
        try:
            def ready():
                if proc.poll() is not None:
                    raise RuntimeError(f"server exited with {proc.returncode}")
                return request(ctx, "GET", base + "/-/ready")[0] == 200
            wait_for("TLS server readiness (no token: the probe is exempt)", ready, 30)

            # Reads beyond loopback need a token.
            status, headers, body = request(ctx, "GET", base + "/api/v1/incidents")
            assert status == 401, (status, body)
            assert headers.get("WWW-Authenticate") == "Bearer", headers
            assert "error" in json.loads(body), body
            status, _, body = request(ctx, "GET", base + "/api/v1/incidents", READ)
            assert status == 200, (status, body)
            assert json.loads(body)["status"] == "success", body
            assert request(ctx, "GET", base + "/metrics", "wrong-token")[0] == 401
            assert request(ctx, "GET", base + "/metrics", ADMIN)[0] == 200

            # Writes: a read token is 403, the admin token is accepted.
            rw = remote_write_body([({"__name__": "gpu_power_watts", "gpu_uuid": "GPU-e2e",
                                      "vendor": "nvidia", "node": "n1"},
                                     [(1_700_000_000_000, 300.0)])])
            for token, want in ((None, 401), (READ, 403), (ADMIN, 204)):
                status, _, body = request(ctx, "POST", base + "/api/v1/write", token, rw,
                                          "application/x-protobuf")
                assert status == want, (token, status, body)
            status, _, body = request(ctx, "POST", base + "/api/v1/admin/detect", READ, b"")
            assert status == 403, (status, body)
            status, _, body = request(ctx, "POST", base + "/api/v1/admin/detect", ADMIN, b"")
            assert status == 200, (status, body)

            # The console's static paths hold no data and need no token.
            for path in ("/", "/assets/app.js"):
                status = request(ctx, "GET", base + path)[0]
                assert status not in (401, 403), (path, status)

            # The certificate is checked: without the test CA there is no connection.
            try:
                request(ssl.create_default_context(), "GET", base + "/-/healthy")
                raise AssertionError("a client without the test CA connected")
            except urllib.error.URLError as e:
                assert isinstance(e.reason, ssl.SSLCertVerificationError), e

            # Plain http to the TLS port gets no HTTP answer.
            try:
                status = request(None, "GET", f"http://127.0.0.1:{port}/-/healthy")[0]
                raise AssertionError(f"plain http to the TLS port answered {status}")
            except (http.client.HTTPException, ConnectionError, urllib.error.URLError) as e:
                assert not isinstance(e, urllib.error.HTTPError), e
                print(f"plain http refused as expected: {e!r}")

            # The CLI over https: --cacert and GPUFLEET_TOKEN.
            cli = [args.gpufleet, "incidents", "list", "--server", base, "--cacert", CA, "--json"]
            p = subprocess.run(cli, capture_output=True, text=True, timeout=30,
                               env=dict(env, GPUFLEET_TOKEN=READ))
            assert p.returncode == 0, p.stderr
            assert isinstance(json.loads(p.stdout), list), p.stdout
            p = subprocess.run(cli, capture_output=True, text=True, timeout=30, env=env)
            assert p.returncode != 0 and "HTTP 401" in p.stderr, (p.returncode, p.stderr)
            p = subprocess.run(cli[:-3] + ["--json"], capture_output=True, text=True, timeout=30,
                               env=dict(env, GPUFLEET_TOKEN=READ))
            assert p.returncode != 0 and "not signed by a trusted CA" in p.stderr, p.stderr
        except BaseException:
            dump_log(log_path)
            raise
        finally:
            stop_process(proc)
            log.close()
    print("server TLS e2e: ok")


if __name__ == "__main__":
    main()
