#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fleet scan throughput: 1,000 generated trace files (≥ 5 GB) scanned into a fresh results store
# at --jobs 1 and --jobs 2, side by side in one run: files/s, GB/s (file bytes), peak RSS.
#   bench/fleet/scan_bench.sh BUILD_DIR [WORK_DIR]
# The fleet: 450 Kineto JSON jobs of 2 rank files (13 steps, ~5.5 MB a file) and 100 nsys SQLite
# jobs of one 2-rank file (60 steps, ~4.7 MB), seeds all different; WORK_DIR keeps it between
# runs (generated once). Each scan runs twice (the first warms the page cache); the second is
# reported, so the figures are the tool's, not the disk's.
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [WORK_DIR]}"
work="${2:-$(mktemp -d)}"
bin="$build/src/cli/tracesweep"
fleet="$work/fleet"

if [[ ! -f $fleet/.complete ]]; then
  rm -rf "$fleet"
  mkdir -p "$fleet"
  for j in $(seq 0 449); do
    mkdir -p "$fleet/kineto/job$j"
    "$bin" generate --format kineto-json --ranks 2 --steps 13 --seed $((1000 + j)) \
      -o "$fleet/kineto/job$j/" >/dev/null
  done
  for j in $(seq 0 99); do
    mkdir -p "$fleet/nsys/job$j"
    "$bin" generate --format nsys-sqlite --ranks 2 --steps 60 --seed $((5000 + j)) \
      -o "$fleet/nsys/job$j/report.sqlite" >/dev/null
  done
  touch "$fleet/.complete"
fi

files=$(find "$fleet" -type f \( -name '*.json' -o -name '*.sqlite' \) | wc -l)
bytes=$(find "$fleet" -type f \( -name '*.json' -o -name '*.sqlite' \) -printf '%s\n' |
  awk '{s += $1} END {print s}')
echo "fleet: $files files, $(awk -v b="$bytes" 'BEGIN {printf "%.2f", b / 1e9}') GB in $fleet"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"

printf '%-7s %10s %10s %8s %10s %s\n' jobs seconds files/s GB/s "peak MiB" result
for jobs in 1 2; do
  for pass in warm measure; do
    rm -f "$work/results.sqlite" "$work/results.sqlite-wal" "$work/results.sqlite-shm"
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$bin" scan "$fleet" --db "$work/results.sqlite" \
      --jobs "$jobs" >"$work/scan.out" 2>"$work/scan.err" || {
      cat "$work/scan.err" >&2
      exit 1
    }
  done
  read -r seconds peak_kib <"$work/time.txt"
  awk -v j="$jobs" -v s="$seconds" -v f="$files" -v b="$bytes" -v p="$peak_kib" \
    -v r="$(cat "$work/scan.out")" \
    'BEGIN { printf "%-7s %10.2f %10.1f %8.3f %10.1f %s\n", j, s, f / s, b / 1e9 / s, p / 1024, r }'
done
