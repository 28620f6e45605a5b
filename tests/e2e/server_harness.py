"""Helpers shared by the gpufleet server tests: free ports, a server process
that is always stopped, HTTP helpers and bounded waits."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, headers=None, timeout=5):
    """Returns (status, body text); HTTP errors are answers, not exceptions."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def get_json(url, timeout=5):
    status, body = http("GET", url, timeout=timeout)
    if status != 200:
        raise AssertionError(f"GET {url}: HTTP {status}: {body}")
    return json.loads(body)


def wait_for(what, fn, timeout_s, interval_s=0.3):
    deadline = time.time() + timeout_s
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # not up yet
            last = e
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s}s waiting for {what}; last: {last}")


def stop_process(proc, timeout_s=15):
    """SIGTERM, then SIGKILL if it has not exited after `timeout_s`."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class ServerProcess:
    """`gpufleet server ...` on a free loopback port; use as a context manager
    so the process is stopped (SIGKILL if it will not stop) on every path."""

    def __init__(self, gpufleet, args, log_path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [gpufleet, "server", "--listen", f"127.0.0.1:{self.port}"] + args,
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout_s=30):
        def ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            return http("GET", self.url + "/-/ready", timeout=2)[0] == 200
        wait_for("server readiness", ready, timeout_s)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        stop_process(self.proc)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def dump_log(path):
    if os.path.exists(path):
        with open(path, "rb") as f:
            sys.stderr.write(f.read().decode(errors="replace")[-4000:])


# --- remote write without third-party modules -------------------------------
# A snappy *block* may consist of literals only, and the protobuf messages of
# remote write 1.0 are four small ones, so both are written here by hand.

def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, wire, payload):
    key = _varint((num << 3) | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def _snappy_literal_block(data):
    out = bytearray(_varint(len(data)))
    for i in range(0, len(data), 60):  # literal tag with the length in the tag byte (<= 60)
        chunk = data[i:i + 60]
        out.append((len(chunk) - 1) << 2)
        out += chunk
    return bytes(out)


def remote_write_body(series):
    """series: list of (labels dict incl. __name__, [(timestamp_ms, value), ...])."""
    import struct
    req = bytearray()
    for labels, samples in series:
        ts = bytearray()
        for name in sorted(labels):
            label = _field(1, 2, name.encode()) + _field(2, 2, labels[name].encode())
            ts += _field(1, 2, label)
        for t_ms, v in samples:
            s = _field(1, 1, struct.pack("<d", v)) + _field(2, 0, _varint(t_ms))
            ts += _field(2, 2, s)
        req += _field(1, 2, bytes(ts))
    return _snappy_literal_block(bytes(req))
