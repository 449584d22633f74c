#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Trace.stats() on a listing report (issue 31: result tables to Python as typed columns):
for each nsys export given, one trace read once (threads=1), then alternately REPS times
(default 3) in this process:
  - trace.stats(REPORT): the report's rows handed over as typed columns;
  - the JSON route: trace.run("stats", report=REPORT) (the rows as JSON text, parsed) and a
    DataFrame of the rows' dicts, as stats() built it before;
and, as the command-line reference, `tracesweep --threads 1 stats --report REPORT --format csv`
(read included) in a child process. Prints the medians, the ratio JSON route / stats(), and
checks both DataFrames hold the same values.

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/python/stats_frames_bench.py BUILD EXPORT...
    (REPORT=cuda_gpu_trace by default)
"""
import os
import statistics
import subprocess
import sys
import time

import pandas as pd

import tracesweep


def timed(f):
    t0 = time.perf_counter()
    value = f()
    return time.perf_counter() - t0, value


def json_route(trace, report):
    reports = trace.run("stats", report=report)["reports"]
    return pd.DataFrame(reports["rows"][0])


def same_values(a, b):
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    for c in a.columns:
        x = a[c].astype(object).where(a[c].notna(), None).tolist()
        y = b[c].astype(object).where(b[c].notna(), None).tolist()
        if any(not (u == v or (u is None and v is None)) for u, v in zip(x, y)):
            return False
    return True


def main():
    build, paths = sys.argv[1], sys.argv[2:]
    report = os.environ.get("REPORT", "cuda_gpu_trace")
    reps = int(os.environ.get("REPS", "3"))
    binary = os.path.join(build, "src", "cli", "tracesweep")
    print(f"| export | rows | stats() (s) | JSON route (s) | JSON route / stats() "
          f"| CLI CSV, read included (s) | same values |")
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        trace = tracesweep.read(path, threads=1)
        typed, parsed, csv = [], [], []
        for _ in range(reps):
            t, frame = timed(lambda: trace.stats(report)[report])
            typed.append(t)
            t, reference = timed(lambda: json_route(trace, report))
            parsed.append(t)
            argv = [binary, "--threads", "1", "stats", "--report", report, "--format", "csv", path]
            t, _ = timed(lambda: subprocess.run(argv, stdout=subprocess.DEVNULL, check=True))
            csv.append(t)
        same = same_values(frame, reference[frame.columns]) if set(frame.columns) == set(
            reference.columns) else False
        a, b, c = (statistics.median(x) for x in (typed, parsed, csv))
        print(f"| {os.path.basename(path)} | {len(frame):,} | {a:.2f} | {b:.2f} | {b / a:.1f}x "
              f"| {c:.2f} | {'yes' if same else 'NO'} |")
        del trace, frame, reference


if __name__ == "__main__":
    main()
