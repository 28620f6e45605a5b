#!/usr/bin/env python3
"""Integration test: gpufleet's Slurm adapter against a real Slurm.

Generates slurm.conf/gres.conf fragments with `gpufleet place slurm conf` from
a three-node inventory (NVIDIA H100, NVIDIA A100, AMD MI300X; fake GPUs whose
gres.conf File= entries are symlinks to /dev/null), starts slurmctld and one
slurmd per node on loopback (every node on 127.0.0.1 with its own slurmd port,
auth/none, proctrack/linuxproc, task/none, no cgroups, everything in a temp
dir), then submits jobs with the arguments of `gpufleet place slurm args` and
checks with scontrol and the jobs' own output that Slurm ran each job on the
node gpufleet's policy chose, with the GRES type and count gpufleet asked for.
It also checks that both sides agree on refusals: a request gpufleet finds no
node for is one Slurm rejects, and gpufleet's arguments pointed at another
node are rejected by Slurm through their --constraint and typed --gres.

Every daemon is stopped on every path. Exits 77 (ctest: skipped) only when
slurmctld or slurmd is not installed.
"""
import argparse
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

INVENTORY = """
[[node]]
name = "nv-h100"
cpu = 8
memory = "16Gi"
gpus = 4
gpu_model = "H100-SXM"
vendor = "nvidia"
gpu_memory = "80Gi"
interconnect = "nvlink"
region = "us-east1"
[node.software]
cuda = "12.4"
driver = "550.54.15"

[[node]]
name = "nv-a100"
cpu = 8
memory = "16Gi"
gpus = 2
gpu_model = "A100"
vendor = "nvidia"
gpu_memory = "40Gi"
interconnect = "pcie"
region = "us-east1"
[node.software]
cuda = "12.2"
driver = "535.104.05"

[[node]]
name = "amd-mi300"
cpu = 8
memory = "16Gi"
gpus = 2
gpu_model = "MI300X"
vendor = "amd"
gpu_memory = "192Gi"
interconnect = "xgmi"
region = "eu-west4"
[node.software]
rocm = "6.1.2"
"""

# name -> (request TOML, node gpufleet must choose or None, GRES Slurm must show)
REQUESTS = {
    "train": ('name = "train"\ncpu = 2\nmemory = "1Gi"\ngpus = 2\nvendor = "nvidia"\n'
              'interconnect = "nvlink"\n[software]\ncuda = "12.4"\n',
              "nv-h100", "gpu:h100_sxm:2"),
    "amd": ('name = "amd"\ncpu = 1\nmemory = "512Mi"\ngpus = 1\nvendor = "amd"\n'
            'region = "eu-west4"\n', "amd-mi300", "gpu:mi300x:1"),
    # Two allowed models: the policy picks either NVIDIA node; the check is
    # that Slurm runs it where gpufleet said, and accepts the OR constraint.
    "either": ('name = "either"\ncpu = 1\nmemory = "512Mi"\ngpus = 2\n'
               'gpu_models = ["H100-SXM", "A100"]\n', None, None),
    "share": ('name = "share"\ncpu = 1\nmemory = "256Mi"\ngpus = 1\ngpu_share = 0.5\n'
              'gpu_models = ["A100"]\n', "nv-a100", "gpu:a100:1"),
    # No node in the inventory is an Intel node: gpufleet finds none.
    "intel": ('name = "intel"\ncpu = 1\ngpus = 1\nvendor = "intel"\n', None, None),
}

SLURM_CONF = """\
ClusterName=gpufleettest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/none
CredType=cred/none
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool/%n
SlurmctldPidFile={tmp}/run/slurmctld.pid
SlurmdPidFile={tmp}/run/slurmd-%n.pid
SlurmctldLogFile={tmp}/log/slurmctld.log
SlurmdLogFile={tmp}/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# The inventory's CPUs and memory, not this machine's, are the truth.
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
Include {tmp}/etc/slurm-nodes.conf
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def free_ports(n):
    """A base port with n consecutive free ports on 127.0.0.1."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n > 65535:
            continue
        ok = True
        for p in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no run of free ports")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, msg):
        if cond:
            self.passed += 1
            print(f"ok: {msg}")
        else:
            self.failed += 1
            print(f"FAIL: {msg}", file=sys.stderr)


