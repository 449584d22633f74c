# SPDX-License-Identifier: Apache-2.0
# Shared by the benchmarks against Holistic Trace Analysis (bench/critical_path,
# bench/python): sourced after `set -euo pipefail` with the script's BUILD_DIR and
# HTA_CHECKOUT arguments. Sets root, build, hta, reps (REPS, default 3), peers, traces, work
# ($TRACESWEEP_BENCH_WORK, default BUILD_DIR/bench-work) and python ($PYTHON, default
# /usr/bin/python3); checks the checkout and /usr/bin/time; defines:
#   make_x20_trace  the ×20 Kineto benchmark trace of bench/run.sh (hta_df_index_resolver_v100
#                   repeated 20 times with ../shared/bench/replicate_kineto.py, 951 MB), made
#                   once, as $work/kineto_x20.json, and $work/hta_x20/rank-0.json linked to it
#                   (HTA reads a folder of rank traces); sets `trace`;
#   measure PREFIX CMD...  wall seconds and peak RSS (KiB) of one run into PREFIX.time, its
#                   output into PREFIX.out and PREFIX.err;
#   median          the median of the numbers on stdin, one per line.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?BUILD_DIR}" && pwd)
hta=$(cd "${2:?HTA_CHECKOUT}" && pwd)
reps=${REPS:-3}
peers="$root/../shared/bench"
traces="${TRACESWEEP_TRACES:-$root/../shared/traces}"
work="${TRACESWEEP_BENCH_WORK:-$build/bench-work}"
python="${PYTHON:-/usr/bin/python3}"
[[ -d $hta/hta ]] || { echo "$0: $hta holds no hta package" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "$0: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

make_x20_trace() {
  mkdir -p "$work/hta_x20"
  trace="$work/kineto_x20.json"
  if [[ ! -f $trace ]]; then
    "$python" "$peers/replicate_kineto.py" \
      "$traces/kineto/hta_df_index_resolver_v100/df_index_resolver.json.gz" 20 "$trace.tmp" >/dev/null
    mv "$trace.tmp" "$trace"
  fi
  ln -sf "$trace" "$work/hta_x20/rank-0.json"
}

measure() {
  local prefix=$1
  shift
  /usr/bin/time -f "%e %M" -o "$prefix.time" "$@" >"$prefix.out" 2>"$prefix.err"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
