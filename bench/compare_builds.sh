#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two builds of tracesweep side by side on the inputs of bench/chrome and bench/nsys, interleaved
# run by run, median of 3 (REPS=5 in the environment for 5), --threads 1: did a change make the
# tool slower?
#   inputs: hta_negative_queue_length_a100 replicated ×45 with ../shared/bench/replicate_kineto.py
#   (plain and .gz), and a generated nsys export of 21.5 M events (4 ranks × 2 GPUs);
#   commands: summary --format json, stats --report cuda_gpu_kern_sum --format csv, overview
#   --format json (Kineto), diagnose --format json.
# Prints seconds per build and new/old; outputs of the two builds are compared byte for byte
# (JSON also as parsed documents, for layout-only changes).
# usage: bench/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORK_DIR] [EVENTS] [THREADS]
# (THREADS: --threads of every run, 1 by default)
set -euo pipefail
old="$(realpath "$1")/src/cli/tracesweep"
new="$(realpath "$2")/src/cli/tracesweep"
here=$(cd "$(dirname "$0")/.." && pwd)
shared="$here/../shared"
work=${3:-${TMPDIR:-/tmp}/tracesweep_compare}
events=${4:-21500000}
threads=${5:-1}
reps=${REPS:-3}
mkdir -p "$work"
real="$shared/traces/kineto/hta_negative_queue_length_a100/rank0.json.gz"
[[ -f $work/real.json ]] || python3 "$shared/bench/replicate_kineto.py" "$real" 45 "$work/real.json"
[[ -f $work/real.json.gz ]] || gzip -6 -k "$work/real.json"
nsys="$work/bench_${events}.sqlite"
[[ -f $nsys ]] || "$new" generate --format nsys-sqlite --ranks 4 --devices 2 --events "$events" -o "$nsys" >/dev/null

seconds() {  # seconds CMD...: wall time of one run, output into $work/out
  local s e
  s=$(date +%s.%N)
  "$@" >"$work/out"
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }

echo "== $(date -u '+%F %H:%M') UTC, --threads $threads, median of $reps, $(nproc) CPUs: $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %-22s %9s %9s %9s %s\n' command input "old s" "new s" new/old same
compare() {  # compare INPUT ARGS...
  local in=$1
  shift
  local to=() tn=()
  for ((rep = 0; rep < reps; ++rep)); do
    to+=("$(seconds "$old" --threads "$threads" "$@" "$in")")
    cp "$work/out" "$work/out.old"
    tn+=("$(seconds "$new" --threads "$threads" "$@" "$in")")
  done
  local mo mn same=yes
  mo=$(median "${to[@]}")
  mn=$(median "${tn[@]}")
  if ! cmp -s "$work/out" "$work/out.old"; then
    same=NO
    # JSON whose layout changed on purpose (README "Output changes"): equal as parsed documents,
    # key order and integer / floating types included?
    python3 -c 'import json,sys
a,b=(json.load(open(f),object_pairs_hook=list) for f in sys.argv[1:])
sys.exit(0 if a==b else 1)' "$work/out" "$work/out.old" 2>/dev/null && same="yes (JSON layout)"
  fi
  printf '%-44s %-22s %9.2f %9.2f %9.2f %s\n' "$*" "$(basename "$in")" "$mo" "$mn" \
    "$(echo "$mn / $mo" | bc -l)" "$same"
}
for f in "$work/real.json" "$work/real.json.gz"; do
  compare "$f" summary --format json
  compare "$f" stats --report cuda_gpu_kern_sum --format csv
  compare "$f" overview --format json
  compare "$f" diagnose --format json
done
compare "$nsys" stats --report cuda_gpu_kern_sum --format csv
compare "$nsys" summary --format json
compare "$nsys" diagnose --format json
echo "== load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
