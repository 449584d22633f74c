#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Records Holistic Trace Analysis's TraceAnalysis facade results on the shared Kineto traces.

HTA is not a Debian package: pass the path of an HTA checkout (its `hta` package is imported from
there; nothing of it is copied). Needs Debian's python3-pandas, python3-networkx, python3-plotly,
python3-psutil and python3-ijson. Writes one JSON document (tests/python/hta_facade_reference.json
holds the last recording):

    /usr/bin/python3 bench/hta_reference/facade.py --hta ~/src/HolisticTraceAnalysis \
        --traces ../shared/traces --out tests/python/hta_facade_reference.json

Jobs: every Kineto trace file under TRACES/kineto (*.json.gz, *.json; not *.jsonl) on its own,
through a temporary folder holding only a symlink to it (so HTA finds the rank in the file as it
does by default), and the folder kineto/hta_trace_filter_2rank as one two-rank job. Jobs are keyed
by their path relative to TRACES. Per job, `TraceAnalysis(trace_dir=...)` (default arguments, so
the last ProfilerStep is dropped when the trace has two or more ProfilerStep#N names) and, in this
order, with visualize=False where the parameter exists:

    gpu_kernel_breakdown             get_gpu_kernel_breakdown(duration_ratio=0.8, num_kernels=10,
                                         include_memory_kernels=True) -> [kernel_type_df, kernel_df]
    gpu_kernel_breakdown_all_kernels     the same with num_kernels=1000 (no "others" bucket)
    gpu_kernel_breakdown_no_memory       the same as the first with include_memory_kernels=False
    temporal_breakdown               get_temporal_breakdown()
    idle_time_breakdown              get_idle_time_breakdown(ranks=ALL, show_idle_interval_stats=True)
                                         -> [idle_df, stats_df]
    comm_comp_overlap                get_comm_comp_overlap()
    cuda_kernel_launch_stats         get_cuda_kernel_launch_stats(ranks=ALL) -> {"<rank>": df}
    queue_length_summary             get_queue_length_summary(ranks=ALL) -> df or null

ALL is `analysis.t.get_ranks()` (the sorted keys of the parsed traces). When a call raises, its
result is {"error": "<exception type>", "message": "<first 200 characters>"}.

A DataFrame is {"columns", "index", "index_names", "dtypes", "data"}: MultiIndex labels become
lists, numpy scalars Python numbers, and NaN / +-inf become null. A frame with more than
MAX_ROWS (2000) rows (in practice the per-launch rows of get_cuda_kernel_launch_stats on the big
traces) is stored as {"summary": {"rows": N, "columns": [{"column", "sum", "min", "max"}]},
"head": <first HEAD_ROWS (50) rows as a frame>} to keep the file small; sum/min/max are taken
over the numeric columns only, skipping NaN.

Per job the document also holds "ranks" (what HTA parsed), "trace_files", "device_type",
"profiler_step_names" (distinct ProfilerStep#N names; the last-step filter applies when >= 2),
"warnings" (HTA's own WARNING/ERROR log lines from this process, less its parse-timing lines;
the trace folder shown as <trace_dir>), "seconds" (per call and for
construction; not meant to be compared). "env" lists the HTA environment options at run time
(null = unset; this script sets none). HTA's log output goes to stderr.
"""
import argparse
import json
import logging
import math
import os
import re
import sys
import tempfile
import time

MAX_ROWS = 2000
HEAD_ROWS = 50
ENV_OPTIONS = [
    "HTA_DISABLE_NS_ROUNDING",
    "HTA_DISABLE_CG_DEPTH",
    "CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE",
    "CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE",
    "CRITICAL_PATH_STRICT_NEGATIVE_WEIGHT_CHECKS",
]
TWO_RANK_FOLDER = "hta_trace_filter_2rank"


def scalar(value):
    """A JSON-ready Python value for one cell or label."""
    import numpy as np

    if isinstance(value, tuple):
        return [scalar(v) for v in value]
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return value
    try:
        import pandas as pd

        if value is pd.NaT or (not isinstance(value, (list, dict)) and pd.isna(value)):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def frame(df):
    import pandas as pd

    if len(df) > MAX_ROWS:
        columns = []
        for col in df.columns:
            series = df[col]
            if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
                columns.append({
                    "column": scalar(col),
                    "sum": scalar(series.sum()),
                    "min": scalar(series.min()),
                    "max": scalar(series.max()),
                })
        return {"summary": {"rows": len(df), "columns": columns}, "head": frame(df.head(HEAD_ROWS))}
    return {
        "columns": [scalar(c) for c in df.columns],
        "index": [scalar(i) for i in df.index],
        "index_names": [scalar(n) for n in df.index.names],
        "dtypes": [str(t) for t in df.dtypes],
        "data": [[scalar(v) for v in row] for row in df.itertuples(index=False, name=None)],
    }


def result(value):
    import pandas as pd

    if value is None:
        return None
    if isinstance(value, pd.DataFrame):
        return frame(value)
    if isinstance(value, pd.Series):
        return frame(value.to_frame())
    if isinstance(value, (tuple, list)):
        return [result(v) for v in value]
    if isinstance(value, dict):
        return {str(k): result(v) for k, v in value.items()}
    return scalar(value)


# HTA logs its parse timings at WARNING level; those lines are not kept.
TIMING_LINE = re.compile(r"^(Parsed |Overall parsing |leaving parse_)")


class Collect(logging.Handler):
    def __init__(self, trace_dir):
        super().__init__(level=logging.WARNING)
        self.trace_dir = trace_dir
        self.lines = []

    def emit(self, record):
        message = record.getMessage()
        if not TIMING_LINE.match(message):
            message = message.replace(self.trace_dir, "<trace_dir>")
            self.lines.append(f"{record.levelname}: {message}"[:300])


def run_job(trace_dir):
    from hta.trace_analysis import TraceAnalysis

    collect = Collect(trace_dir)
    logging.getLogger("hta").addHandler(collect)
    job = {"seconds": {}}
    try:
        start = time.perf_counter()
        try:
            analysis = TraceAnalysis(trace_dir=trace_dir)
        except Exception as e:  # noqa: BLE001 - record whatever HTA raises
            job["construct"] = {"error": type(e).__name__, "message": str(e)[:200]}
            return job
        finally:
            job["seconds"]["construct"] = round(time.perf_counter() - start, 3)
        ranks = analysis.t.get_ranks()
        job["ranks"] = ranks
        job["trace_files"] = {
            str(r): os.path.basename(p) for r, p in sorted(analysis.t.trace_files.items())
        }
        try:
            job["device_type"] = analysis.t.get_device_type()
        except Exception as e:  # noqa: BLE001
            job["device_type"] = {"error": type(e).__name__, "message": str(e)[:200]}
        job["profiler_step_names"] = len(analysis.t.symbol_table.get_profiler_step_ids())
        calls = [
            ("gpu_kernel_breakdown", lambda: analysis.get_gpu_kernel_breakdown(
                visualize=False, duration_ratio=0.8, num_kernels=10,
                include_memory_kernels=True)),
            ("gpu_kernel_breakdown_all_kernels", lambda: analysis.get_gpu_kernel_breakdown(
                visualize=False, duration_ratio=0.8, num_kernels=1000,
                include_memory_kernels=True)),
            ("gpu_kernel_breakdown_no_memory", lambda: analysis.get_gpu_kernel_breakdown(
                visualize=False, duration_ratio=0.8, num_kernels=10,
                include_memory_kernels=False)),
            ("temporal_breakdown", lambda: analysis.get_temporal_breakdown(visualize=False)),
            ("idle_time_breakdown", lambda: analysis.get_idle_time_breakdown(
                ranks=ranks, visualize=False, show_idle_interval_stats=True)),
            ("comm_comp_overlap", lambda: analysis.get_comm_comp_overlap(visualize=False)),
            ("cuda_kernel_launch_stats", lambda: analysis.get_cuda_kernel_launch_stats(
                ranks=ranks, visualize=False)),
            ("queue_length_summary", lambda: analysis.get_queue_length_summary(ranks=ranks)),
        ]
        for name, call in calls:
            start = time.perf_counter()
            try:
                job[name] = result(call())
            except Exception as e:  # noqa: BLE001
                job[name] = {"error": type(e).__name__, "message": str(e)[:200]}
            job["seconds"][name] = round(time.perf_counter() - start, 3)
        return job
    finally:
        logging.getLogger("hta").removeHandler(collect)
        job["warnings"] = collect.lines


def jobs(traces):
    kineto = os.path.join(traces, "kineto")
    for root, dirs, files in os.walk(kineto):
        dirs[:] = sorted(d for d in dirs if d != TWO_RANK_FOLDER)
        for name in sorted(files):
            if name.endswith(".json.gz") or name.endswith(".json"):
                yield os.path.relpath(os.path.join(root, name), traces), os.path.join(root, name)
    folder = os.path.join(kineto, TWO_RANK_FOLDER)
    if os.path.isdir(folder):
        yield os.path.relpath(folder, traces), folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hta", required=True, help="an HTA checkout (holds hta/)")
    parser.add_argument("--traces", required=True, help="the shared traces folder (holds kineto/)")
    parser.add_argument("--out", help="the JSON file to write (default: stdout)")
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.hta))

    # HTA logs (and may print) to stdout; point file descriptor 1 at stderr while it runs.
    sys.stdout.flush()
    real_stdout = os.dup(1)
    os.dup2(2, 1)
    try:
        import pandas
        from hta.version import __version__ as hta_version

        out = {
            "hta_version": hta_version,
            "pandas_version": pandas.__version__,
            "python_version": sys.version.split()[0],
            "env": {name: os.environ.get(name) for name in ENV_OPTIONS},
            "max_rows": MAX_ROWS,
            "head_rows": HEAD_ROWS,
            "jobs": {},
        }
        wall = time.perf_counter()
        for key, path in jobs(args.traces):
            print(f"== {key}", file=sys.stderr, flush=True)
            if os.path.isdir(path):
                out["jobs"][key] = run_job(path)
            else:
                with tempfile.TemporaryDirectory(prefix="hta_facade_") as tmp:
                    os.symlink(os.path.abspath(path), os.path.join(tmp, os.path.basename(path)))
                    out["jobs"][key] = run_job(tmp)
        out["seconds_total"] = round(time.perf_counter() - wall, 3)
    finally:
        sys.stdout.flush()
        os.dup2(real_stdout, 1)
        os.close(real_stdout)

    text = json.dumps(out, indent=1, sort_keys=True, allow_nan=False)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
