# SPDX-License-Identifier: Apache-2.0
"""tracesweep.hta.TraceAnalysis against Holistic Trace Analysis's own DataFrames, recorded by
bench/hta_reference/facade.py (HTA 0.6.1) in hta_facade_reference.json, on the real Kineto
traces: the same columns, index and values (1e-6 relative, or 1 µs on times)."""
import json
import math
import os
import pathlib

import numpy as np
import pandas as pd
import pytest

from conftest import traces_folder

REFERENCE = pathlib.Path(__file__).with_name("hta_facade_reference.json")

TIME_WORDS = ("(us)", "sum", "max", "min", "mean", "idle_time", "duration", "launch_delay",
              "25%", "50%", "75%", "std")


def reference():
    with REFERENCE.open() as f:
        return json.load(f)


def job_ids():
    return sorted(reference()["jobs"])


@pytest.fixture(scope="module")
def recorded():
    return reference()


@pytest.fixture(scope="module")
def analyses(tmp_path_factory):
    """One TraceAnalysis per job, as the recording built its folders."""
    from tracesweep.hta import TraceAnalysis

    root = traces_folder()
    cache = {}

    def get(job):
        if job not in cache:
            path = root / job
            if path.is_dir():
                folder = path
            else:
                folder = tmp_path_factory.mktemp("job")
                (folder / path.name).symlink_to(path)
            cache[job] = TraceAnalysis(trace_dir=str(folder), threads=1)
        return cache[job]

    return get


def close(got, want, column):
    if want is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, str) or isinstance(got, str):
        return str(got) == str(want)
    got, want = float(got), float(want)
    if math.isnan(got):
        return False
    slack = 1.0 if any(w in str(column) for w in TIME_WORDS) else 0.0
    return abs(got - want) <= max(1e-6 * abs(want), slack, 1e-9)


def frame_cells(df):
    """A DataFrame as the recording stores one: columns, index labels, rows."""
    def label(v):
        if isinstance(v, tuple):
            return [label(x) for x in v]
        if isinstance(v, (np.integer,)):
            return int(v)
        if isinstance(v, (np.floating,)):
            return float(v)
        return v
    columns = [label(c) for c in df.columns]
    index = [label(i) for i in df.index]
    rows = [[None if (isinstance(v, float) and math.isnan(v)) else label(v) for v in row]
            for row in df.itertuples(index=False, name=None)]
    return columns, index, rows


def assert_frame(got, want, where):
    if "summary" in want:
        assert len(got) == want["summary"]["rows"], where
        for col in want["summary"]["columns"]:
            values = got[col["column"]].astype(float)
            for stat in ("sum", "min", "max"):
                assert close(getattr(values, stat)(), col[stat], col["column"]), \
                    (where, col["column"], stat)
        assert_frame(got.head(len(want["head"]["data"])), want["head"], where + " head")
        return
    columns, index, rows = frame_cells(got)
    assert columns == want["columns"], where
    assert index == want["index"], (where, "index")
    assert len(rows) == len(want["data"]), (where, len(rows), len(want["data"]))
    for i, (g, w) in enumerate(zip(rows, want["data"])):
        for c, a, b in zip(columns, g, w):
            assert close(a, b, c), (where, "row", i, "column", c, a, b)


def drop_zero_overlap_rows(want):
    """HTA's kernel-type table may hold 0-µs overlap rows from its sort's tie order."""
    want = dict(want)
    want["data"] = [r for r in want["data"] if not (r[1] == 0 and "overlapping" in r[0])]
    want["index"] = list(range(len(want["data"])))
    return want


CALLS = {
    "gpu_kernel_breakdown": lambda a: a.get_gpu_kernel_breakdown(visualize=False),
    "gpu_kernel_breakdown_all_kernels":
        lambda a: a.get_gpu_kernel_breakdown(visualize=False, num_kernels=1000),
    "gpu_kernel_breakdown_no_memory":
        lambda a: a.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=False),
    "temporal_breakdown": lambda a: a.get_temporal_breakdown(visualize=False),
    "idle_time_breakdown": lambda a: a.get_idle_time_breakdown(
        ranks=a.get_ranks(), visualize=False, show_idle_interval_stats=True),
    "comm_comp_overlap": lambda a: a.get_comm_comp_overlap(visualize=False),
    "cuda_kernel_launch_stats": lambda a: a.get_cuda_kernel_launch_stats(
        ranks=a.get_ranks(), visualize=False),
    "queue_length_summary": lambda a: a.get_queue_length_summary(ranks=a.get_ranks()),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("job", job_ids())
def test_call_equals_hta(job, call, recorded, analyses):
    want = recorded["jobs"][job][call]
    analysis = analyses(job)
    assert analysis.get_ranks() == recorded["jobs"][job]["ranks"]
    if isinstance(want, dict) and "error" in want:
        with pytest.raises(Exception):
            CALLS[call](analysis)
        return
    compare(job, call, CALLS[call](analysis), want)


