#!/usr/bin/env python3
"""End-to-end tests of `gpufleet compat check` with the real binary: exit
codes (0 compatible, 1 incompatible, 2 bad input), the findings table, the
JSON output, the flag form, and errors that name file:line and field."""
import argparse
import json
import os
import subprocess
import sys

FAILS = []
PASSES = [0]


def check(cond, msg):
    if cond:
        PASSES[0] += 1
    else:
        FAILS.append(msg)
        print(f"FAIL: {msg}", file=sys.stderr)


def run(gpufleet, *args):
    p = subprocess.run([gpufleet, "compat", "check", "--today", "2026-12", *args],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpufleet", required=True)
    args = ap.parse_args()
    g = args.gpufleet
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat_data")
    f = lambda name: os.path.join(data, name)

    # Fabric Manager != driver on an NVSwitch node: incompatible, exit 1.
    rc, out, err = run(g, "--node", f("hgx_h100_node.toml"))
    check(rc == 1, f"FM mismatch: exit {rc}, want 1\n{out}{err}")
    check("fabric_manager_mismatch" in out and "550.54.14 != driver 550.54.15" in out,
          f"FM mismatch row missing:\n{out}")
    check("version_traps.csv" in out, f"source missing:\n{out}")
    check("result: INCOMPATIBLE (1 error" in out, f"verdict line:\n{out}")
    check("incompatible" in err, f"stderr should say incompatible: {err}")

    # Same node with matching FM + image built with a newer CUDA: warnings only, exit 0.
    rc, out, err = run(g, "--node", f("hgx_h100_ok_node.toml"), "--image",
                       f("pytorch_cuda128_image.toml"), "--workload", f("llm_workload.toml"))
    check(rc == 0, f"minor compat: exit {rc}, want 0\n{out}{err}")
    check("cuda_minor_compat_features" in out and "570.124.06" in out,
          f"minor compat warning missing:\n{out}")
    check("result: compatible (0 errors" in out, f"verdict line:\n{out}")

    # JSON output.
    rc, out, err = run(g, "--node", f("hgx_h100_node.toml"), "--json")
    check(rc == 1, f"json: exit {rc}")
    try:
        doc = json.loads(out)
        check(doc["compatible"] is False and doc["errors"] == 1, f"json verdict: {doc}")
        rules = [x["rule"] for x in doc["findings"]]
        check("fabric_manager_mismatch" in rules, f"json rules: {rules}")
        check(all(x["source_file"] for x in doc["findings"]), "json findings need sources")
    except (ValueError, KeyError) as e:
        check(False, f"json output does not parse: {e}\n{out}")

    # Flag form: CUDA 12.4 on R535 runs by minor version compatibility (warning).
    rc, out, err = run(g, "--driver", "535.104.05", "--cuda", "12.4", "--gpu", "H100-SXM5")
    check(rc == 0, f"flags: exit {rc}\n{out}{err}")
    check("cuda_minor_compat_features" in out and "550.54.14" in out, f"flags:\n{out}")
    # R535 is past its end of life (June 2026) as of --today 2026-12.
    check("driver_branch_eol" in out, f"EOL warning missing:\n{out}")

    # Flag form: CUDA 13 on a V100 with R535 -> errors, exit 1.
    rc, out, err = run(g, "--driver", "535.104.05", "--image-cuda", "13.0", "--gpu", "V100")
    check(rc == 1, f"V100 CUDA 13: exit {rc}\n{out}{err}")
    check("arch_dropped_cuda13" in out and "cuda_minor_compat_floor" in out, f"V100:\n{out}")

    # Flags override the file (driver upgraded to match FM -> compatible).
    rc, out, err = run(g, "--node", f("hgx_h100_node.toml"), "--fabric-manager", "550.54.15")
    check(rc == 0, f"flag override: exit {rc}\n{out}{err}")

    # AMD: image without the node's gfx target.
    rc, out, err = run(g, "--gpu", "MI300X", "--rocm", "6.2.0", "--image-rocm", "6.2.0",
                       "--image-gfx", "gfx90a,gfx908")
    check(rc == 1 and "rocm_gfx_target_missing" in out, f"gfx missing: {rc}\n{out}{err}")

    # Bad input: exit 2 and the error names file:line and field.
    rc, out, err = run(g, "--node", f("bad_node.toml"))
    check(rc == 2, f"bad node: exit {rc}, want 2")
    check("bad_node.toml:3: field 'driver': bad version '550.54.x'" in err, f"bad node err: {err}")
    rc, out, err = run(g, "--driver", "5x")
    check(rc == 2 and "--driver: bad version '5x'" in err, f"bad flag: {rc} {err}")
    rc, out, err = run(g, "--node", f("missing.toml"))
    check(rc == 2 and "missing.toml" in err, f"missing file: {rc} {err}")
    rc, out, err = run(g)
    check(rc == 2 and "--node FILE" in err, f"no node: {rc} {err}")
    rc, out, err = run(g, "--drvier", "550")
    check(rc == 2 and "--driver" in err, f"unknown flag suggestion: {rc} {err}")
    rc, out, err = run(g, "--gpu", "H100", "--image-cuda-archs", "sm90")
    check(rc == 2 and "bad CUDA arch 'sm90'" in err, f"bad arch flag: {rc} {err}")

    print(f"{PASSES[0]} checks passed, {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
