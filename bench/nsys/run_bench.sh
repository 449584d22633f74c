#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# nsys benchmark: generates an nsys-schema SQLite export with >= 10M kernels and >= 10M runtime
# rows (4 processes x 2 GPUs, realistic templated kernel names) with `tracesweep generate`, then
# side by side, median of 3:
#   tracesweep stats --report cuda_gpu_kern_sum --format csv FILE
#   sqlite3 -csv FILE < ../shared/bench/nsys_kern_sum.sql      (the fixed baseline, as given)
# and the reader's ingest rate at --threads 1 and 2 (nsys_ingest_bench).
# Usage: bench/nsys/run_bench.sh BUILD_DIR [WORK_DIR] [EVENTS]
set -euo pipefail
build=${1:?usage: run_bench.sh BUILD_DIR [WORK_DIR] [EVENTS]}
work=${2:-${TMPDIR:-/tmp}/tracesweep_nsys_bench}
events=${3:-21500000}
here=$(cd "$(dirname "$0")" && pwd)
sql="$here/../../../shared/bench/nsys_kern_sum.sql"
ts="$build/src/cli/tracesweep"
mkdir -p "$work"
file="$work/bench_${events}.sqlite"
if [[ ! -f $file ]]; then
  /usr/bin/time -f "generate: %e s" "$ts" generate --format nsys-sqlite --ranks 4 --devices 2 \
    --events "$events" -o "$file"
fi
echo "file: $file ($(du -hL "$file" | cut -f1))"
echo "kernels: $(sqlite3 "$file" 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL')," \
     "runtime: $(sqlite3 "$file" 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME')"
median3() {  # runs "$@" three times, prints the median wall time in seconds
  local t=()
  for _ in 1 2 3; do
    local s=$(date +%s.%N)
    "$@" > /dev/null
    local e=$(date +%s.%N)
    t+=("$(echo "$e - $s" | bc)")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}
ours=$(median3 "$ts" stats --report cuda_gpu_kern_sum --format csv "$file")
base=$(median3 sh -c "sqlite3 -csv '$file' < '$sql'")
echo "tracesweep stats --report cuda_gpu_kern_sum: ${ours} s (median of 3)"
echo "sqlite3 -csv FILE < nsys_kern_sum.sql:       ${base} s (median of 3)"
echo "speedup: $(echo "scale=2; $base / $ours" | bc)x"
"$build/bench/nsys/nsys_ingest_bench" "$file" 1 2
