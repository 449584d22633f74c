# SPDX-License-Identifier: Apache-2.0
"""A drop-in for Holistic Trace Analysis's ``TraceAnalysis`` on the calls people use most.

    from tracesweep.hta import TraceAnalysis
    analyzer = TraceAnalysis(trace_dir="traces/job/")
    kernel_type_df, kernel_df = analyzer.get_gpu_kernel_breakdown()

The traces are read by tracesweep's readers (all ranks in one job); the six calls return
DataFrames with HTA's (0.6) column names, index, dtypes of values and units: **microseconds**
(HTA's docstrings say ns in places; its code never converts). The answers are HTA's, including
its quirks, which this module reproduces on purpose and lists where each call is defined:

- loading: every event with a ``dur`` and a ``cat`` other than ``Trace`` is a row; when any
  timestamp of a rank has a fraction of a µs, starts are rounded up and ends down to whole µs
  (so events under 1 µs get a duration of 0 or -1, and stay); the ranks are aligned on the
  earliest start of the job; a rank is the first ``"rank": N`` (with a space) in its file, else 0;
- "GPU rows" are the rows with a stream: kernels, memcpy, memset, cuda_sync, and host events
  that carry a ``stream`` argument (a Triton ``cpu_op``, MTIA's ``mtia_ccp_events``);
- with two or more distinct ``ProfilerStep#N`` names, the last step is dropped: host rows that
  start at or after the last step's start, and the GPU rows whose correlation no kept host row
  has (``include_last_profiler_step=True`` keeps every host row, as HTA's does).

``visualize=True`` raises ValueError: this module draws nothing.
"""
import os
import re

import numpy as np
import pandas as pd

from . import read as _read
from ._tracesweep import release_free_memory as _release_free_memory

__all__ = ["TraceAnalysis", "CriticalPath"]

_RANK_KEY = re.compile(rb'"rank":[^\S\n]+(\d+)')
_GPU_KINDS = ("kernel", "memcpy", "memset", "synchronization")
_DEVICE_SYNCS = ("Event Sync", "Context Sync")
_IDLE_CATEGORIES = ("kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy",
                    "mtia_ccp_events")
_KERNEL_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC",
                    "runFunction - job_prep_and_submit_for_execution")
_MEMORY_LAUNCHES = ("cudaMemcpyAsync", "cudaMemsetAsync")
_QUEUED_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
                    "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync",
                    "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
                    "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                    "hipMemcpyWithStream")
_TYPES = ("COMPUTATION", "COMMUNICATION", "MEMORY")
_STEP_NAME = re.compile(r"ProfilerStep#\d")
_COMPUTE_EXCLUDED_PREFIXES = ("nccl", "Stream Wait Event", "runFunction", "hip", "job_exe",
                              "packet", "pe_exe", "cpum_exe_subgraph", "hccl",
                              "collective_subgraph_execution")
_CUDA_LAUNCH = re.compile(r"cuda.*LaunchKernel")


def kernel_type(name):
    """HTA's kernel type of a GPU row's name: COMMUNICATION (nccl*, hip* (any), hccl*, or
    containing ncclKernel), MEMORY (Memcpy*, Memset*, hipMemcpy*, hipMemset*, dma*),
    COMPUTATION (none of HTA's exclusions: Memcpy/Memset/dma/Sync anywhere, launch calls, …),
    else OTHER (e.g. cuda_sync rows)."""
    if name.startswith(("nccl", "hip", "hccl")) or "ncclKernel" in name.split("\n")[0]:
        return "COMMUNICATION"
    if name.startswith(("Memcpy", "hipMemcpy", "Memset", "hipMemset", "dma")):
        return "MEMORY"
    first_line = name.split("\n")[0]
    excluded = (name.startswith(_COMPUTE_EXCLUDED_PREFIXES)
                or any(part in first_line for part in ("Memcpy", "Memset", "dma", "Sync"))
                or _CUDA_LAUNCH.match(name) is not None)
    return "OTHER" if excluded else "COMPUTATION"


