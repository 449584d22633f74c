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

    def take(self, mask):
        return _Rank({k: v[mask] for k, v in self.rows.items()}, self.names, self.cats)

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
        # (the job's event table lives only while its columns are taken)
        columns = self._columns(_read([files[r] for r in sorted(files)], threads=threads,
                                      keep_duplicates=True), sorted(files))
        self._ranks = self._load(*columns, include_last_profiler_step)

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

    def _load(self, per_rank, names, cats, include_last_step):
        starts = [r["ts"].min() for r in per_rank.values() if len(r["ts"])]
        origin = min(starts) if starts else 0.0
        step_names = [i for i, n in enumerate(names) if _STEP_NAME.match(n)]
        present = set(np.unique(np.concatenate([r["name"] for r in per_rank.values()])))
        steps = [i for i in step_names if i in present]
        out = {}
        for rank in list(per_rank):
            rows = per_rank.pop(rank)
            rows["ts"] -= origin
            r = self._link(_Rank(rows, names, cats))
            if len(steps) >= 2:
                r = self._drop_last_step(r, steps, include_last_step)
            if len(r.ts):
                out[rank] = r
        return out

    def _columns(self, trace, ranks):
        """Each rank's rows as HTA keeps them (every row but the ``Trace`` span), column by
        column, so that one column of the whole table is held beside them at a time."""
        job = trace._job  # noqa: SLF001 (the raw arrays, without a DataFrame around them)

        def column(name):
            return job.events([], [name])

        cats_codes = column("category")
        cats = np.asarray(cats_codes["category_categories"], dtype=object)
        cat = cats_codes["category"]
        del cats_codes
        inputs = column("input")["input"]
        # (an input's rows are contiguous, inputs in the order read)
        spans = [(int(np.searchsorted(inputs, k, "left")), int(np.searchsorted(inputs, k, "right")))
                 for k in range(len(ranks))]
        del inputs
        dropped = [np.flatnonzero(cat[a:b] == self._code(cats, "Trace")) for a, b in spans]

        def per_input(values):
            return [np.delete(values[a:b], d) for (a, b), d in zip(spans, dropped)]

        out = {rank: {} for rank in ranks}
        # The times first, while little else is held: their conversion needs a few temporaries.
        offsets = [i.get("clock_offset_ns", 0) for i in trace.inputs]
        starts = per_input(column("start_ns")["start_ns"])
        ends = per_input(column("end_ns")["end_ns"])
        for k, rank in enumerate(ranks):
            start, end = starts[k], ends[k]
            starts[k] = ends[k] = None
            start -= offsets[k]
            end -= offsets[k]
            out[rank]["ts"], out[rank]["dur"] = self._microseconds(start, end)
            del start, end
        del starts, ends
        for rank, part in zip(ranks, per_input(cat)):
            out[rank]["cat"] = part
        names_codes = column("name")
        names = np.asarray(names_codes["name_categories"], dtype=object)
        for rank, part in zip(ranks, per_input(names_codes["name"])):
            out[rank]["name"] = part
        del names_codes
        for rank, (a, b), d in zip(ranks, spans, dropped):
            out[rank]["index"] = np.delete(np.arange(a + 1, b + 1, dtype=np.int32), d)
        kind = column("kind")
        gpu_codes = [i for i, k in enumerate(kind["kind_categories"]) if k in _GPU_KINDS]
        gpu = np.isin(kind["kind"], gpu_codes) & (cat != self._code(cats, "gpu_user_annotation"))
        del kind, cat
        stream = np.where(gpu, column("stream")["stream"], column("host_stream")["host_stream"])
        del gpu
        for rank, part in zip(ranks, per_input(stream)):
            out[rank]["stream"] = part
        del stream
        for rank, part in zip(ranks, per_input(column("correlation")["correlation"])):
            out[rank]["correlation"] = part
        return out, names, cats

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
        linked = np.minimum(r.correlation, 0).astype(np.int64)
        has = r.correlation != -1
        gpu = self._gpu_rows(r)
        for side, other in ((has & ~gpu, has & gpu), (has & gpu, has & ~gpu)):
            partner = pd.Series(r.index[other], index=r.correlation[other])
            partner = partner[~partner.index.duplicated(keep="last")]
            rows = np.flatnonzero(side)
            found = partner.reindex(r.correlation[rows]).to_numpy()
            hit = ~np.isnan(found)
            linked[rows[hit]] = found[hit].astype(np.int64)
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
        return r.take(order)

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
            g = r.take(r.stream != -1)
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
            g = r.take(r.stream != -1)
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
        k = r.take((r.stream != -1) & np.isin(r.cat, cats))
        where = pd.Series(r.ts, index=r.index)
        where = where[~where.index.duplicated(keep="first")]
        ts_runtime = where.reindex(k.index_correlation).to_numpy()
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
            g = r.take(r.stream != -1)
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
            wanted = np.isin(r.correlation, np.unique(r.correlation[r.named(names)]))
            cpu = pd.DataFrame({"correlation": r.correlation, "dur": r.dur, "ts": r.ts})
            host, gpu = cpu[wanted & (r.stream == -1)], cpu[wanted & (r.stream != -1)]
            joined = host.merge(gpu, how="inner", on="correlation")
            joined["launch_delay"] = (joined["ts_y"] - joined["ts_x"] - joined["dur_x"]).clip(
                lower=0)
            joined = joined.rename(columns={"dur_x": "cpu_duration", "dur_y": "gpu_duration"})
            out[rank] = joined[["correlation", "cpu_duration", "gpu_duration", "launch_delay"]]
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
        launch = r.named(_QUEUED_LAUNCHES) & (r.index_correlation > 0)
        gpu = r.stream != -1
        gpu_stream = pd.Series(r.stream[gpu], index=r.correlation[gpu])
        calls = pd.DataFrame({"ts": r.ts[launch], "correlation": r.correlation[launch],
                              "queue": 1})
        calls = calls.join(gpu_stream.rename("stream"), on="correlation")
        done = np.isin(r.correlation, r.correlation[launch]) & gpu
        kernels = pd.DataFrame({"ts": r.ts[done], "correlation": r.correlation[done],
                                "queue": -1, "stream": r.stream[done]})
        if len(calls) != len(kernels):
            raise AssertionError(f"{len(calls)} launches but {len(kernels)} GPU rows they "
                                 "launched (HTA asserts the same)")
        merged = pd.concat([calls, kernels], ignore_index=True).sort_values("ts", kind="stable")
        parts = []
        for stream, rows in merged.groupby("stream"):
            rows = rows.copy()
            rows["queue_length"] = rows["queue"].cumsum()
            parts.append(rows)
        return pd.concat(parts) if parts else None

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