class Cluster:
    def __init__(self, tmp, env):
        self.tmp = tmp
        self.env = env
        self.procs = []

    def start(self, argv, log):
        out = open(os.path.join(self.tmp, "log", log), "w")
        p = subprocess.Popen(argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append((argv[0], p))
        return p

    def slurm(self, *argv, check=True):
        r = subprocess.run(list(argv), env=self.env, capture_output=True, text=True, timeout=30)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr}")
        return r

    def stop(self):
        # Jobs first, so no slurmstepd outlives its slurmd; then the daemons
        # (SIGTERM, then SIGKILL to the whole process group).
        try:
            self.slurm("scancel", "--full", "--user", str(os.getuid()), check=False)
        except Exception:
            pass
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if not self.slurm("squeue", "-h", check=False).stdout.strip():
                    break
            except Exception:
                break
            time.sleep(0.3)
        for _, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                print(f"{name} ignored SIGTERM; killing", file=sys.stderr)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)


def expand(spec):
    """'/x/n1-gpu[0-3]' -> ['/x/n1-gpu0', ..., '/x/n1-gpu3'] (one range at the end)."""
    m = re.fullmatch(r"(.*)\[(\d+)-(\d+)\]", spec)
    if not m:
        return [spec]
    return [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]


def job_info(cluster, job_id):
    out = cluster.slurm("scontrol", "-d", "show", "job", job_id).stdout
    fields = {}
    for tok in out.split():
        if "=" in tok:
            k, _, v = tok.partition("=")
            fields.setdefault(k, v)
    return fields