def _rank_in_file(path):
    """HTA's rank of a file: the first '"rank": N' (whitespace after the colon, on one line),
    else 0. Read in blocks (HTA reads lines: the pattern never spans one)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    tail = b""
    with opener(path, "rb") as f:
        while True:
            block = f.read(16 << 20)
            if not block:
                return 0
            text = tail + block
            found = _RANK_KEY.search(text)
            if found:
                return int(found.group(1))
            tail = text[-256:]


def _find_sorted(keys, values):
    """(at, found): the first position of each of `values` in the sorted `keys`, and whether it
    is there (where it is not, `at` is a valid position holding another key, or 0 when `keys` is
    empty)."""
    if len(keys) == 0:
        return np.zeros(len(values), dtype=np.int64), np.zeros(len(values), dtype=bool)
    at = np.searchsorted(keys, values)
    np.minimum(at, len(keys) - 1, out=at)
    return at, keys[at] == values


def _among(values, pool):
    """np.isin(values, pool) for integers, by binary search in the sorted pool (np.isin sorts
    both together: several copies of `values`)."""
    return _find_sorted(np.unique(pool), values)[1]


def _inner_join(left, right):
    """The row pairs of an inner join of two key arrays, in pandas 1.5's merge order (HTA's):
    keys in the order they first appear in `left`; per key, each left row (in order) with each
    right row (in order). Returns (left positions, right positions)."""
    keys, first, group = np.unique(left, return_index=True, return_inverse=True)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(keys))
    group = rank[group]  # each left row's key, numbered by first appearance
    left_rows = np.argsort(group, kind="stable")
    at, found = _find_sorted(keys, right)
    matched = np.flatnonzero(found)
    right_group = rank[at[matched]]
    right_rows = matched[np.argsort(right_group, kind="stable")]
    per_group = np.bincount(right_group, minlength=len(keys))
    right_start = np.cumsum(per_group) - per_group
    times = per_group[group[left_rows]]  # each left row, once per right row of its key
    left_out = np.repeat(left_rows, times)
    within = np.arange(len(left_out)) - np.repeat(np.cumsum(times) - times, times)
    right_out = right_rows[np.repeat(right_start[group[left_rows]], times) + within]
    return left_out, right_out


def _union(ts, end):
    """HTA's merged intervals of [ts, end): sorted by start (stable), a row opens a new interval
    when it starts after every earlier end. Returns (starts, ends) of the intervals."""
    if len(ts) == 0:
        return ts[:0], end[:0]
    order = np.argsort(ts, kind="stable")
    ts, end = ts[order], end[order]
    reach = np.maximum.accumulate(end)
    opens = np.empty(len(ts), dtype=bool)
    opens[0] = True
    opens[1:] = ts[1:] > reach[:-1]
    first = np.flatnonzero(opens)
    return np.minimum.reduceat(ts, first), np.maximum.reduceat(end, first)


def _union_length(ts, end):
    starts, ends = _union(ts, end)
    return float(np.sum(ends) - np.sum(starts))


def _overlap_length(a, b):
    """Time both interval sets (each already merged) cover."""
    total = 0.0
    if len(a[0]) == 0 or len(b[0]) == 0:
        return total
    times = np.concatenate([a[0], a[1], b[0], b[1]])
    delta = np.concatenate([np.ones(len(a[0])), -np.ones(len(a[0])), np.full(len(b[0]), 2.0),
                            np.full(len(b[0]), -2.0)])
    order = np.lexsort((delta, times))
    times, level = times[order], np.cumsum(delta[order])
    both = level[:-1] == 3
    return float(np.sum((times[1:] - times[:-1])[both]))


class _Rank:
    """One rank's rows as HTA holds them (µs, aligned, filtered): numpy columns."""

    def __init__(self, rows, names, cats):
        self.rows, self.names, self.cats = rows, names, cats

    def __getattr__(self, column):
        try:
            return self.__dict__["rows"][column]
        except KeyError:
            raise AttributeError(column) from None

    def take(self, rows, columns=None):
        """The rows selected by `rows` (a mask or indices), of `columns` (default: all)."""
        kept = self.rows if columns is None else {k: self.rows[k] for k in columns}
        return _Rank({k: v[rows] for k, v in kept.items()}, self.names, self.cats)

    def take_all(self, rows):
        """take(rows) of every column, freeing each of this rank's columns once taken."""
        out = {}
        for k in list(self.rows):
            out[k] = self.rows.pop(k)[rows]
        return _Rank(out, self.names, self.cats)

    def named(self, names):
        """Rows whose name is one of `names`."""
        wanted = np.flatnonzero(np.isin(self.names, list(names)))
        return np.isin(self.name, wanted)


