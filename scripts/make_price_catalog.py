#!/usr/bin/env python3
"""Builds data/prices/cloud_gpu_prices.toml from the SkyPilot catalog extract.

Usage: scripts/make_price_catalog.py [--shared ../shared] [-o data/prices/cloud_gpu_prices.toml]
       scripts/make_price_catalog.py --check   (exit 1 when the committed file differs)

Input: ../shared/prices/skypilot-catalog/{aws,gcp,azure,lambda,fluidstack}_gpu_vms.csv
(see that folder's README for origin, commit and what is missing). Rows are
collapsed from availability zones to regions: the on-demand price is the same
in every zone of a region in these files (checked here: a region whose zones
disagree is an error), the spot price is the lowest zone's, and `zones` says
how many zones offered it. Accelerator names are mapped to keys of
data/hardware.toml; names without a key (or whose instance type says a
different form factor) follow MODEL_MAP below, and rows whose accelerator has
no key are left out and listed in the output's header.
Standard library only.
"""
import argparse
import csv
import os
import sys
from collections import OrderedDict

FILES = [
    ("aws", "aws_gpu_vms.csv", "catalogs/v9/aws/vms.csv @ 2c3d7ea7", "instance"),
    ("gcp", "gcp_gpu_vms.csv", "catalogs/v9/gcp/vms.csv @ 2c3d7ea7", "accelerator"),
    ("azure", "azure_gpu_vms.csv", "catalogs/v6/azure/vms.csv @ 098741e7", "instance"),
    ("lambda", "lambda_gpu_vms.csv", "catalogs/v9/lambda/vms.csv @ 2c3d7ea7", "instance"),
    ("fluidstack", "fluidstack_gpu_vms.csv", "catalogs/v9/fluidstack/vms.csv @ 2c3d7ea7", "instance"),
]

# (accelerator name, instance-type substring or "") -> hardware key. The
# first match wins; "" matches any instance type. Approximations are noted.
MODEL_MAP = [
    ("H100", "pcie", "h100-pcie"),
    ("H100", "NC40ads_H100", "h100-pcie"),  # Azure NC H100 v5 is the PCIe H100 NVL
    ("H100", "NC80adis_H100", "h100-pcie"),
    ("H100", "", "h100-sxm"),
    ("H100-MEGA", "", "h100-sxm"),  # GCP a3-megagpu: H100 80GB SXM
    ("H100-NVLINK", "", "h100-sxm"),
    ("H200", "", "h200-sxm"),
    ("B200", "", "b200"),
    ("A100-80GB", "", "a100-sxm-80gb"),  # Azure NC A100 v4 is PCIe 80GB: priced as SXM
    ("A100", "", "a100-sxm-40gb"),  # Lambda gpu_Nx_a100 without _sxm4 is PCIe 40GB: idem
    ("V100-32GB", "", "v100-sxm-32gb"),
    ("V100", "", "v100-sxm-16gb"),  # Azure NCv3 is PCIe V100: priced as SXM
    ("A10", "", "a10"),
    ("L4", "", "l4"),
    ("T4", "", "t4"),
    ("P100", "", "p100-pcie"),
]


def model_key(accel, instance):
    for name, hint, key in MODEL_MAP:
        if accel == name and (not hint or hint.lower() in instance.lower()):
            return key
    return None


def num(text):
    text = (text or "").strip()
    return float(text) if text else None


def fmt(x):
    if x is None:
        return None
    s = ("%.6f" % x).rstrip("0").rstrip(".")
    return s if "." in s else s + ".0"


