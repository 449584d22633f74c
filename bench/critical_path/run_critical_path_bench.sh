#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The critical path, tracesweep against Holistic Trace Analysis on the same file (issue 29): the
# ×20 Kineto benchmark trace of bench/run.sh (hta_df_index_resolver_v100 repeated 20 times with
# ../shared/bench/replicate_kineto.py, 951 MB, 4.3 M events), one step (the first ProfilerStep
# instance, as HTA's `annotation`/`instance_id` pick it), load included, at 1 thread. Runs both
# alternately REPS times (default 3) and prints the medians of wall time and peak RSS, their
# ratio, and both paths' lengths (they must be equal: HTA's whole µs × 1000).
# HTA is not a Debian package: pass an HTA checkout (its `hta` package is imported from there,
# nothing copied); it needs Debian's python3-pandas, python3-networkx, python3-plotly,
# python3-psutil and python3-ijson.
# Usage: bench/critical_path/run_critical_path_bench.sh BUILD_DIR HTA_CHECKOUT
# Inputs are kept in $TRACESWEEP_BENCH_WORK (default BUILD_DIR/bench-work) and made only once.
set -euo pipefail
source "$(dirname "$0")/../hta_reference/bench_common.sh"
ts="$build/src/cli/tracesweep"
[[ -x $ts ]] || { echo "$0: no $ts (build the tracesweep target first)" >&2; exit 1; }
make_x20_trace
rank=$("$ts" -q --threads 1 critical-path --format csv --table critical_path --annotation \
  ProfilerStep --instance 0 "$trace" | awk -F, 'NR == 2 { print $1 }')

hta_script=$(cat <<'EOF'
import logging, os, sys
os.environ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"] = "1"
sys.path.insert(0, sys.argv[1])
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
analysis = TraceAnalysis(trace_dir=sys.argv[2])
graph, ok = analysis.critical_path_analysis(rank=int(sys.argv[3]), annotation="ProfilerStep",
                                            instance_id=0)
graph.summary()
nodes = graph.critical_path_nodes
print("length_us", sum(graph.edges[u, v]["weight"] for u, v in zip(nodes, nodes[1:])))
EOF
)

for ((i = 1; i <= reps; i++)); do
  OMP_NUM_THREADS=1 measure "$work/cp_hta_$i" "$python" -c "$hta_script" "$hta" \
    "$work/hta_x20" "$rank"
  measure "$work/cp_ts_$i" "$ts" -q --threads 1 critical-path --format json --rank "$rank" \
    --annotation ProfilerStep --instance 0 "$trace"
done
ts_s=$(for ((i = 1; i <= reps; i++)); do cut -d' ' -f1 "$work/cp_ts_$i.time"; done | median)
hta_s=$(for ((i = 1; i <= reps; i++)); do cut -d' ' -f1 "$work/cp_hta_$i.time"; done | median)
ts_kb=$(for ((i = 1; i <= reps; i++)); do cut -d' ' -f2 "$work/cp_ts_$i.time"; done | median)
hta_kb=$(for ((i = 1; i <= reps; i++)); do cut -d' ' -f2 "$work/cp_hta_$i.time"; done | median)
ts_len=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['critical_path'][0]['total_ns'])" "$work/cp_ts_1.out")
hta_len=$(awk '/^length_us/ { print $2 * 1000 }' "$work/cp_hta_1.out")
echo "critical path of the first ProfilerStep of rank $rank, ${trace##*/} ($(stat -c %s "$trace") bytes), load included, 1 thread, median of $reps"
printf '| tool | time (s) | peak RSS (MiB) | path (ns) |\n|---|---|---|---|\n'
printf '| tracesweep critical-path | %s | %d | %s |\n' "$ts_s" $((ts_kb / 1024)) "$ts_len"
printf '| HTA critical_path_analysis + summary | %s | %d | %s |\n' "$hta_s" $((hta_kb / 1024)) "$hta_len"
awk -v a="$hta_s" -v b="$ts_s" -v c="$hta_kb" -v d="$ts_kb" \
  'BEGIN { printf "HTA / tracesweep: time %.1fx, peak RSS %.1fx\n", a / b, c / d }'
[[ $ts_len == "$hta_len" ]] && echo "same path length: yes" || echo "same path length: NO"
