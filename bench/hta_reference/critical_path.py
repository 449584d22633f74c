#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Records Holistic Trace Analysis's critical path on HTA's own four critical-path test traces.

HTA is not a Debian package: pass the path of an HTA checkout (its `hta` package is imported from
there; nothing of it is copied). Needs Debian's python3-pandas, python3-networkx, python3-plotly,
python3-psutil and python3-ijson. Prints one JSON object per trace, the values the critical-path
tests compare with (tests/analysis/critical_path/hta_reference.json holds the last recording):

    /usr/bin/python3 bench/hta_reference/critical_path.py --hta ~/src/HolisticTraceAnalysis \
        --traces ../shared/traces/kineto > hta_reference.json

Times are HTA's: whole microseconds. HTA's tests set CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1
(a zero-weight edge from every launch call to its kernel), and so does this script.
"""
import argparse
import io
import json
import os
import re
import sys
from contextlib import redirect_stdout

CASES = [
    ("hta_critical_path_simple_add", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("hta_critical_path_alexnet", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("hta_critical_path_cuda_event_sync", "ProfilerStep", 0),
    ("hta_critical_path_cuda_event_sync_multi_stream", "", None),
]


def record(trace_dir, annotation, instance):
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=trace_dir)
    graph, ok = analysis.critical_path_analysis(
        rank=0, annotation=annotation, instance_id=instance
    )
    if not ok:
        return {"ok": False}
    breakdown = graph.get_critical_path_breakdown()
    with redirect_stdout(io.StringIO()):
        shares = graph.summary()
    path_weight = sum(
        graph.edges[u, v]["weight"]
        for u, v in zip(graph.critical_path_nodes, graph.critical_path_nodes[1:])
    )
    # [type, weight, from, to] per edge in path order (times from HTA's trace start)
    edges = [
        [
            str(graph.edges[u, v]["object"].type.value).replace("critical_path_", ""),
            int(graph.edges[u, v]["object"].weight),
            int(graph.node_list[u].ts),
            int(graph.node_list[v].ts),
        ]
        for u, v in zip(graph.critical_path_nodes, graph.critical_path_nodes[1:])
    ]
    return {
        "ok": True,
        "total_us": int(path_weight),
        "breakdown_total_us": int(breakdown.duration.sum()),
        "edges": len(edges),
        "nodes_in_graph": graph.number_of_nodes(),
        "edges_in_graph": graph.number_of_edges(),
        "share_pct": {(k if k else "dependency"): float(v) for k, v in shares.items()},
        "duration_us": {
            (k if k else "dependency"): int(v)
            for k, v in breakdown.groupby("bound_by").duration.sum().items()
        },
        "path": edges,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hta", required=True, help="an HTA checkout (holds hta/)")
    parser.add_argument("--traces", required=True, help="the shared traces' kineto folder")
    args = parser.parse_args()
    os.environ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"] = "1"
    sys.path.insert(0, os.path.abspath(args.hta))
    import logging

    logging.disable(logging.WARNING)
    import networkx
    import pandas
    from hta.version import __version__ as hta_version

    out = {
        "recorded_with": f"HTA {hta_version}, networkx {networkx.__version__}, "
        f"pandas {pandas.__version__}; CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1; whole "
        "microseconds; path times from HTA's trace start"
    }
    for folder, annotation, instance in CASES:
        with redirect_stdout(io.StringIO()):
            out[folder] = record(os.path.join(args.traces, folder), annotation, instance)
        out[folder].update({"annotation": annotation, "instance": instance})
    text = json.dumps(out, indent=1)
    # one line per path edge
    text = re.sub(r"\[\s+(\"[a-z_]+\"),\s+(-?\d+),\s+(-?\d+),\s+(-?\d+)\s+\]", r"[\1, \2, \3, \4]", text)
    print(text)


if __name__ == "__main__":
    main()
