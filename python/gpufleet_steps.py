"""Report a training or serving loop's step durations to the gpufleet agent.

The step duration is what a job feels: when a neighbour on the GPU slows it,
its steps get longer. No vendor library measures it, so the workload reports
it. This module needs only the Python standard library; it sends batches of
step durations to the agent on this host (POST /api/v1/steps, loopback only),
which publishes the latest one as gpu_workload_step_duration_seconds on the
device that runs this process, with the pod / Slurm job labels its process
attribution finds for this pid.

    from gpufleet_steps import StepReporter
    steps = StepReporter("train-llm", team="research")
    for batch in loader:
        ...one training step...
        steps.mark()            # time since the previous mark() is one step
    steps.close()

or, with PyTorch, time every optimizer step:

    from gpufleet_steps import StepReporter, attach_to_optimizer
    attach_to_optimizer(optimizer, StepReporter("train-llm"))

For the training planner (`gpufleet plan training`, docs/plan.md), report
each rank's own compute per micro-batch under a name of its own: a full
synchronous step waits for the slowest rank, so it does not show how fast
this one is.

    mb = StepReporter("llm-mb")
    with model.no_sync():                   # DDP: no all-reduce yet
        for micro in micro_batches[:-1]:
            t0 = time.perf_counter()
            loss(model(micro)).backward()
            mb.step(time.perf_counter() - t0)  # one micro-batch, this rank only

Reporting never slows or breaks the loop: durations are queued (at most
`max_pending`; older ones are dropped and counted) and sent by a background
thread every `flush_interval_s`; a failed send is counted in `errors` and
`last_error`, never raised.

The agent's address comes from `url`, else $GPUFLEET_AGENT_URL, else
http://127.0.0.1:9835 (the agent's default --listen).
"""

import collections
import json
import os
import threading
import time
import urllib.error
import urllib.request

__all__ = ["StepReporter", "attach_to_optimizer"]

_DEFAULT_URL = "http://127.0.0.1:9835"
_MAX_BATCH = 1000  # the agent takes at most this many steps per report


class StepReporter:
    """Queues step durations and sends them to the agent in the background."""

    def __init__(self, workload, team=None, gpu_uuid=None, url=None,
                 flush_interval_s=1.0, max_pending=10000, timeout_s=2.0):
        if not workload:
            raise ValueError("workload: a name is required")
        base = (url or os.environ.get("GPUFLEET_AGENT_URL") or _DEFAULT_URL).rstrip("/")
        self.url = base + "/api/v1/steps"
        self.workload = workload
        self.team = team
        self.gpu_uuid = gpu_uuid
        self.timeout_s = timeout_s
        self.sent = 0      # steps the agent accepted
        self.dropped = 0   # steps dropped: queue full, or refused by the agent
        self.errors = 0    # failed sends
        self.last_error = None
        self._pending = collections.deque(maxlen=max_pending)
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._last_mark = None
        self._stop = threading.Event()
        self._interval = flush_interval_s
        self._thread = threading.Thread(target=self._run, name="gpufleet-steps", daemon=True)
        self._thread.start()

    def step(self, duration_s):
        """Queues one step of `duration_s` seconds."""
        d = float(duration_s)
        if not (0 < d < 86400):
            return
        with self._lock:
            if len(self._pending) == self._pending.maxlen:
                self.dropped += 1
            self._pending.append(d)

    def mark(self):
        """Ends a step: the time since the previous mark() (none the first time)."""
        now = time.perf_counter()
        if self._last_mark is not None:
            self.step(now - self._last_mark)
        self._last_mark = now

    def flush(self):
        """Sends what is queued now; returns the number of steps sent."""
        with self._send_lock:
            total = 0
            while True:
                with self._lock:
                    batch = [self._pending.popleft()
                             for _ in range(min(_MAX_BATCH, len(self._pending)))]
                if not batch:
                    return total
                if not self._send(batch):
                    return total
                total += len(batch)

    def close(self):
        """Stops the background thread after a last flush."""
        self._stop.set()
        self._thread.join(timeout=self.timeout_s + self._interval + 1)
        self.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _send(self, batch):
        report = {"pid": os.getpid(), "workload": self.workload, "steps_s": batch}
        if self.team:
            report["team"] = self.team
        if self.gpu_uuid:
            report["gpu_uuid"] = self.gpu_uuid
        req = urllib.request.Request(self.url, data=json.dumps(report).encode(),
                                     headers={"Content-Type": "application/json"},
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s):
                pass
            self.sent += len(batch)
            return True
        except urllib.error.HTTPError as e:
            # Refused (bad report, too many reporters): do not retry it.
            self.errors += 1
            self.dropped += len(batch)
            self.last_error = "HTTP %d: %s" % (e.code, e.read().decode(errors="replace").strip())
            return True
        except OSError as e:
            # The agent is not there (yet): keep the batch for the next try.
            self.errors += 1
            self.last_error = str(e)
            with self._lock:
                self._pending.extendleft(reversed(batch))
            return False

    def _run(self):
        while not self._stop.wait(self._interval):
            self.flush()


def attach_to_optimizer(optimizer, reporter):
    """Marks a step after every optimizer.step() (PyTorch): the time between
    consecutive optimizer steps, which covers loading, forward and backward.
    Uses register_step_post_hook where PyTorch has it (2.0+), else wraps
    optimizer.step. Returns the reporter."""
    hook = getattr(optimizer, "register_step_post_hook", None)
    if hook is not None:
        hook(lambda *_args, **_kwargs: reporter.mark())
    else:
        inner = optimizer.step

        def step(*args, **kwargs):
            result = inner(*args, **kwargs)
            reporter.mark()
            return result

        optimizer.step = step
    reporter.mark()  # the first step is timed from here
    return reporter
