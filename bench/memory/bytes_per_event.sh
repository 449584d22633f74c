#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Memory per event: peak resident memory of tracesweep over the events it keeps, for generated
# Kineto JSON and nsys SQLite traces of N events, with one and with all threads.
#   bench/memory/bytes_per_event.sh BUILD_DIR [EVENTS] [WORK_DIR]
# Prints, per format, command and thread count: events kept, peak RSS (MiB, /usr/bin/time -f %M),
# the same for a 2-step trace (the process's fixed cost), and (peak − fixed) / events.
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [EVENTS] [WORK_DIR]}"
events="${2:-4000000}"
work="${3:-$(mktemp -d)}"
bin="$build/src/cli/tracesweep"
mkdir -p "$work"

"$bin" generate --format kineto-json --ranks 1 --steps 2 -o "$work/small-" >/dev/null
"$bin" generate --format nsys-sqlite --ranks 1 --steps 2 -o "$work/small.sqlite" >/dev/null
"$bin" generate --format kineto-json --ranks 1 --events "$events" -o "$work/big-" >/dev/null
"$bin" generate --format nsys-sqlite --ranks 1 --events "$events" -o "$work/big.sqlite" >/dev/null

peak_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
kept() {  # events read (every kind), as a scan stores them: the summary counts GPU operations
  rm -f "$work/count.sqlite"
  "$bin" --quiet scan --db "$work/count.sqlite" "$1" >/dev/null
  sqlite3 "$work/count.sqlite" 'SELECT events FROM traces'
}

printf '%-12s %-9s %-7s %12s %10s %10s %12s\n' format command threads events "peak MiB" \
  "fixed MiB" "bytes/event"
for fmt in kineto nsys; do
  if [[ $fmt == kineto ]]; then big="$work/big-rank-0.json" small="$work/small-rank-0.json"
  else big="$work/big.sqlite" small="$work/small.sqlite"; fi
  n=$(kept "$big")
  for cmd in summary diagnose; do
    for threads in 1 0; do
      fixed=$(peak_kib "$bin" --threads "$threads" "$cmd" "$small")
      peak=$(peak_kib "$bin" --threads "$threads" "$cmd" "$big")
      awk -v f="$fmt" -v c="$cmd" -v t="$threads" -v n="$n" -v p="$peak" -v x="$fixed" \
        'BEGIN { printf "%-12s %-9s %-7s %12d %10.1f %10.1f %12.1f\n", f, c, (t == 0 ? "all" : t),
                 n, p / 1024, x / 1024, (p - x) * 1024 / n }'
    done
  done
done
