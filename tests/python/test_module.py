# SPDX-License-Identifier: Apache-2.0
"""The tracesweep module against the command line, on every real trace: each result table of
each command equals the CLI's JSON (same tables, columns, values), errors carry the CLI's
one-line message, and Trace.events() holds the rows the trace files hold (Kineto: parsed here
with the json module; nsys: queried here with sqlite3)."""
import concurrent.futures
import gzip
import json
import math
import os
import re
import sqlite3
import subprocess

import numpy as np
import pandas as pd
import pytest

import tracesweep
from conftest import traces_folder

STATS_REPORTS = ["cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum",
                 "cuda_api_sum", "nvtx_sum", "osrt_sum", "cuda_gpu_kern_gb_sum", "cuda_gpu_sum",
                 "cuda_api_gpu_sum", "cuda_gpu_trace", "cuda_kern_exec_trace",
                 "cuda_kern_exec_sum", "nvtx_kern_sum", "nvtx_gpu_proj_sum",
                 "nvtx_pushpop_trace", "gpu_gaps", "gpu_time_util"]
# (command, options): every analysis command a Trace runs, each table of its JSON.
COMMANDS = ([("summary", {}), ("diagnose", {}), ("overview", {"table": "all"}),
             ("overview", {"table": "all", "compat": "tb"}), ("critical-path", {})]
            + [("stats", {"report": r}) for r in STATS_REPORTS])


def binary():
    path = os.environ.get("TRACESWEEP_BINARY")
    if not path:
        pytest.skip("TRACESWEEP_BINARY is not set (ctest sets it)")
    return path


def real_traces():
    root = traces_folder()
    found = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith((".sqlite", ".json", ".json.gz")):
                found.append(os.path.join(dirpath, name))
    return sorted(found)


def option_argv(options):
    argv = []
    for key, value in options.items():
        argv += ["--" + key.replace("_", "-"), str(value)]
    return argv


def cli(command, options, path):
    """The CLI's (exit code, JSON or None, stderr) for one command on one file."""
    argv = [binary(), "--threads", "1", command, "--format", "json", *option_argv(options),
            "--", path]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    document = json.loads(done.stdout) if done.returncode == 0 else None
    return done.returncode, document, done.stderr.strip()


def same_value(got, want):
    if want is None:
        return got is None or got is pd.NA or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, bool):
        return bool(got) == want
    if isinstance(want, (int, float)) and not isinstance(got, (str, list, dict)):
        if got is None or got is pd.NA:
            return False
        if isinstance(want, int) and isinstance(got, (int, np.integer)):
            return int(got) == want
        return math.isclose(float(got), float(want), rel_tol=1e-12, abs_tol=0.0)
    return got == want


def table_rows(want, shape):
    """The JSON table as rows of {column: value}."""
    if shape == "object":
        return [want]
    if shape == "map":
        return list(want.items())
    if shape == "list":
        return [[v] for v in want]
    return want


def assert_table(df, want, where):
    """Column by column: the frame's values as Python objects (nulls as None) against the JSON's;
    a column that is not equal as a whole is compared cell by cell with same_value."""
    shape = df.attrs["shape"]
    rows = table_rows(want, shape)
    assert len(df) == len(rows), (where, len(df), len(rows))
    columns = list(df.columns)
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            # (the JSON leaves out a null cell of the columns that say so)
            assert [c for c in columns if c in row] == list(row), (where, "row", i)
    for j, c in enumerate(columns):
        column = df.iloc[:, j]
        got = column.astype(object).where(column.notna(), None).tolist()
        wanted = [row.get(c) if isinstance(row, dict) else row[j] for row in rows]
        if got == wanted and all(type(g) is type(w) for g, w in zip(got, wanted)):
            continue
        for i, (g, w) in enumerate(zip(got, wanted)):
            assert same_value(g, w), (where, "row", i, c, g, w)


def assert_stats_frames(frames, document, where):
    """Trace.stats(): one DataFrame per report, its rows those of the JSON (with the source
    first when there are several)."""
    def label(entry):
        return entry.get("report", entry.get("rule"))

    assert sorted(frames) == sorted({label(r) for r in document}), where
    for report, df in frames.items():
        rows = []
        for part in (r for r in document if label(r) == report):
            ident = {k: v for k, v in part.items() if k not in ("report", "rule", "rows")}
            for row in part["rows"]:
                rows.append({**ident, **row} if len(document) > 1 else row)
        assert len(df) == len(rows), (where, report)
        if rows:
            records = df.astype(object).where(df.notna(), None).to_dict("records")
            for i, (got, want) in enumerate(zip(records, rows)):
                assert list(got) == list(want) or set(want) <= set(got), (where, report, i)
                for key, value in want.items():
                    assert same_value(got[key], value), (where, report, i, key)


