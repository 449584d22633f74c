#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tracesweep.hta.TraceAnalysis against Holistic Trace Analysis's TraceAnalysis (issue 30): the
# same script for both (load + the six calls: get_gpu_kernel_breakdown,
# get_temporal_breakdown, get_idle_time_breakdown with interval stats, get_comm_comp_overlap,
# get_cuda_kernel_launch_stats, get_queue_length_summary, on every rank, visualize=False) on
#   - the ×20 Kineto benchmark trace of bench/run.sh (hta_df_index_resolver_v100 repeated 20
#     times with ../shared/bench/replicate_kineto.py, 951 MB, 4.3 M events), one rank;
#   - a 2-rank job: both rank files of the real kineto/hta_trace_filter_2rank, each repeated
#     400 times with replicate_kineto.py (1.9 M events per rank);
# at 1 thread (tracesweep --threads 1; OMP_NUM_THREADS=1 for both), alternately REPS times
# (default 3); prints the medians of wall time and peak RSS (/usr/bin/time) and their ratios,
# and whether both printed the same temporal breakdown.
# HTA is not a Debian package: pass an HTA checkout (its `hta` package is imported from there,
# nothing copied); it needs Debian's python3-pandas, python3-networkx, python3-plotly,
# python3-psutil and python3-ijson.
# Usage: bench/python/run_hta_facade_bench.sh BUILD_DIR HTA_CHECKOUT
# Inputs are kept in $TRACESWEEP_BENCH_WORK (default BUILD_DIR/bench-work) and made only once.
set -euo pipefail
source "$(dirname "$0")/../hta_reference/bench_common.sh"
[[ -d $build/python/tracesweep ]] || { echo "$0: no $build/python (build tracesweep_python)" >&2; exit 1; }
make_x20_trace
mkdir -p "$work/hta_2rank"
for r in 0 1; do
  if [[ ! -f $work/hta_2rank/rank-$r.json ]]; then
    "$python" "$peers/replicate_kineto.py" \
      "$traces/kineto/hta_trace_filter_2rank/sampled_rank-$r.json.gz" 400 "$work/rank-$r.tmp" >/dev/null
    mv "$work/rank-$r.tmp" "$work/hta_2rank/rank-$r.json"
  fi
done

# argv: IMPORT_PATH TRACE_DIR WHICH (hta | tracesweep)
script=$(cat <<'PY'
import logging, sys
sys.path.insert(0, sys.argv[1])
logging.disable(logging.WARNING)
if sys.argv[3] == "hta":
    from hta.trace_analysis import TraceAnalysis
    analysis = TraceAnalysis(trace_dir=sys.argv[2])
else:
    from tracesweep.hta import TraceAnalysis
    analysis = TraceAnalysis(trace_dir=sys.argv[2], threads=1)
ranks = analysis.t.get_ranks() if sys.argv[3] == "hta" else analysis.get_ranks()
analysis.get_gpu_kernel_breakdown(visualize=False)
temporal = analysis.get_temporal_breakdown(visualize=False)
analysis.get_idle_time_breakdown(ranks=ranks, visualize=False, show_idle_interval_stats=True)
analysis.get_comm_comp_overlap(visualize=False)
analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
analysis.get_queue_length_summary(ranks=ranks)
print(temporal.round(2).to_csv(index=False))
PY
)

column_of() { for ((i = 1; i <= reps; i++)); do cut -d' ' -f"$2" "$work/$1_$i.time"; done | median; }

printf '| job | tool | time (s) | peak RSS (MiB) |\n|---|---|---|---|\n' >"$work/facade_table.md"
summary=()
for job in x20 2rank; do
  dir="$work/hta_x20"
  [[ $job == 2rank ]] && dir="$work/hta_2rank"
  for ((i = 1; i <= reps; i++)); do
    OMP_NUM_THREADS=1 measure "$work/fa_hta_${job}_$i" "$python" -c "$script" "$hta" "$dir" hta
    OMP_NUM_THREADS=1 measure "$work/fa_ts_${job}_$i" "$python" -c "$script" "$build/python" "$dir" tracesweep
  done
  hs=$(column_of "fa_hta_$job" 1) ts=$(column_of "fa_ts_$job" 1)
  hk=$(column_of "fa_hta_$job" 2) tk=$(column_of "fa_ts_$job" 2)
  printf '| %s | HTA TraceAnalysis | %s | %d |\n| %s | tracesweep.hta.TraceAnalysis | %s | %d |\n' \
    "$job" "$hs" $((hk / 1024)) "$job" "$ts" $((tk / 1024)) >>"$work/facade_table.md"
  same=no
  cmp -s "$work/fa_hta_${job}_1.out" "$work/fa_ts_${job}_1.out" && same=yes
  summary+=("$(awk -v j="$job" -v a="$hs" -v b="$ts" -v c="$hk" -v d="$tk" -v s="$same" \
    'BEGIN { printf "%s: HTA / tracesweep: time %.1fx, peak RSS %.1fx; same temporal breakdown: %s", j, a / b, c / d, s }')")
done
echo "load + six calls, 1 thread, median of $reps; x20: ${trace##*/} $(stat -c %s "$trace") bytes;" \
  "2rank: $(cat "$work"/hta_2rank/rank-*.json | wc -c) bytes"
cat "$work/facade_table.md"
printf '%s\n' "${summary[@]}"