class TraceAnalysis:
    """HTA's ``TraceAnalysis`` on tracesweep's readers. ``trace_files`` maps ranks to files (a
    relative name is joined to ``trace_dir``); without it every ``*.json``/``*.gz`` file in
    ``trace_dir`` is read and its rank found as HTA finds it. ``threads`` works as
    tracesweep's ``--threads`` (0: every hardware thread)."""

    def __init__(self, trace_files=None, trace_dir="/tmp/trace", include_last_profiler_step=False,
                 threads=0):
        files = self._files(trace_files, trace_dir)
        if not files:
            raise ValueError(f"{trace_dir}: no trace files (*.json, *.gz) to read")
        self.trace_files, self._threads = files, threads
        # One file at a time, so that one rank's event table is held at once, beside the
        # columns taken from the ranks before it.
        parts, index_base = {}, 0
        for rank in sorted(files):
            trace = _read([files[rank]], threads=threads, keep_duplicates=True)
            parts[rank], rows_read = self._columns(trace, index_base)
            index_base += rows_read
            del trace
        self._ranks = self._load(parts, include_last_profiler_step)

    # -- loading -------------------------------------------------------------------------------

    @staticmethod
    def _files(trace_files, trace_dir):
        if trace_files is not None:
            out = {}
            for rank, name in trace_files.items():
                path = name if os.path.isabs(name) else os.path.join(trace_dir, name)
                if not os.path.isfile(path) or not path.endswith((".gz", ".json")):
                    raise ValueError(f"{path}: not a readable trace file (*.json or *.gz)")
                out[int(rank)] = path
            return out
        if not os.path.isdir(trace_dir):
            raise ValueError(f"{trace_dir}: not a folder")
        out = {}
        for name in os.listdir(trace_dir):
            path = os.path.join(trace_dir, name)
            if name.endswith((".gz", ".json")) and os.path.isfile(path):
                out[_rank_in_file(path)] = path  # a later file claiming the same rank wins
        return out

    def _load(self, parts, include_last_step):
        """Aligns the ranks on the job's earliest start, links correlations and drops the last
        profiler step (when the job has two or more step names)."""
        starts = [p.ts.min() for p in parts.values() if len(p.ts)]
        origin = min(starts) if starts else 0.0
        step_names = set()
        for p in parts.values():
            step_names.update(n for n in p.names[np.unique(p.name)] if _STEP_NAME.match(n))
        out = {}
        for rank in list(parts):
            r = parts.pop(rank)
            r.rows["ts"] -= origin
            r = self._link(r)
            if len(step_names) >= 2:
                steps = [i for i, n in enumerate(r.names) if n in step_names]
                r = self._drop_last_step(r, steps, include_last_step)
            if len(r.ts):
                out[rank] = r
            del r
            _release_free_memory()  # (the rank's temporaries and replaced columns)
        return out

    def _columns(self, trace, index_base):
        """One file's rows as HTA keeps them (every row but the ``Trace`` span), column by
        column, so that one column of the event table is held beside them at a time. Returns
        the rank's rows and the number of rows read (``index`` counts rows across the files
        read, from 1)."""
        job = trace._job  # noqa: SLF001 (the raw arrays, without a DataFrame around them)

        def column(name):
            return job.events([], [name])

        cats_codes = column("category")
        cats = np.asarray(cats_codes["category_categories"], dtype=object)
        cat = cats_codes["category"]
        del cats_codes
        keep = cat != self._code(cats, "Trace")
        rows = {}
        # The times first, while little else is held: their conversion needs a few temporaries.
        offset = trace.inputs[0].get("clock_offset_ns", 0)
        start = column("start_ns")["start_ns"][keep]
        start -= offset
        end = column("end_ns")["end_ns"][keep]
        end -= offset
        rows["ts"], rows["dur"] = self._microseconds(start, end)
        del start, end
        names_codes = column("name")
        names = np.asarray(names_codes["name_categories"], dtype=object)
        rows["name"] = names_codes["name"][keep]
        del names_codes
        rows["index"] = (np.flatnonzero(keep) + (index_base + 1)).astype(np.int32)
        kind = column("kind")
        gpu_codes = [i for i, k in enumerate(kind["kind_categories"]) if k in _GPU_KINDS]
        gpu = np.isin(kind["kind"], gpu_codes) & (cat != self._code(cats, "gpu_user_annotation"))
        del kind
        rows["cat"] = cat[keep].astype(np.int16 if len(cats) < 2**15 else np.int32)
        read = len(cat)
        del cat
        stream = np.where(gpu, column("stream")["stream"], column("host_stream")["host_stream"])
        del gpu
        rows["stream"] = stream[keep]
        del stream
        rows["correlation"] = column("correlation")["correlation"][keep]
        return _Rank(rows, names, cats), read

    @staticmethod
    def _code(pool, text):
        hits = np.flatnonzero(pool == text)
        return hits[0] if len(hits) else -2

    @staticmethod
    def _microseconds(start_ns, end_ns):
        """HTA's ts and dur from the file's own ns: the trace's µs as doubles; when any start has
        a fraction of a µs, starts are rounded up and ends (ts + dur in doubles) down to whole
        µs. Overwrites `end_ns`."""
        whole, part = np.divmod(start_ns, 1000)  # ns since the epoch overflow a double's 53 bits
        ts = whole.astype(np.float64)
        del whole
        fractional = bool(np.any(part))
        if fractional:
            ts += part / 1000.0  # as json.loads rounds the decimal
        del part
        end_ns -= start_ns  # (the caller's copy: now the duration in ns, exact)
        dur = end_ns.astype(np.float64)
        dur /= 1000.0
        if os.environ.get("HTA_DISABLE_NS_ROUNDING") == "1" or not fractional:
            return ts, dur
        last = np.floor(ts + dur)
        np.ceil(ts, out=ts)
        np.subtract(last, ts, out=dur)
        return ts, dur

    @staticmethod
    def _gpu_rows(r):
        """HTA's GPU rows: a stream and a correlation, or a device-wide sync."""
        return ((r.stream >= 0) & (r.correlation >= 0)) | r.named(_DEVICE_SYNCS)

    def _link(self, r):
        """index_correlation: the index of the row on the other side (host/GPU) of the row's
        correlation (the last such row), 0 when it has none, -1 without a correlation."""
        linked = np.minimum(r.correlation, 0).astype(r.index.dtype)
        has = r.correlation != -1
        gpu = self._gpu_rows(r)
        for side, other in ((has & ~gpu, has & gpu), (has & gpu, has & ~gpu)):
            other = np.flatnonzero(other)
            other = other[np.argsort(r.correlation[other], kind="stable")]
            keys = r.correlation[other]
            rows = np.flatnonzero(side)
            last = np.searchsorted(keys, r.correlation[rows], "right") - 1  # (the last such row)
            hit = last >= 0
            hit[hit] = keys[last[hit]] == r.correlation[rows[hit]]
            linked[rows[hit]] = r.index[other[last[hit]]]
        r.rows["index_correlation"] = linked
        return r

    def _drop_last_step(self, r, steps, include_last_step):
        gpu = self._gpu_rows(r)
        cpu = np.flatnonzero(~gpu)
        if len(cpu) == 0:
            return r
        if not include_last_step:  # (HTA's other branch compares with an end column it never
            step_rows = cpu[np.isin(r.name[cpu], steps)]  # aligned: every host row passes)
            last_start = r.ts[step_rows].max() if len(step_rows) else r.ts[cpu].min()
            cpu = cpu[r.ts[cpu] < last_start]
        g = np.flatnonzero(gpu)
        counts = pd.Series(r.correlation[cpu]).value_counts()
        times = counts.reindex(r.correlation[g], fill_value=0).to_numpy()
        order = np.concatenate([np.repeat(g, times), cpu])
        return r.take_all(order)

    def _rank(self, rank):
        if rank not in self._ranks:
            raise ValueError(f"rank {rank} is not in the trace (ranks: {sorted(self._ranks)})")
        return self._ranks[rank]

    @staticmethod
    def _no_plot(visualize):
        if visualize:
            raise ValueError("visualize=True: tracesweep.hta draws nothing; pass visualize=False")

    def _types(self, r):
        """The kernel type of each row's name."""
        used = np.unique(r.name)
        lookup = np.empty(len(r.names), dtype=object)
        lookup[used] = [kernel_type(r.names[i]) for i in used]
        return lookup[r.name] if len(r.name) else np.empty(0, dtype=object)

    @staticmethod
    def _start_of_index(r, wanted):
        """The start of the first row whose index is each of `wanted` (NaN where none is)."""
        order = None if np.all(r.index[1:] > r.index[:-1]) else np.argsort(r.index,
                                                                               kind="stable")
        index = r.index if order is None else r.index[order]
        at, found = _find_sorted(index, wanted)
        if order is not None and len(order):
            at = order[at]
        return np.where(found, r.ts[at] if len(index) else 0.0, np.nan)

    def get_ranks(self):
        return sorted(self._ranks)

    # -- 1. kernel breakdown -----------------------------------------------------------------

    def get_gpu_kernel_breakdown(self, visualize=True, duration_ratio=0.8, num_kernels=10,
                                 include_memory_kernels=True, image_renderer=""):
        """(kernel_type_df, kernel_df) as HTA computes them. kernel_type_df covers every rank
        together: the µs during which each combination of COMPUTATION, COMMUNICATION and MEMORY
        kernels runs (every row at one timestamp is applied before a span is measured, so no
        zero-length combinations appear, where HTA's may by tie order). kernel_df: per rank and
        type, per kernel name sum/max/min/stddev/mean of durations; past `num_kernels` names HTA's
        "others" bucket applies, and then, as in HTA, every kept row's max/min/mean equal its
        sum and its stddev is 0 (HTA aggregates the per-name sums a second time), and the cut
        is a `duration_ratio` quantile of the cumulative sums."""
        self._no_plot(visualize)
        types = list(_TYPES if include_memory_kernels else _TYPES[:2])
        spans, frames = {}, []
        for rank in sorted(self._ranks):
            r = self._ranks[rank]
            g = r.take(r.stream != -1, ("ts", "dur", "name"))
            kind = self._types(g)
            for label, us in self._type_spans(g, kind, types).items():
                spans[label] = spans.get(label, 0) + us
            for t in types:
                frames.append(self._kernel_rows(g.take(kind == t), t, rank, duration_ratio,
                                                num_kernels))
        type_df = pd.DataFrame({"kernel_type": list(spans), "sum": list(spans.values())})
        type_df = type_df.sort_values("sum", ascending=False, kind="stable",
                                      ignore_index=True)
        total = type_df["sum"].sum()
        type_df["percentage"] = (100 * type_df["sum"] / total).round(1)
        columns = ["name", "sum", "max", "min", "std", "mean", "kernel_type", "rank"]
        kernel_df = pd.concat([pd.DataFrame(columns=columns)] + [f for f in frames if len(f)],
                              ignore_index=True) if any(len(f) for f in frames) else \
            pd.DataFrame(columns=columns)
        kernel_df = kernel_df.sort_values(["kernel_type", "name", "rank"], kind="stable",
                                          ignore_index=True)
        kernel_df.columns = ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)",
                             "kernel_type", "rank"]
        return type_df, kernel_df

    @staticmethod
    def _type_spans(g, kind, types):
        """µs per combination label of the kernel types running."""
        times, delta = [], []
        for bit, t in enumerate(types):
            sel = kind == t
            first, last = _union(g.ts[sel], g.ts[sel] + g.dur[sel])
            times += [first, last]
            delta += [np.full(len(first), 1 << bit), np.full(len(last), -(1 << bit))]
        times, delta = np.concatenate(times), np.concatenate(delta).astype(np.int64)
        if len(times) == 0:
            return {}
        order = np.argsort(times, kind="stable")
        times, level = times[order], np.cumsum(delta[order])
        last_at_time = np.r_[times[1:] != times[:-1], True]
        times, level = times[last_at_time], level[last_at_time]
        widths = (times[1:] - times[:-1]).astype(np.int64)  # HTA truncates each span to int
        per_level = np.bincount(level[:-1], weights=widths, minlength=1 << len(types))
        spans = {}
        for running in np.flatnonzero(np.bincount(level[:-1], minlength=1 << len(types))):
            if running > 0:
                label = " overlapping ".join(t for bit, t in enumerate(types)
                                             if running >> bit & 1)
                spans[label] = int(per_level[running])
        return spans

    @staticmethod
    def _kernel_rows(k, t, rank, duration_ratio, num_kernels):
        if len(k.ts) == 0:
            return pd.DataFrame()
        df = pd.DataFrame({"name": k.names[k.name], "dur": k.dur})
        stats = df.groupby("name", sort=False)["dur"].agg(["sum", "max", "min", "mean", "std"])
        stats["std"] = stats["std"].fillna(0)
        stats = stats.sort_values("sum", ascending=False, kind="stable").reset_index()
        if len(stats) > num_kernels:
            cumulative = stats["sum"].cumsum()
            cut = np.quantile(cumulative.to_numpy(), duration_ratio)
            bucket = (cumulative > cut) | (np.arange(len(stats)) >= num_kernels)
            stats.loc[bucket, "name"] = "others"
            stats = stats.groupby("name")["sum"].agg(["sum", "max", "min", "mean", "std"])
            stats["std"] = stats["std"].fillna(0)
            stats = stats.reset_index()
        stats["kernel_type"] = t
        stats["rank"] = int(rank)
        return stats[["name", "sum", "max", "min", "std", "mean", "kernel_type", "rank"]]

    # -- 2. temporal breakdown ---------------------------------------------------------------

    def get_temporal_breakdown(self, visualize=True):
        """Per rank: the span from the first GPU row's start to the last one's end
        (kernel_time), the union of computation kernels (compute_time), the time no GPU row
        runs (idle_time) and the rest (non_compute_time, which counts memory, communication
        and cuda_sync rows), in µs, and each as a percentage of kernel_time."""
        self._no_plot(visualize)
        rows = []
        for rank in sorted(self._ranks):
            r = self._ranks[rank]
            g = r.take(r.stream != -1, ("ts", "dur", "name"))
            if len(g.ts) == 0:
                raise IndexError(f"rank {rank} has no GPU rows (HTA raises here too)")
            first, last = _union(g.ts, g.ts + g.dur)
            kernel_time = float(last[-1] - first[0])
            busy = float(np.sum(last) - np.sum(first))
            c = self._types(g) == "COMPUTATION"
            compute = _union_length(g.ts[c], g.ts[c] + g.dur[c])
            idle = kernel_time - busy
            rows.append([rank, idle, compute, kernel_time - compute - idle, kernel_time])
        df = pd.DataFrame(rows, columns=["rank", "idle_time(us)", "compute_time(us)",
                                         "non_compute_time(us)", "kernel_time(us)"])
        for part in ("idle_time", "compute_time", "non_compute_time"):
            df[part + "_pctg"] = (100 * df[part + "(us)"] / df["kernel_time(us)"]).round(2)
        return df

    # -- 3. idle time breakdown --------------------------------------------------------------

    def get_idle_time_breakdown(self, ranks=None, streams=None, visualize=True,
                                visualize_pctg=True, show_idle_interval_stats=False,
                                consecutive_kernel_delay=30):
        """(idle_df, stats_df or None): per rank and stream, the gaps before each kernel (the
        gap from the previous row's end on that stream, which can be negative when rows
        overlap), as host_wait (its launch started after the previous row ended), kernel_wait
        (under `consecutive_kernel_delay` µs) or other (the first kernel's missing gap included,
        so every stream has an `other` row). Rows are rounded to 2 decimals; the index restarts
        at 0 for each rank, as HTA's does."""
        self._no_plot(visualize)
        ranks = list(ranks) if ranks else [0]
        idle, stats = [], []
        for rank in ranks:
            d, s = self._idle_rank(self._rank(rank), rank, streams, consecutive_kernel_delay)
            idle.append(d)
            stats.append(s)
        return pd.concat(idle), (pd.concat(stats) if show_idle_interval_stats else None)

    def _idle_rank(self, r, rank, streams, delay):
        cats = np.flatnonzero(np.isin(r.cats, _IDLE_CATEGORIES))
        k = r.take((r.stream != -1) & np.isin(r.cat, cats),
                   ("ts", "dur", "stream", "index_correlation"))
        ts_runtime = self._start_of_index(r, k.index_correlation)
        if not streams:
            streams = list(pd.unique(k.stream))
        labels = np.array(["host_wait", "kernel_wait", "other"])
        frames, stats = [], []
        for stream in streams:
            sel = np.flatnonzero(k.stream == stream)
            order = sel[np.argsort(k.ts[sel], kind="stable")]
            ts, end, launched = k.ts[order], k.ts[order] + k.dur[order], ts_runtime[order]
            prev_end = np.r_[np.nan, end[:-1]]
            gap = ts - prev_end
            with np.errstate(invalid="ignore"):
                host = launched > prev_end
                code = np.where(host, 0, np.where(gap < delay, 1, 2))
            df = pd.DataFrame({"idle_category": labels[code], "gap": gap})
            grouped = df.groupby("idle_category")["gap"]
            result = grouped.sum().to_frame("idle_time")
            result["stream"] = stream
            result["idle_time_ratio"] = result["idle_time"] / result["idle_time"].sum()
            frames.append(result)
            described = grouped.describe()
            described.insert(0, "stream", stream)
            stats.append(described)
        if not frames:
            raise ValueError(f"rank {rank}: no kernels (HTA raises here too)")
        out = pd.concat(frames).reset_index()
        out["rank"] = rank
        out = out[["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]].round(2)
        stat = pd.concat(stats).round(2)
        stat.insert(0, "rank", rank)
        stat.index.name = "idle_category"
        return out, stat

    # -- 4. communication / computation overlap ----------------------------------------------

    def get_comm_comp_overlap(self, visualize=True):
        """Per rank: the percentage of communication kernels' time (union) during which a
        computation kernel also runs; NaN on a rank without communication kernels."""
        self._no_plot(visualize)
        rows = []
        for rank in sorted(self._ranks):
            r = self._ranks[rank]
            g = r.take(r.stream != -1, ("ts", "dur", "name"))
            kind = self._types(g)
            comm, comp = kind == "COMMUNICATION", kind == "COMPUTATION"
            c = _union(g.ts[comm], g.ts[comm] + g.dur[comm])
            p = _union(g.ts[comp], g.ts[comp] + g.dur[comp])
            total = float(np.sum(c[1]) - np.sum(c[0]))
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = np.float64(_overlap_length(c, p)) / np.float64(total)
            rows.append([rank, round(100 * ratio, 2) if total else np.nan])
        return pd.DataFrame(rows, columns=["rank", "comp_comm_overlap_pctg"])

    # -- 5. kernel launch statistics ---------------------------------------------------------

    def get_cuda_kernel_launch_stats(self, ranks=None, runtime_cutoff=50,
                                     launch_delay_cutoff=100, include_memory_events=True,
                                     visualize=True):
        """{rank: DataFrame}: per launch (cudaLaunchKernel, cudaLaunchKernelExC, and with
        `include_memory_events` cudaMemcpyAsync/cudaMemsetAsync) and GPU row of the same
        correlation, the launch's and the GPU row's durations and the launch delay (GPU start
        after the launch's end, clipped at 0), µs. The cutoffs only shape HTA's plots: they do
        not filter, here or there."""
        self._no_plot(visualize)
        names = _KERNEL_LAUNCHES + (_MEMORY_LAUNCHES if include_memory_events else ())
        out = {}
        for rank in (list(ranks) if ranks else [0]):
            r = self._rank(rank)
            wanted = np.flatnonzero(_among(r.correlation, r.correlation[r.named(names)]))
            on_gpu = r.stream[wanted] != -1
            host, gpu = wanted[~on_gpu], wanted[on_gpu]
            del wanted, on_gpu
            at_host, at_gpu = _inner_join(r.correlation[host], r.correlation[gpu])
            host, gpu = host[at_host], gpu[at_gpu]
            delay = r.ts[gpu] - r.ts[host] - r.dur[host]
            out[rank] = pd.DataFrame({"correlation": r.correlation[host],
                                      "cpu_duration": r.dur[host], "gpu_duration": r.dur[gpu],
                                      "launch_delay": np.maximum(delay, 0.0)})
        return out

    # -- 6. queue length ---------------------------------------------------------------------

    def get_queue_length_summary(self, ranks=None):
        """Per (rank, stream): count, mean, std, min, quartiles and max of the stream's queue
        length (launches of the stream's GPU rows not yet started: +1 at each launch that has a
        GPU row, -1 at each GPU row's start) over the samples where it changes, unweighted by
        time, as HTA computes it; None when no rank has launches."""
        frames = []
        for rank in (list(ranks) if ranks else [0]):
            series = self._queue_series(self._rank(rank))
            if series is None:
                continue
            series["rank"] = rank
            frames.append(series[["rank", "stream", "queue_length"]].groupby(
                ["rank", "stream"]).describe())
        return pd.concat(frames) if frames else None

    def _queue_series(self, r):
        """Each stream's queue length after every launch (+1) and GPU row start (-1), in time
        order: a DataFrame of stream and queue_length, grouped by stream; None without rows.
        As HTA's join: a launch counts once per GPU row of its correlation, and once with no
        stream (then left out, and the streams become floats) when it has none."""
        launch = np.flatnonzero(r.named(_QUEUED_LAUNCHES) & (r.index_correlation > 0))
        gpu = np.flatnonzero(r.stream != -1)
        by_correlation = gpu[np.argsort(r.correlation[gpu], kind="stable")]
        gpu_correlation = r.correlation[by_correlation]
        call_correlation = r.correlation[launch]
        lo = np.searchsorted(gpu_correlation, call_correlation, "left")
        hi = np.searchsorted(gpu_correlation, call_correlation, "right")
        per_call = np.maximum(hi - lo, 1)
        call_rows = np.repeat(launch, per_call)
        first = np.cumsum(per_call) - per_call
        match = np.repeat(lo - first, per_call) + np.arange(len(call_rows))
        call_stream = r.stream[by_correlation[np.minimum(match, max(len(gpu) - 1, 0))]] \
            if len(gpu) else np.zeros(len(call_rows), dtype=r.stream.dtype)
        if not np.all(hi > lo):
            call_stream = np.where(np.repeat(hi > lo, per_call), call_stream, np.nan)
        done = gpu[_among(r.correlation[gpu], call_correlation)]
        if len(call_rows) != len(done):
            raise AssertionError(f"{len(call_rows)} launches but {len(done)} GPU rows they "
                                 "launched (HTA asserts the same)")
        ts = np.concatenate([r.ts[call_rows], r.ts[done]])
        queue = np.concatenate([np.ones(len(call_rows), np.int64), np.full(len(done), -1)])
        stream = np.concatenate([call_stream, r.stream[done]])
        del call_rows, call_stream, done
        order = np.argsort(ts, kind="stable")
        del ts
        if stream.dtype.kind == "f":
            order = order[~np.isnan(stream[order])]
        order = order[np.argsort(stream[order], kind="stable")]
        if len(order) == 0:
            return None
        stream, queue = stream[order], np.cumsum(queue[order])
        opens = np.flatnonzero(np.r_[True, stream[1:] != stream[:-1]])
        before = np.r_[0, queue[opens[1:] - 1]]
        queue -= np.repeat(before, np.diff(np.r_[opens, len(queue)]))
        return pd.DataFrame({"stream": stream, "queue_length": queue})

    # -- critical path -----------------------------------------------------------------------

    def critical_path_analysis(self, rank, annotation, instance_id=0, data_load_events=None):
        """(graph, True): the critical path of `rank` through HTA's graph in the window of the
        `instance_id`-th event whose name contains `annotation` (0 when None), by tracesweep's
        ``critical-path`` (docs/critical_path.md) on the job read again. ``graph.summary()``: %
        of the path's duration per bound type; ``graph.get_critical_path_breakdown()``: one row
        per edge on the path (µs). Instance ranges (a tuple) and data_load_events are not
        supported (ValueError). (graph, False) when the window has no path."""
        if isinstance(instance_id, tuple):
            raise ValueError("instance_id: ranges of instances are not supported; pass one")
        if data_load_events:
            raise ValueError("data_load_events: not supported")
        trace = _read([self.trace_files[r] for r in sorted(self.trace_files)],
                      threads=self._threads, keep_duplicates=True)
        tables = trace.critical_path(rank=rank, annotation=annotation,
                                     instance=0 if instance_id is None else int(instance_id))
        graph = CriticalPath(tables)
        return graph, graph.length_ns > 0


class CriticalPath:
    """A critical path as tracesweep's ``critical-path`` tables give it, with HTA's CPGraph
    accessors. ``tables``: every table of the command, as DataFrames."""

    def __init__(self, tables):
        self.tables = tables
        paths = tables["critical_path"]
        self.length_ns = int(paths["total_ns"].sum()) if len(paths) else 0

    def get_critical_path_breakdown(self):
        """One row per edge on the path, in path order: s_name (the event the edge is
        attributed to), duration (µs), type (the edge's type), bound_by, and tracesweep's own
        from/to columns; None when there is no path."""
        edges = self.tables["critical_path_edges"]
        if len(edges) == 0:
            return None
        out = pd.DataFrame({"s_name": edges["event"], "duration": edges["weight_ns"] / 1000.0,
                            "type": edges["type"], "bound_by": edges["bound_by"]})
        for column in ("from", "from_point", "from_ns", "to", "to_point", "to_ns"):
            out[column] = edges[column]
        return out

    def summary(self):
        """% of the path's duration per bound type (cpu_bound, gpu_compute_bound, …), as HTA's
        ``CPGraph.summary()``."""
        edf = self.get_critical_path_breakdown()
        if edf is None:
            raise ValueError("no critical path: nothing to summarise")
        return edf.groupby("bound_by")["duration"].sum() / edf["duration"].sum() * 100