def wait_job(cluster, job_id, timeout_s=30):
    deadline = time.time() + timeout_s
    state = None
    while time.time() < deadline:
        state = job_info(cluster, job_id).get("JobState")
        if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
            return state
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} still {state} after {timeout_s} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = ap.parse_args()

    for daemon in ("slurmctld", "slurmd"):
        if shutil.which(daemon) is None:
            print(f"SKIP: {daemon} is not installed (Debian slurm-wlm; scripts/setup.sh "
                  "installs it)")
            return 77

    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="gpufleet-slurm-")
    for d in ("etc", "state", "spool", "run", "log", "dev", "jobs", "req"):
        os.makedirs(os.path.join(tmp, d))
    inv = os.path.join(tmp, "inventory.toml")
    with open(inv, "w") as f:
        f.write(INVENTORY)

    c = Checks()
    gf = args.gpufleet
    ctld_port = free_ports(1)
    node_port = free_ports(3)

    # 1. Configuration from the inventory.
    r = subprocess.run([gf, "place", "slurm", "conf", "--inventory", inv, "-o",
                        os.path.join(tmp, "etc"), "--fake-devices", os.path.join(tmp, "dev"),
                        "--single-host", f"127.0.0.1:{node_port}"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        print(f"FAIL: place slurm conf: {r.stderr}", file=sys.stderr)
        return 1
    nodes_conf = open(os.path.join(tmp, "etc", "slurm-nodes.conf")).read()
    gres_conf = open(os.path.join(tmp, "etc", "gres.conf")).read()
    print(nodes_conf + gres_conf)
    c.check("GresTypes=gpu" in nodes_conf, "slurm-nodes.conf declares GresTypes=gpu")
    c.check(re.search(r"NodeName=nv-h100 .*Gres=gpu:h100_sxm:4 .*"
                      r"Features=nvidia,h100_sxm,nvlink,us-east1,cuda_12.4,driver_550.54.15",
                      nodes_conf) is not None, "H100 node line: typed GRES and features")
    # Fake devices: gres.conf names them; they must be character devices.
    for m in re.finditer(r"File=(\S+)", gres_conf):
        for path in expand(m.group(1)):
            os.symlink("/dev/null", path)
    c.check(len(os.listdir(os.path.join(tmp, "dev"))) == 8, "8 fake GPU device files")

    conf_path = os.path.join(tmp, "etc", "slurm.conf")
    with open(conf_path, "w") as f:
        f.write(SLURM_CONF.format(tmp=tmp, ctld_port=ctld_port, slurmd_port=node_port,
                                  user=pwd.getpwuid(os.getuid()).pw_name))
    # slurmd reads gres.conf beside slurm.conf.
    env = dict(os.environ, SLURM_CONF=conf_path)
    for k in list(env):
        if k.startswith("SLURM_") and k != "SLURM_CONF":
            del env[k]
    names = re.findall(r"^NodeName=(\S+)", nodes_conf, re.M)
    for n in names:
        os.makedirs(os.path.join(tmp, "spool", n))

    cluster = Cluster(tmp, env)
    try:
        cluster.start(["slurmctld", "-D"], "slurmctld.out")
        time.sleep(0.5)
        for n in names:
            cluster.start(["slurmd", "-D", "-N", n], f"slurmd-{n}.out")

        deadline = time.time() + 30
        states = ""
        while time.time() < deadline:
            r = cluster.slurm("sinfo", "-h", "-N", "-o", "%N %t %G", check=False)
            states = r.stdout
            if r.returncode == 0 and states.count(" idle ") == len(names):
                break
            time.sleep(0.5)
        print(states)
        c.check(states.count(" idle ") == len(names), f"all {len(names)} nodes idle: {states!r}")
        c.check("nv-h100 idle gpu:h100_sxm:4" in states, "Slurm sees the H100 node's 4 GPUs")
        c.check("amd-mi300 idle gpu:mi300x:2" in states, "Slurm sees the MI300X node's 2 GPUs")

        # 2. Jobs with gpufleet's arguments land where gpufleet chose.
        def gpufleet_args(req_name):
            path = os.path.join(tmp, "req", req_name + ".toml")
            with open(path, "w") as f:
                f.write(REQUESTS[req_name][0])
            return subprocess.run([gf, "place", "slurm", "args", "--inventory", inv,
                                   "--request", path], capture_output=True, text=True, timeout=30)

        def submit(flags):
            script = ('echo node=$SLURMD_NODENAME gpus=$SLURM_JOB_GPUS '
                      'gpus_on_node=$SLURM_GPUS_ON_NODE')
            r = cluster.slurm("sbatch", "--parsable", "-o", os.path.join(tmp, "jobs", "%j.out"),
                              *flags, "--wrap", script, check=False)
            return r

        for req_name in ("train", "amd", "either", "share"):
            want_node, want_gres = REQUESTS[req_name][1], REQUESTS[req_name][2]
            r = gpufleet_args(req_name)
            if r.returncode != 0:
                c.check(False, f"{req_name}: place slurm args failed: {r.stderr}")
                continue
            flags = r.stdout.split("\n")
            flags = [x for x in flags if x]
            print(f"{req_name}: {flags} {r.stderr.strip()}")
            chosen = next(x.split("=", 1)[1] for x in flags if x.startswith("--nodelist="))
            gres = next(x.split("=", 1)[1] for x in flags if x.startswith("--gres="))
            if want_node:
                c.check(chosen == want_node, f"{req_name}: gpufleet chose {chosen}")
            if want_gres:
                c.check(gres == want_gres, f"{req_name}: gpufleet asks for {gres}")
            if req_name == "share":
                c.check("whole GPU" in r.stderr, "share: note that Slurm gives a whole GPU")
            if req_name == "either":
                c.check(any(x.startswith("--constraint=(h100_sxm|a100)") for x in flags),
                        "either: model allow-list as an OR constraint")
            sub = submit(flags)
            c.check(sub.returncode == 0, f"{req_name}: sbatch accepted ({sub.stderr.strip()})")
            if sub.returncode != 0:
                continue
            job = sub.stdout.strip().split(";")[0]
            state = wait_job(cluster, job)
            info = job_info(cluster, job)
            c.check(state == "COMPLETED", f"{req_name}: job {job} {state}")
            c.check(info.get("NodeList") == chosen,
                    f"{req_name}: Slurm ran it on {info.get('NodeList')}, gpufleet chose {chosen}")
            c.check(info.get("JOB_GRES") == gres,
                    f"{req_name}: Slurm allocated {info.get('JOB_GRES')}, asked {gres}")
            out = open(os.path.join(tmp, "jobs", job + ".out")).read().strip()
            count = int(gres.rsplit(":", 1)[1])
            m = re.search(r"node=(\S+) gpus=(\S*) gpus_on_node=(\S*)", out)
            c.check(m is not None and m.group(1) == chosen, f"{req_name}: job output {out!r}")
            if m:
                c.check(len(m.group(2).split(",")) == count and m.group(3) == str(count),
                        f"{req_name}: the job saw {count} GPU(s) ({m.group(2)})")

        # 3. Refusals agree. gpufleet finds no Intel node ...
        r = gpufleet_args("intel")
        c.check(r.returncode != 0 and "no node can host" in r.stderr,
                f"intel: gpufleet refuses ({r.stderr.strip()[:120]})")
        # ... and Slurm has no node with that feature either.
        sub = submit(["--nodes=1", "--gres=gpu:1", "--constraint=intel"])
        c.check(sub.returncode != 0, f"intel: Slurm refuses too ({sub.stderr.strip()})")

        # gpufleet's arguments for "train" pointed at the A100 node: its
        # constraint (nvlink, cuda_12.4) and typed GRES do not match there.
        r = gpufleet_args("train")
        flags = [x for x in r.stdout.split("\n") if x]
        moved = [("--nodelist=nv-a100" if x.startswith("--nodelist=") else x) for x in flags]
        sub = submit(moved)
        c.check(sub.returncode != 0,
                f"train moved to nv-a100: Slurm rejects it ({sub.stderr.strip()})")
        no_constraint = [x for x in moved if not x.startswith("--constraint=")]
        sub = submit(no_constraint)
        c.check(sub.returncode != 0,
                f"train moved to nv-a100 without constraint: typed GRES rejects it "
                f"({sub.stderr.strip()})")
        # The constraint alone refuses it too: A100 GRES (which nv-a100 has)
        # with "train"'s constraint (nvlink, cuda_12.4, which it lacks) ...
        a100 = [("--gres=gpu:a100:2" if x.startswith("--gres=") else x) for x in moved]
        sub = submit(a100)
        c.check(sub.returncode != 0,
                f"train's constraint on nv-a100: Slurm rejects it ({sub.stderr.strip()})")
        # ... while the same job without the constraint is accepted there.
        sub = submit([x for x in a100 if not x.startswith("--constraint=")])
        c.check(sub.returncode == 0, f"same job without constraint accepted ({sub.stderr.strip()})")
        if sub.returncode == 0:
            wait_job(cluster, sub.stdout.strip().split(";")[0])
        # More GPUs of the type than the node has: Slurm refuses, as gpufleet
        # does (the H100 node has 4).
        sub = submit(["--nodes=1", "--nodelist=nv-h100", "--gres=gpu:h100_sxm:5"])
        c.check(sub.returncode != 0, f"5 of 4 H100s: Slurm rejects ({sub.stderr.strip()})")
    except Exception as e:  # report, then stop the daemons
        c.check(False, f"exception: {e!r}")
    finally:
        cluster.stop()
        if c.failed or args.keep:
            print(f"logs kept in {tmp}", file=sys.stderr)
            for n in sorted(os.listdir(os.path.join(tmp, "log"))):
                if c.failed and n.endswith(".log"):
                    lines = open(os.path.join(tmp, "log", n), errors="replace").readlines()
                    sys.stderr.write(f"---- {n} (last 15 lines)\n" + "".join(lines[-15:]))
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"{c.passed} passed, {c.failed} failed, {time.time() - t0:.1f} s")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