def build(shared):
    folder = os.path.join(shared, "prices", "skypilot-catalog")
    offers = OrderedDict()
    skipped = {}
    unpriced = []
    for cloud, name, source, scope in FILES:
        path = os.path.join(folder, name)
        with open(path, newline="") as f:
            for lineno, row in enumerate(csv.DictReader(f), start=2):
                accel = row["AcceleratorName"].strip()
                instance = row["InstanceType"].strip()
                key = model_key(accel, instance)
                if key is None:
                    skipped[(cloud, accel)] = skipped.get((cloud, accel), 0) + 1
                    continue
                count = num(row["AcceleratorCount"])
                price = num(row["Price"])
                spot = num(row.get("SpotPrice"))
                if count is None or count <= 0:
                    raise SystemExit("%s:%d: no accelerator count" % (path, lineno))
                if price is None and spot is None:
                    unpriced.append("%s %s %s" % (cloud, instance, row["Region"].strip()))
                    continue
                if scope == "accelerator":
                    instance = "%s-%dx" % (accel, int(count))
                k = (cloud, row["Region"].strip(), instance, key, count)
                o = offers.get(k)
                if o is None:
                    offers[k] = o = {"price": price, "spot": spot, "zones": 0,
                                     "vcpus": num(row.get("vCPUs")),
                                     "memory": num(row.get("MemoryGiB")),
                                     "source": source, "scope": scope, "where": (path, lineno)}
                elif price is not None and o["price"] is not None and abs(price - o["price"]) > 1e-9:
                    raise SystemExit("%s:%d: on-demand price %s differs from %s in the same region"
                                     % (path, lineno, price, o["price"]))
                if o["price"] is None:
                    o["price"] = price
                if spot is not None and (o["spot"] is None or spot < o["spot"]):
                    o["spot"] = spot
                o["zones"] += 1
    return offers, skipped, unpriced


def render(offers, skipped, unpriced):
    out = []
    out.append("# Public cloud GPU prices, generated by scripts/make_price_catalog.py from the")
    out.append("# SkyPilot catalog extract in ../shared/prices/skypilot-catalog/ (machine-fetched")
    out.append("# from each cloud's public price API; snapshot of 2025-2026, extracted 2026-12).")
    out.append("# Do not edit by hand: rerun the script. USD per hour for the whole offer.")
    out.append("#")
    out.append("# scope = \"instance\": the price includes the host's vCPUs and memory (which")
    out.append("#   src/cost/price_catalog.h splits off when a site enables [host_split]).")
    out.append("# scope = \"accelerator\": GCP prices attachable GPUs apart from the host VM")
    out.append("#   (not in the extract), so the price is the GPUs' alone.")
    out.append("# on_demand absent: spot / capacity-block only. spot absent: no spot offer.")
    out.append("# spot: the lowest zone's price. No reserved prices are in the snapshot:")
    out.append("# committed-use rates come from site overrides (docs/cost.md).")
    out.append("#")
    out.append("# Left out (accelerator without a key in data/hardware.toml): " +
               ", ".join("%s %s x%d" % (c, a, n) for (c, a), n in sorted(skipped.items())))
    out.append("# Left out (a row with neither price nor spot price): " + ", ".join(unpriced))
    out.append("")
    out.append('snapshot = "skypilot-catalog, extracted 2026-12"')
    out.append("")
    for (cloud, region, instance, key, count), o in offers.items():
        fields = [("cloud", '"%s"' % cloud), ("region", '"%s"' % region),
                  ("instance_type", '"%s"' % instance), ("gpu", '"%s"' % key),
                  ("gpu_count", fmt(count))]
        if o["scope"] == "instance":
            fields += [("vcpus", fmt(o["vcpus"] or 0.0)), ("memory_gib", fmt(o["memory"] or 0.0))]
        fields.append(("scope", '"%s"' % o["scope"]))
        if o["price"] is not None:
            fields.append(("on_demand", fmt(o["price"])))
        if o["spot"] is not None:
            fields.append(("spot", fmt(o["spot"])))
        fields += [("zones", str(o["zones"])), ("source", '"%s"' % o["source"])]
        out.append("[[offer]]")
        out.extend("%s = %s" % f for f in fields)
        out.append("")
    return "\n".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    p.add_argument("-o", "--output", default=os.path.join(root, "data", "prices", "cloud_gpu_prices.toml"))
    p.add_argument("--check", action="store_true", help="compare with the committed file")
    a = p.parse_args()
    if not os.path.isdir(os.path.join(a.shared, "prices", "skypilot-catalog")):
        print("make_price_catalog: %s/prices/skypilot-catalog is absent; nothing to do" % a.shared)
        return 77 if a.check else 1
    text = render(*build(a.shared))
    if a.check:
        with open(a.output) as f:
            if f.read() != text:
                print("make_price_catalog: %s is out of date; rerun the script" % a.output)
                return 1
        print("make_price_catalog: %s matches the snapshot" % a.output)
        return 0
    with open(a.output, "w") as f:
        f.write(text)
    print("wrote %s (%d offers)" % (a.output, text.count("[[offer]]")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
