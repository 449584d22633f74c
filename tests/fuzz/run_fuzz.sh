#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every fuzz target of a TRACESWEEP_FUZZ=ON build for SECONDS, two at a time (two cores):
#   tests/fuzz/run_fuzz.sh BUILD_DIR SECONDS
# Each target starts from a fresh copy of the seeds (make_seeds.sh, built into
# BUILD_DIR/fuzz-seeds) plus its regression corpus (tests/fuzz/regressions/<target>/, every
# input of which runs first). Limits: -rss_limit_mb=2048, -timeout=10 (seconds per input).
# Exits non-zero, naming the target, the kind of failure, the input and the log, on any crash,
# leak, timeout, out-of-memory or sanitizer (ASan, UBSan) report. Prints each target's final
# cov:, ft:, corpus size and exec/s.
set -euo pipefail

if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 1
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
targets=(fuzz_chrome_events fuzz_decimal_time fuzz_gzip_source fuzz_nsys_reader fuzz_text_escaping
  fuzz_results_store)

for t in "${targets[@]}"; do
  if [[ ! -x "$build/tests/fuzz/$t" ]]; then
    echo "run_fuzz: $build/tests/fuzz/$t is not built (configure with -DTRACESWEEP_FUZZ=ON and" \
      "build the fuzz targets)" >&2
    exit 1
  fi
done

"$here/make_seeds.sh" "$build/fuzz-seeds"
work="$build/fuzz-run"
rm -rf "$work"
mkdir -p "$work"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# Starts target $1 in the background; its pid goes to pids[$1].
declare -A pids
start() {
  local t="$1"
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp -r "$build/fuzz-seeds/$t/." "$work/$t/corpus/"
  local dirs=("$work/$t/corpus")
  if [[ -d "$here/regressions/$t" ]]; then dirs+=("$here/regressions/$t"); fi
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" "${dirs[@]}" \
    >"$work/$t/log" 2>&1 &
  pids[$t]=$!
}

failed=0
# Waits for target $1 and reports it.
finish() {
  local t="$1" rc=0
  wait "${pids[$t]}" || rc=$?
  local log="$work/$t/log"
  local done_line  # libFuzzer's last status line ("#N  NEW|REDUCE|pulse|DONE  cov: …")
  done_line="$(grep -E '^#[0-9]+[[:space:]].* cov: ' "$log" | tail -1 || true)"
  local kind=""
  if grep -q 'runtime error:' "$log"; then kind="UBSan report"
  elif grep -q 'ERROR: AddressSanitizer' "$log"; then kind="AddressSanitizer report"
  elif grep -q 'ERROR: LeakSanitizer' "$log"; then kind="leak"
  elif grep -q 'ERROR: libFuzzer: timeout' "$log"; then kind="timeout (over 10 s on one input)"
  elif grep -qE 'ERROR: libFuzzer: (out-of-memory|malloc)' "$log"; then kind="out of memory"
  elif grep -q 'ERROR: libFuzzer' "$log"; then kind="crash"
  elif ((rc != 0)); then kind="exit status $rc"
  elif [[ -z "$done_line" ]]; then kind="no final statistics"
  fi
  if [[ -n "$kind" ]]; then
    failed=1
    echo "run_fuzz: FAILED: $t: $kind" >&2
    { grep -E 'runtime error:|ERROR: |^fuzz_|SUMMARY:|^terminate called|what\(\):' "$log" || true; } |
      head -6 | sed 's/^/  /' >&2
    local a
    for a in "$work/$t/artifacts"/*; do
      [[ -e "$a" ]] && echo "  input: $a (add it to tests/fuzz/regressions/$t/ once fixed)" >&2
    done
    echo "  log: $log" >&2
    return
  fi
  local cov ft corp execs
  cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")"
  ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")"
  corp="$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$done_line")"
  execs="$(sed -nE 's/^stat::average_exec_per_sec:[[:space:]]*([0-9]+).*/\1/p' "$log" | tail -1)"
  printf 'run_fuzz: %-20s cov: %-6s ft: %-7s corp: %-12s exec/s: %s\n' "$t" "$cov" "$ft" \
    "$corp" "$execs"
}

echo "run_fuzz: ${#targets[@]} targets, ${seconds} s each, 2 at a time"
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pair=("${targets[@]:i:2}")
  for t in "${pair[@]}"; do start "$t"; done
  for t in "${pair[@]}"; do finish "$t"; done
done
if ((failed)); then
  echo "run_fuzz: failed (logs and inputs in $work)" >&2
  exit 1
fi
echo "run_fuzz: all targets passed"
