#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Memory against the number of inputs and the number of idle gaps (issue 27, items 5 and 6).
#   bench/memory/inputs_and_gaps.sh BUILD_DIR [WORK_DIR]
# Inputs: one generated one-kernel Kineto file copied FILES times (FILE_COUNTS, default
# "1000 5000 20000"; --ranks-from order numbers them), read by summary, diagnose and overview.
# Prints peak RSS (/usr/bin/time -f %M) and the bytes each file adds past the one-file run:
# (peak(N) − peak(1)) / (N − 1), constant when memory grows linearly.
# Gaps: a Kineto trace of GAPS idle gaps (GAP_COUNTS, default "200000 1000000") diagnosed with
# one thread, --min-gap 1 (every hole) and --top 10 or --top 0 (text; and JSON, every gap
# written), against the same trace with no gap examined (--min-gap 10^15): the bytes a gap adds
# = (peak − that) / gaps.
# A run that fails (out of memory) prints its exit status instead of a figure.
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [WORK_DIR]}"
work="${2:-$(mktemp -d)}"
bin="$build/src/cli/tracesweep"
read -r -a file_counts <<<"${FILE_COUNTS:-1000 5000 20000}"
read -r -a gap_counts <<<"${GAP_COUNTS:-200000 1000000}"
mkdir -p "$work"

# Peak RSS in KiB of a command (its output discarded), or "exit N" when it fails.
peak() {
  local out
  out=$(/usr/bin/time -f '%x %M' "$@" 2>&1 >/dev/null | tail -1)
  if [[ ${out%% *} == 0 ]]; then echo "${out##* }"; else echo "exit ${out%% *}"; fi
}
# "peak MiB  bytes per unit" from KiB figures: peak, base, units.
per_unit() {
  if [[ $1 == exit* || $2 == exit* ]]; then printf '%10s %12s' "$1" "-"; return; fi
  awk -v p="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%10.1f %12.1f", p / 1024, (p - b) * 1024 / n }'
}

echo "== inputs: one-kernel Kineto files, --ranks-from order"
"$bin" generate --format kineto-json --ranks 1 --steps 1 --kernels-per-step 1 \
  -o "$work/one-" >/dev/null
printf '%-9s %7s %10s %12s\n' command files "peak MiB" "B/file"
for cmd in summary diagnose overview; do
  one=$(peak "$bin" --ranks-from order "$cmd" "$work/one-rank-0.json")
  printf '%-9s %7d %10s %12s\n' "$cmd" 1 "$(per_unit "$one" "$one" 1 | awk '{print $1}')" "-"
  for n in "${file_counts[@]}"; do
    dir="$work/files-$n"
    if [[ ! -d $dir ]]; then
      mkdir -p "$dir"
      # (bash's printf, no process a file: 20,000 files in seconds)
      content=$(<"$work/one-rank-0.json")
      for ((i = 0; i < n; ++i)); do
        printf -v name '%s/f-%06d.json' "$dir" "$i"
        printf '%s\n' "$content" >"$name"
      done
    fi
    printf '%-9s %7d %s\n' "$cmd" "$n" "$(per_unit "$(peak "$bin" --ranks-from order "$cmd" "$dir")" "$one" $((n - 1)))"
  done
done

echo "== gaps: diagnose --min-gap 1 on a trace of many short idle gaps"
# (written here: tracesweep generate makes about one gap a step.) GAPS + 1 kernels of 5 µs,
# 10 µs apart, each launched by a runtime call of one thread: a 5 µs gap after each but the
# last, with host context (the launches); 250 bytes a gap.
gaps_trace() {
  awk -v n="$(($1 + 1))" 'BEGIN {
    print "{\"traceEvents\":["
    for (i = 0; i < n; ++i) {
      t = 10 * i + 100
      printf "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},\n", t - 3, i + 1
      printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}%s\n", t, i + 1, (i + 1 < n ? "," : "")
    }
    print "]}"
  }'
}
printf '%-22s %9s %10s %12s\n' run gaps "peak MiB" "B/gap"
for g in "${gap_counts[@]}"; do
  trace="$work/gaps-$g.json"
  [[ -f $trace ]] || gaps_trace "$g" >"$trace"
  n=$("$bin" diagnose --min-gap 1 --top 1 --format json --table totals "$trace" |
    sed -nE 's/.*"gaps": *([0-9]+).*/\1/p')
  d=(--threads 1 diagnose)
  base=$(peak "$bin" "${d[@]}" --min-gap 1000000000000000 --top 10 "$trace")
  printf '%-22s %9d %10s %12s\n' "no gap examined" 0 "$(per_unit "$base" "$base" 1 | awk '{print $1}')" "-"
  printf '%-22s %9d %s\n' "--top 10" "$n" "$(per_unit "$(peak "$bin" "${d[@]}" --min-gap 1 --top 10 "$trace")" "$base" "$n")"
  printf '%-22s %9d %s\n' "--top 0" "$n" "$(per_unit "$(peak "$bin" "${d[@]}" --min-gap 1 --top 0 "$trace")" "$base" "$n")"
  printf '%-22s %9d %s\n' "--top 0 --format json" "$n" \
    "$(per_unit "$(peak "$bin" "${d[@]}" --min-gap 1 --top 0 --format json "$trace")" "$base" "$n")"
done