def compare(job, call, got, want):
    where = f"{job} {call}"
    if call.startswith("gpu_kernel_breakdown"):
        assert_frame(got[0], drop_zero_overlap_rows(want[0]), where + " kernel_type_df")
        assert_frame(got[1], want[1], where + " kernel_df")
    elif call == "idle_time_breakdown":
        assert_frame(got[0], want[0], where + " idle")
        assert_frame(got[1], want[1], where + " stats")
        assert got[1].index.name == want[1]["index_names"][0]
    elif call == "cuda_kernel_launch_stats":
        assert sorted(str(r) for r in got) == sorted(want), where
        for rank, frame in got.items():
            assert_frame(frame, want[str(rank)], f"{where} rank {rank}")
    elif call == "queue_length_summary":
        if want is None:
            assert got is None, where
        else:
            assert list(got.index.names) == want["index_names"], where
            assert_frame(got, want, where)
    else:
        assert_frame(got, want, where)


def test_visualize_raises(analyses):
    a = analyses("kineto/hta_trace_filter_2rank")
    with pytest.raises(ValueError, match="visualize"):
        a.get_temporal_breakdown(visualize=True)


def test_unknown_rank_raises(analyses):
    a = analyses("kineto/hta_trace_filter_2rank")
    with pytest.raises(ValueError, match="rank 7"):
        a.get_cuda_kernel_launch_stats(ranks=[7], visualize=False)


def test_critical_path_analysis_is_the_cli_path(analyses):
    """critical_path_analysis(): the path of `tracesweep critical-path` (HTA's path on HTA's
    own critical-path traces: tests/analysis), with HTA's CPGraph accessors."""
    import subprocess

    binary = os.environ.get("TRACESWEEP_BINARY")
    if not binary:
        pytest.skip("TRACESWEEP_BINARY is not set (ctest sets it)")
    job = "kineto/hta_critical_path_simple_add/benchmark_result_493459_1694039959_trace.json.gz"
    graph, ok = analyses(job).critical_path_analysis(rank=0, annotation="", instance_id=0)
    assert ok
    done = subprocess.run([binary, "--threads", "1", "critical-path", "--format", "json",
                           "--rank", "0", "--annotation", "", "--instance", "0",
                           str(traces_folder() / job)], capture_output=True, text=True,
                          check=True)
    cli = json.loads(done.stdout)
    assert graph.length_ns == cli["critical_path"][0]["total_ns"] > 0
    edges = graph.get_critical_path_breakdown()
    assert len(edges) == len(cli["critical_path_edges"])
    assert edges["duration"].sum() * 1000 == pytest.approx(graph.length_ns, rel=1e-12)
    summary = graph.summary()
    assert summary.sum() == pytest.approx(100.0)
    for row in cli["critical_path_summary"]:
        assert summary[row["bound_by"]] == pytest.approx(100 * row["share"], rel=1e-9)
    with pytest.raises(ValueError, match="instance_id"):
        analyses(job).critical_path_analysis(rank=0, annotation="", instance_id=(0, 1))


# -- the facade's array helpers, against what they stand in for -----------------------------


def test_among_is_isin():
    from tracesweep.hta import _among

    rng = np.random.default_rng(7)
    values = rng.integers(-5, 50, 2000)
    for pool in (rng.integers(-3, 60, 40), np.array([], dtype=np.int64), np.array([49])):
        assert np.array_equal(_among(values, pool), np.isin(values, pool))


def test_inner_join_is_pandas_merge():
    """Pairs in pandas' merge order where the left keys are unique (HTA's launches); with
    repeated left keys, the same pairs as pandas' inner merge."""
    from tracesweep.hta import _inner_join

    rng = np.random.default_rng(11)
    right = rng.integers(0, 300, 3000)
    for left in (rng.permutation(400)[:250], rng.integers(0, 400, 500), np.array([], int)):
        got = _inner_join(left, right)
        merged = pd.DataFrame({"k": left, "l": np.arange(len(left))}).merge(
            pd.DataFrame({"k": right, "r": np.arange(len(right))}), how="inner", on="k")
        expected = (merged["l"].to_numpy(), merged["r"].to_numpy())
        if len(np.unique(left)) == len(left):
            assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
        else:
            assert sorted(zip(*got)) == sorted(zip(*expected))


def test_start_of_index_finds_the_first_row_of_each_index():
    from tracesweep.hta import TraceAnalysis, _Rank

    index = np.array([5, 3, 9, 3, 7], dtype=np.int32)  # (a repeated row, out of order)
    r = _Rank({"index": index, "ts": np.array([50.0, 30.0, 90.0, 31.0, 70.0])}, None, None)
    got = TraceAnalysis._start_of_index(r, np.array([3, 9, 4, 7, 0, 10]))
    assert np.array_equal(got, [30.0, 90.0, np.nan, 70.0, np.nan, np.nan], equal_nan=True)
    ordered = _Rank({"index": np.sort(index[[0, 1, 2, 4]]), "ts": np.array([1.0, 2, 3, 4])},
                    None, None)
    assert np.array_equal(TraceAnalysis._start_of_index(ordered, np.array([9, 3, 6])),
                          [4.0, 1.0, np.nan], equal_nan=True)
