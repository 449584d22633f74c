#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Trace.events() against reading the same events (issue 30): for each trace given, REPS times
(default 3) in one process, the wall time of tracesweep.read(path, threads=1) and of
trace.events() (every row, every column), and the DataFrame's memory (memory_usage(deep=True):
the columns plus the Categoricals' strings) against the event table's (Trace.memory_bytes()).
Prints the medians and the two ratios (targets: events() under 2x the read, at most 1.3x the
table's memory).

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/python/events_bench.py TRACE...
"""
import os
import statistics
import sys
import time

import tracesweep


def measure(path):
    t0 = time.perf_counter()
    trace = tracesweep.read(path, threads=1)
    t1 = time.perf_counter()
    df = trace.events()
    t2 = time.perf_counter()
    return (len(df), t1 - t0, t2 - t1, trace.memory_bytes(),
            int(df.memory_usage(deep=True).sum()))


def main():
    reps = int(os.environ.get("REPS", "3"))
    print("| trace | events | read (s) | events() (s) | events()/read | table (MiB) "
          "| DataFrame (MiB) | DataFrame/table |")
    print("|---|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        runs = [measure(path) for _ in range(reps)]
        n = runs[0][0]
        read_s = statistics.median(r[1] for r in runs)
        events_s = statistics.median(r[2] for r in runs)
        table, frame = runs[0][3], runs[0][4]
        print(f"| {os.path.basename(path)} | {n:,} | {read_s:.2f} | {events_s:.2f} | "
              f"{events_s / read_s:.2f}x | {table / 2**20:.0f} | {frame / 2**20:.0f} | "
              f"{frame / table:.2f}x |")


if __name__ == "__main__":
    main()
