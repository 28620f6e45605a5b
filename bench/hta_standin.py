#!/usr/bin/env python3
"""A stand-in for HTA's trace load plus one analysis, the anchor of
bench/trace_ingest_bench.sh (HTA itself is not packaged for Debian).

It follows the steps HTA's default ("json") parser backend documents for one
Kineto trace: json.load the file, build a pandas DataFrame of traceEvents,
replace name/cat strings by symbol-table ids, lift the args HTA keeps
(correlation, stream, device, External id, ...) into columns and drop the
rest, then HTA's kernel breakdown (per-kernel count, sum, mean, std, min,
max of duration). Written here from HTA's documentation, not its code; real
HTA does more work per trace (memory accounting, call-stack ids), so this is
a lower bound on its time.

Usage: hta_standin.py TRACE.json
  -> prints "<wall seconds> <process CPU seconds> <distinct kernels>"
"""
import gzip
import json
import sys
import time

import pandas as pd

ARGS_KEPT = ["correlation", "stream", "device", "External id", "cbid", "bytes", "Seq",
             "Collective name", "In msg nelems", "Group size"]


def main(path):
    t0 = time.time()
    c0 = time.process_time()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    df = pd.DataFrame(trace["traceEvents"])
    df = df[df["ph"] != "M"]
    names, name_ids = pd.factorize(df["name"])
    df["name"] = names
    cats, cat_ids = pd.factorize(df["cat"].fillna(""))
    df["cat"] = cats
    args = df["args"].apply(lambda a: a if isinstance(a, dict) else {})
    for key in ARGS_KEPT:
        df[key] = args.apply(lambda a: a.get(key, -1))
    df = df.drop(columns=["args"])
    df["ts"] = (df["ts"] * 1000).round().astype("int64")
    df["dur"] = (df["dur"].fillna(0) * 1000).round().astype("int64")
    kernel_cat = list(cat_ids).index("kernel") if "kernel" in list(cat_ids) else -1
    kernels = df[df["cat"] == kernel_cat]
    stats = kernels.groupby("name")["dur"].agg(["count", "sum", "mean", "std", "min", "max"])
    print(f"{time.time() - t0:.3f} {time.process_time() - c0:.3f} {len(stats)}")


if __name__ == "__main__":
    main(sys.argv[1])