@pytest.fixture(scope="module")
def traces():
    """Every real trace read once (with its error when it cannot be)."""
    out = {}
    for path in real_traces():
        try:
            out[path] = tracesweep.read(path, threads=1)
        except (ValueError, OSError) as error:
            out[path] = error
    return out


@pytest.fixture(scope="module")
def cli_results():
    """The CLI's answer to every command on every real trace (two processes at a time)."""
    jobs = [(c, o, p) for p in real_traces() for c, o in COMMANDS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda j: cli(*j), jobs))
    return {(c, json.dumps(o), p): a for (c, o, p), a in zip(jobs, answers)}


def test_there_are_real_traces():
    traces = real_traces()
    assert any(p.endswith(".sqlite") for p in traces)
    assert any(p.endswith(".json.gz") for p in traces)


@pytest.mark.parametrize("command,options", COMMANDS,
                         ids=[c + "-" + "-".join(map(str, o.values())) for c, o in COMMANDS])
def test_every_table_equals_cli_json(command, options, traces, cli_results):
    compared = 0
    for path, trace in traces.items():
        code, document, stderr = cli_results[(command, json.dumps(options), path)]
        where = f"{command} {options} {os.path.basename(path)}"
        if isinstance(trace, Exception):
            assert code == 2, where
            assert str(trace) == stderr, where
            continue
        if code != 0:
            expected = ValueError if code == 1 else tracesweep.InputError
            with pytest.raises(expected) as raised:
                trace.run(command, **options)
            assert str(raised.value) == stderr, where
            continue
        tables = trace.run(command, **options)
        if command == "stats":  # a list of reports, each with its source and rows
            assert_stats_frames(trace.stats(**options), document, where)
            document = {"reports": document}
        assert list(tables) == list(document), where
        for name, df in tables.items():
            assert_table(df, document[name], f"{where} table {name}")
            compared += 1
    assert compared > 0


def test_unreadable_input_raises_input_error(tmp_path):
    bad = tmp_path / "truncated.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "name": "k", "ts": 1')
    with pytest.raises(tracesweep.InputError) as raised:
        tracesweep.read(str(bad))
    assert isinstance(raised.value, OSError)
    assert str(bad) in str(raised.value) and "\n" not in str(raised.value)


def test_usage_error_raises_value_error():
    trace = tracesweep.read(next(p for p in real_traces() if p.endswith(".sqlite")), threads=1)
    with pytest.raises(ValueError):
        trace.stats("no_such_report")
    with pytest.raises(ValueError):
        trace.events(kinds=["no_such_kind"])


def test_stats_frames_keep_the_report_column_types():
    """Trace.stats() builds each report's DataFrame from its typed columns, not from JSON: an
    integer column stays integer where some rows have no value (pandas' Int64, the null as NA),
    strings stay str, on every real nsys export whose GPU trace has both kernels and memcpys."""
    integers = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "BlkX", "Reg/Trd", "Bytes (B)",
                "Strm"]
    checked = 0
    for path in (p for p in real_traces() if p.endswith(".sqlite")):
        try:
            trace = tracesweep.read(path, threads=1)
        except (ValueError, OSError):
            continue
        df = trace.stats("cuda_gpu_trace")["cuda_gpu_trace"]
        for column in integers:
            assert pd.api.types.is_integer_dtype(df[column]), (path, column, df[column].dtype)
        assert all(isinstance(n, str) for n in df["Name"]), path
        kernels, copies = df["GrdX"].notna(), df["Bytes (B)"].notna()
        if kernels.any() and copies.any():
            assert df["GrdX"].dtype == "Int64" and df["Bytes (B)"].dtype == "Int64", path
            assert not (kernels & copies).any(), path
            checked += 1
    assert checked > 0


# -- the events against the files themselves --------------------------------------------------

KINETO_KINDS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy",
                "Memcpy": "memcpy", "gpu_memset": "memset", "Memset": "memset",
                "cuda_runtime": "api_call", "cuda_driver": "api_call", "Runtime": "api_call",
                "cuda_sync": "synchronization", "cpu_op": "cpu_op", "Operator": "cpu_op",
                "user_annotation": "user_range", "gpu_user_annotation": "user_range"}
