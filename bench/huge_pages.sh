#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What marking the heap for transparent huge pages (src/cli/huge_page_heap.cpp) is worth: the
# same executable run as built and with madvise() made a no-op by a preloaded shim (compiled here
# with cc), interleaved run by run, median of 3 (REPS=5 for 5). Commands: stats
# cuda_gpu_kern_sum (1 thread) and summary (1 and 2 threads) on the nsys exports, summary (1 and
# 2 threads) on the Kineto trace, overview on the 1 M export; inputs are bench/run.sh's (run it
# once first). Prints seconds, peak RSS and with/without; outputs are compared byte for byte.
# usage: bench/huge_pages.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
ts="$build/src/cli/tracesweep"
work="${TRACESWEEP_BENCH_WORK:-$build/bench-work}"
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <stddef.h>\nint madvise(void *a, size_t n, int f) { (void)a; (void)n; (void)f; return 0; }\n' >"$tmp/shim.c"
cc -O2 -shared -fPIC -o "$tmp/no_madvise.so" "$tmp/shim.c"

run() {  # run WITH(0|1) OUT CMD...: "seconds kb" of one run
  local pre=()
  [[ $1 == 1 ]] || pre=(env LD_PRELOAD="$tmp/no_madvise.so")
  "${pre[@]}" /usr/bin/time -f '%e %M' -o "$tmp/time" "${@:3}" >"$2"
  cat "$tmp/time"
}
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }

cases=()
for f in "$work"/nsys_*_kernels.sqlite; do
  cases+=("$f|--threads 1 stats --report cuda_gpu_kern_sum --format csv"
          "$f|--threads 1 summary --format json" "$f|--threads 2 summary --format json")
done
cases+=("$work/nsys_1000000_kernels.sqlite|--threads 1 overview --format json")
for f in "$work"/kineto_x20.json; do
  [[ -f $f ]] && cases+=("$f|--threads 1 summary --format json" "$f|--threads 2 summary --format json")
done
echo "== $(date -u '+%F %H:%M') UTC, median of $reps, $(nproc) CPUs: $(lscpu | sed -n 's/^Model name: *//p'), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
printf '%-30s %-52s %8s %8s %9s %9s %s\n' input command "with s" "w/o s" "w/o/with" "RSS MB" same
for c in "${cases[@]}"; do
  f=${c%%|*}
  read -ra args <<<"${c#*|}"
  [[ -f $f ]] || continue
  with=() without=() kb=0
  for ((i = 0; i < reps; i++)); do
    read -r s k < <(run 1 "$tmp/a" "$ts" "${args[@]}" "$f")
    with+=("$s") kb=$k
    read -r s k < <(run 0 "$tmp/b" "$ts" "${args[@]}" "$f")
    without+=("$s")
  done
  a=$(median "${with[@]}") b=$(median "${without[@]}")
  same=$(cmp -s "$tmp/a" "$tmp/b" && echo yes || echo NO)
  printf '%-30s %-52s %8.2f %8.2f %8.2fx %9d %s\n' "$(basename "$f")" "${args[*]}" "$a" "$b" \
    "$(echo "$b / $a" | bc -l)" $((kb / 1024)) "$same"
done
