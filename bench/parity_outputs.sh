#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two builds' outputs byte for byte on every real trace and the bundled sample: the JSON of
# summary, diagnose --top 0, overview for each table and overview --compat tb (both tables); every
# stats report as CSV; and a fleet scan's report. A refactoring that must change no answer shows
# "same" on every line. Prints one line per differing run and a count; exit 1 when any differs.
#   usage: bench/parity_outputs.sh OLD_TRACESWEEP NEW_TRACESWEEP [TRACES_DIR] [WORK_DIR]
set -uo pipefail
old="$(realpath "$1")"
new="$(realpath "$2")"
here=$(cd "$(dirname "$0")/.." && pwd)
traces="$(realpath "${3:-$here/../shared/traces}")"
work="$(realpath -m "${4:-${TMPDIR:-/tmp}/tracesweep_parity}")"
rm -rf "$work" && mkdir -p "$work/old" "$work/new"
unset COLUMNS

inputs=()
while IFS= read -r f; do inputs+=("$traces/$f"); done < <(cd "$traces" && find kineto nsys -type f \
  \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | LC_ALL=C sort)
inputs+=("$traces/kineto/hta_trace_filter_2rank")
for f in "$here"/datasets/samples/*.sqlite; do inputs+=("$f"); done

overview_tables="overview model distributed kernels device memcpy userdefined perf operators
                 memory memory_ops memory_steps memory_timeline"
stats_reports="cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum cuda_api_sum nvtx_sum
               osrt_sum cuda_gpu_kern_gb_sum cuda_gpu_sum cuda_api_gpu_sum cuda_gpu_trace
               cuda_kern_exec_trace cuda_kern_exec_sum nvtx_kern_sum nvtx_gpu_proj_sum
               nvtx_pushpop_trace gpu_gaps gpu_time_util"

runs=0 differ=0
both() {  # both NAME ARGS...: one run of each build, outputs and exit codes compared
  local name="$1" b rc
  shift
  for b in old new; do
    local bin=$old
    [[ $b == new ]] && bin=$new
    rc=0
    "$bin" --threads 1 "$@" >"$work/$b/$name" 2>"$work/$b/$name.err" || rc=$?
    echo "# exit $rc" >>"$work/$b/$name"
  done
  runs=$((runs + 1))
  if ! cmp -s "$work/old/$name" "$work/new/$name" || ! cmp -s "$work/old/$name.err" "$work/new/$name.err"; then
    differ=$((differ + 1))
    echo "DIFFERENT: $name ($*)"
  fi
}

for in in "${inputs[@]}"; do
  label=$(echo "${in#"$traces"/}" | tr '/' '_')
  [[ $in == "$here"/datasets/* ]] && label="sample_$(basename "$in")"
  both "$label.summary.json" summary --format json "$in"
  both "$label.diagnose.json" diagnose --top 0 --format json "$in"
  for t in $overview_tables; do both "$label.overview.$t.json" overview --format json --table "$t" "$in"; done
  both "$label.overview.all.json" overview --format json "$in"
  both "$label.tb.json" overview --compat tb --format json "$in"
  both "$label.tb.operators.json" overview --compat tb --format json --table operators "$in"
  for r in $stats_reports; do both "$label.stats.$r.csv" stats --report "$r" --format csv "$in"; done
done

# A fleet scan of every Kineto job and nsys export, two workers, and its report.
for b in old new; do
  bin=$old
  [[ $b == new ]] && bin=$new
  "$bin" --threads 1 scan --db "$work/$b/fleet.db" --jobs 2 "$traces" >/dev/null 2>"$work/$b/scan.err"
  "$bin" report --db "$work/$b/fleet.db" --format json >"$work/$b/fleet.report.json" 2>&1
done
runs=$((runs + 1))
# The run's wall-clock times are the only fields that may differ.
python3 - "$work/old/fleet.report.json" "$work/new/fleet.report.json" <<'PY' ||
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("started_utc", "finished_utc")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
a, b = (strip(json.load(open(f))) for f in sys.argv[1:])
sys.exit(0 if a == b else 1)
PY
  { differ=$((differ + 1)); echo "DIFFERENT: fleet.report.json"; }

echo "parity: $runs runs, $differ different ($work)"
((differ == 0))