HOST_NAMED = ("cpu_op", "Operator", "user_annotation", "python_function")


def kineto_kind(cat, name):
    if cat in HOST_NAMED:
        if re.fullmatch(r"ProfilerStep#\d+", name):
            return "profiler_step"
        if name.startswith("enumerate(DataLoader)#"):
            return "data_loader"
        if name.startswith("Optimizer.step#"):
            return "optimizer"
    return KINETO_KINDS.get(cat, "other")


def decimal_ns(value):
    """A JSON number of µs as integer ns, exactly (the file's decimal text, not a double)."""
    text = repr(value) if isinstance(value, float) else str(value)
    whole, _, fraction = text.partition(".")
    return int(whole) * 1000 + int((fraction + "000")[:3])


def kineto_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        document = json.load(f, parse_float=str)
    events = document["traceEvents"] if isinstance(document, dict) else document
    base = int(document.get("baseTimeNanoseconds", 0)) if isinstance(document, dict) else 0
    rows = []
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and "dur" in e:
            start = decimal_ns(e["ts"]) + base
            rows.append((kineto_kind(e.get("cat", ""), e["name"]), e["name"], start,
                         start + decimal_ns(e["dur"])))
    return rows


NSYS_TABLES = {"kernel": ("CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"),
               "memcpy": ("CUPTI_ACTIVITY_KIND_MEMCPY", None),
               "memset": ("CUPTI_ACTIVITY_KIND_MEMSET", None),
               "api_call": ("CUPTI_ACTIVITY_KIND_RUNTIME", "nameId")}


def nsys_kind_totals(path):
    """Per kind: (rows, sum of start, sum of end, sorted names) as sqlite3 reads them."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {}
    for kind, (table, name_column) in NSYS_TABLES.items():
        if table not in tables:
            continue
        n, starts, ends = db.execute(
            f'SELECT count(*), coalesce(sum(start), 0), coalesce(sum("end"), 0) FROM {table}'
        ).fetchone()
        names = None
        if name_column:
            names = sorted(r[0] for r in db.execute(
                f"SELECT s.value FROM {table} t JOIN StringIds s ON s.id = t.{name_column}"))
        out[kind] = (n, starts, ends, names)
    return out


def totals(df):
    out = {}
    for kind, rows in df.groupby("kind", observed=True):
        out[str(kind)] = (len(rows), sum(rows["start_ns"].tolist()), sum(rows["end_ns"].tolist()))
    return out


@pytest.mark.parametrize("suffix", [".json.gz", ".sqlite"])
def test_events_equal_the_files_rows(suffix):
    checked = 0
    for path in real_traces():
        if not path.endswith(suffix):
            continue
        trace = tracesweep.read(path, threads=1, keep_duplicates=True)
        df = trace.events()
        assert len(df) == len(trace) == sum(i["events"] for i in trace.inputs)
        where = os.path.basename(path)
        if suffix == ".json.gz":
            rows = kineto_rows(path)
            assert [str(n) for n in df["name"]] == [r[1] for r in rows], where
            want = {}
            for kind, _, start, end in rows:
                n, s, e = want.get(kind, (0, 0, 0))
                want[kind] = (n + 1, s + start, e + end)
            assert totals(df) == want, where
        else:
            got = totals(df)
            for kind, (n, starts, ends, names) in nsys_kind_totals(path).items():
                assert got.get(kind, (0, 0, 0)) == (n, starts, ends), (where, kind)
                if names is not None:
                    rows = df[df["kind"] == kind]
                    assert sorted(str(x) for x in rows["name"]) == names, (where, kind)
        checked += 1
    assert checked > 0


def test_events_columns_and_selection():
    path = next(p for p in real_traces() if p.endswith("sampled_rank-0.json.gz"))
    trace = tracesweep.read(path, threads=1)
    everything = trace.events()
    assert list(everything.columns) == list(tracesweep.event_columns)
    assert everything["start_ns"].dtype == np.int64
    assert isinstance(everything["name"].dtype, pd.CategoricalDtype)
    kernels = trace.events(kinds="kernel", columns=["start_ns", "name"])
    assert list(kernels.columns) == ["start_ns", "name"]
    expected = everything[everything["kind"] == "kernel"]
    assert kernels["start_ns"].tolist() == expected["start_ns"].tolist()
    assert kernels["name"].astype(str).tolist() == expected["name"].astype(str).tolist()
