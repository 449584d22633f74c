# SPDX-License-Identifier: Apache-2.0
"""tracesweep for Python: read a job once, get every result table as a pandas DataFrame.

    import tracesweep
    trace = tracesweep.read("traces/job/")            # files or folders, any mix of formats
    kernels = trace.summary()["kernels"]              # a dict of DataFrames, one per table
    events = trace.events(kinds=["kernel"])           # the rows themselves

The analyses are the command line's (the same code, the same options as keyword arguments:
``min_gap=1000`` is ``--min-gap 1000``); the tables and columns are those of its JSON output,
with the same names and units (times in integer ns). Errors raise ``ValueError`` for a usage
problem and ``tracesweep.InputError`` (an ``OSError``) for an input that cannot be read or
analysed, with the command line's one-line message. The GIL is released while reading and
analysing.
"""
import json as _json

import numpy as _np
import pandas as _pd

from . import _tracesweep as _native
from ._tracesweep import InputError, __version__, _Job, event_columns

__all__ = ["read", "Trace", "InputError", "__version__", "event_columns"]

_FILTERS = ("name", "time_range", "nvtx", "ranks", "steps")


def read(paths, threads=0, *, name=None, time_range=None, nvtx=None, ranks=None, steps=None,
         keep_duplicates=False, ranks_from=None, max_event_bytes=None,
         max_inflate_ratio=None, backend="auto"):
    """Reads one job: trace files or folders (a str, a path or a list of them), any mix of
    formats. ``threads`` works as ``--threads`` (0: every hardware thread). The filters narrow
    the job once, as the command line's --filter-name (``name``), --time-range, --filter-nvtx
    (``nvtx``), --ranks and --steps; ``ranks`` also takes a list of ints."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    paths = [str(p) for p in paths]
    given = {"name": name, "time_range": time_range, "nvtx": nvtx, "ranks": ranks, "steps": steps}
    filters = {}
    for key, value in given.items():
        if value is None:
            continue
        if key == "ranks" and not isinstance(value, str):
            value = ",".join(str(int(r)) for r in value)
        filters[key] = str(value)
    if max_event_bytes is None:
        max_event_bytes = _native.default_max_event_bytes
    if max_inflate_ratio is None:
        max_inflate_ratio = _native.default_max_inflate_ratio
    job = _Job(paths, int(threads), bool(keep_duplicates), ranks_from or "",
               int(max_event_bytes), int(max_inflate_ratio), filters)
    return Trace(job, paths, int(threads), backend)


def _option_args(options):
    """Keyword arguments as command-line options: min_gap=5 → --min-gap 5; True → a flag; a
    list → the option once per value."""
    args = []
    for key, value in options.items():
        if key in _FILTERS or key in ("filter_name", "filter_nvtx", "format"):
            raise ValueError(f"{key}: give row filters to tracesweep.read(); results are "
                             "DataFrames, not a format")
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args


def _series(column):
    values, present = column["values"], column["present"].astype(bool)
    kind = column["type"]
    if kind == "nested":  # JSON text (None where null)
        return _pd.Series([None if v is None else _json.loads(v) for v in values], dtype=object)
    if kind == "string":  # str (None where null)
        return _pd.Series(values, dtype=object)
    if kind == "boolean":
        if present.all():
            return _pd.Series(values.astype(bool))
        return _pd.Series(_pd.array(values.astype(bool), dtype="boolean")).where(present)
    if kind == "integer":
        if present.all():
            return _pd.Series(values, copy=False)
        return _pd.Series(_pd.arrays.IntegerArray(values, ~present))
    return _pd.Series(values, copy=False)  # real: NaN where null


def _frame(table):
    data = {c["name"]: _series(c) for c in table["columns"]}
    # (the dict keeps the columns' order; naming them again as columns= takes pandas 1.5 a slow
    # path: 25 s for 21 columns of 10 M rows, against milliseconds without)
    df = _pd.DataFrame(data, copy=False)
    df.attrs["units"] = {c["name"]: c["unit"] for c in table["columns"] if c["unit"]}
    df.attrs["shape"] = table["shape"]
    return df


def _categorical(codes, categories):
    categories = _pd.Index(categories, dtype=object)
    if not categories.is_unique:  # distinct byte strings that read alike once made valid UTF-8
        uniques, inverse = _np.unique(_np.asarray(categories, dtype=object), return_inverse=True)
        codes, categories = inverse[codes], _pd.Index(uniques, dtype=object)
    return _pd.Categorical.from_codes(codes, categories=categories)


class Trace:
    """One job read into tracesweep's columns. Every analysis method returns a dict of
    DataFrames by table name; ``df.attrs["units"]`` names each column's unit."""

    def __init__(self, job, paths, threads, backend):
        self._job, self.paths, self._threads, self._backend = job, paths, threads, backend
        self.notes = []

    @property
    def inputs(self):
        """The inputs read: path, format, ranks, events, skipped rows by reason."""
        return self._job.inputs()

    def __len__(self):
        return self._job.size()

    def memory_bytes(self):
        """The bytes the event table takes (columns, side tables, strings)."""
        return self._job.memory_bytes()

    def events(self, kinds=None, columns=None):
        """The rows as a DataFrame, in the table's order (each input's rows in file order):
        start_ns/end_ns int64 on the input's clock, kind, name and category (the producer's)
        as Categoricals, rank, device (-1 host), stream (-1 host rows), thread (-1 device rows),
        correlation (-1 none), bytes, input (index into ``inputs``); stream, thread,
        correlation and bytes are int32 when every value fits, else int64; on request (``columns``)
        also host_stream: the "stream" arg of a host row that carries one (Triton cpu_ops, MTIA
        events), else -1. ``kinds``: event kinds to
        keep (kernel, memcpy, memset, synchronization, api_call, user_range, cpu_op,
        profiler_step, data_loader, forward, backward, optimizer, os_call, other)."""
        if isinstance(kinds, str):
            kinds = [kinds]
        if isinstance(columns, str):
            columns = [columns]
        arrays = self._job.events(list(kinds or []), list(columns or []))
        data = {}
        for name in columns or event_columns:
            if name in ("kind", "name", "category"):
                data[name] = _categorical(arrays[name], arrays[name + "_categories"])
            else:
                data[name] = arrays[name]
        return _pd.DataFrame(data, copy=False)

    def memory_events(self):
        """The allocator records (Kineto [memory] events, Paddle's allocations, nsys memory
        usage): time_ns, input, rank, device, thread, bytes (signed change of pool), pool
        (allocated or reserved), allocated and reserved totals after the event."""
        a = self._job.memory_events()
        pool = _pd.Categorical.from_codes(a.pop("pool"), categories=["allocated", "reserved"])
        df = _pd.DataFrame(a, copy=False)
        df.insert(df.columns.get_loc("bytes") + 1, "pool", pool)
        return df

    def run(self, command, *args, **options):
        """Any analysis command of the command line on this job (``trace.run("stats",
        report="cuda_gpu_kern_sum")``): a dict of DataFrames by table name."""
        return {t["name"]: _frame(t) for t in self._tables(command, args, options)}

    def _tables(self, command, args, options, nested_frames=False):
        """The command's result tables as the native module hands them over (nested_frames:
        a nested table of rows as a table of its own rather than JSON text)."""
        argv = ["--threads", str(self._threads), "--backend", self._backend, command,
                *[str(a) for a in args], "--format", "json", *_option_args(options), "--",
                *self.paths]
        tables, notes = self._job.run(argv, nested_frames)
        self.notes = list(notes)
        return tables

    def summary(self, **options):
        """``tracesweep summary``: devices, kernels, gaps, inputs."""
        return self.run("summary", **options)

    def diagnose(self, **options):
        """``tracesweep diagnose``: the verdict, findings and their evidence tables."""
        return self.run("diagnose", **options)

    def overview(self, table="all", **options):
        """``tracesweep overview --table TABLE``: Paddle's summaries (``compat="tb"``: the
        TensorBoard plugin's)."""
        return self.run("overview", table=table, **options)

    def stats(self, report, **options):
        """``tracesweep stats --report REPORT``: nsys stats reports, one DataFrame per report
        name with the report's columns (the ``source`` column first, and ``rank`` for the
        expert rules, when the job has several inputs and ``merge`` is not given), typed as the
        report's columns (an integer column with nulls as pandas' Int64). ``run("stats",
        report=...)`` returns the JSON's shape instead: one ``reports`` table of (report,
        source, rows), each report's rows as the JSON's list of objects."""
        tables = self._tables("stats", (), {"report": report, **options}, nested_frames=True)
        reports = next(t for t in tables if t["name"] == "reports")
        nested = next(c for c in reports["columns"] if c["name"] == "rows")
        entries = _frame({**reports, "columns": [c for c in reports["columns"] if c is not nested]})
        label = "report" if "report" in entries.columns else "rule"  # expert rules: "rule"
        ident = [c for c in entries.columns if c != label]
        frames = {}
        for i, entry in enumerate(entries.to_dict("records")):
            table = nested["tables"][i]
            df = _frame(table) if table is not None else _pd.DataFrame(
                _json.loads(nested["values"][i] or "[]"))
            if len(entries) > 1:
                for position, column in enumerate(ident):
                    df.insert(position, column, entry[column])
            frames.setdefault(entry[label], []).append(df)
        return {name: _pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
                for name, parts in frames.items()}

    def collectives(self, **options):
        """NCCL collectives matched across ranks: ``collectives`` and ``collective_ranks``."""
        out = self.overview("collectives", **options)
        out.update(self.overview("collective_ranks", **options))
        return out

    def critical_path(self, **options):
        """``tracesweep critical-path``: the critical path of each step (what_if takes a list of
        'REGEX=FACTOR')."""
        return self.run("critical-path", **options)
