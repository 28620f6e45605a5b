#!/usr/bin/env python3
"""Regenerates the recorded gate example from the real 16xH100 all_reduce run.

baseline/all_reduce_perf.run1.txt is the real file verbatim (origin: ../README.md);
every other file is SYNTHETIC: the same run with the time, algbw and busbw
columns scaled by a seeded factor per run (about 0.3% noise), to stand for
repeated runs of the same job. candidate_slow/ also loses 9% of bus bandwidth
at messages of 1 GiB and up, the size of drop a library falling back to a
slower algorithm causes. Header and footer lines (including the "Avg bus
bandwidth" line, which the gate ignores) are kept as in the real file.
Deterministic: running it again rewrites the same bytes. The file names keep
"all_reduce_perf" because old nccl-tests headers do not name the collective.
"""
import pathlib
import random

HERE = pathlib.Path(__file__).resolve().parent
REAL = HERE.parent / "nccl-tests_all_reduce_perf_h100x16_2node.txt"


def fit(v, width):
    # nccl-tests getFloatStr: %.2f, %.1f, %.0f, then %.1e, whichever fits.
    for fmt in ("%.2f", "%.1f", "%.0f"):
        s = fmt % v
        if len(s) <= width:
            return s
    return "%.1e" % v


def scale_line(line, factor_for_size):
    f = line.split()
    if len(f) != 13 or not f[0].isdigit():
        return line
    size = int(f[0])
    k = factor_for_size(size)
    out = [f[0].rjust(12), f[1].rjust(13), f[2].rjust(9), f[3].rjust(7), f[4].rjust(7)]
    for block in (5, 9):
        t, alg, bus, wrong = (float(f[block]), float(f[block + 1]), float(f[block + 2]),
                              f[block + 3])
        out += [fit(t / k, 6).rjust(8), fit(alg * k, 6).rjust(7), fit(bus * k, 6).rjust(7),
                wrong.rjust(6)]
    return " ".join(out) + "\n"


def write(path, factor_for_size):
    lines = REAL.read_text().splitlines(keepends=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(scale_line(l, factor_for_size) for l in lines))


def main():
    rng = random.Random(20261201)
    (HERE / "baseline").mkdir(exist_ok=True)
    (HERE / "baseline" / "all_reduce_perf.run1.txt").write_text(REAL.read_text())
    for i in (2, 3):
        k = 1 + rng.gauss(0, 0.003)
        write(HERE / "baseline" / f"all_reduce_perf.run{i}.txt", lambda s, k=k: k)
    for name, drop in (("candidate_good", 1.0), ("candidate_slow", 0.91)):
        for i in (1, 2, 3):
            k = 1 + rng.gauss(0, 0.003)
            write(HERE / name / f"all_reduce_perf.run{i}.txt",
                  lambda s, k=k, drop=drop: k * (drop if s >= 1 << 30 else 1.0))


if __name__ == "__main__":
    main()
