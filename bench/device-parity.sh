#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-vs-CPU parity of the CLI, byte for byte, with timing: for every trace, `summary` and
# `diagnose --top 0` (JSON), every `overview` table (JSON; --compat tb too) and every
# `stats --report` (CSV, the report names read from `stats --help`), each run once with
# --backend GPU_BACKEND and once with --backend cpu; then a 2-worker `scan` of all the inputs
# with each backend, whose stores' `report` outputs (JSON, timestamps removed) must be equal.
# A command that fails counts as equal only when both backends fail with the same exit code
# and message. Writes OUTDIR/parity/{summary.txt,different.txt,runs.tsv} and
# OUTDIR/timing.{tsv,txt} (wall seconds summed per command; runs go 8 at a time, so the sums
# compare the backends under the same load, not alone).
# Comparisons not started by PARITY_DEADLINE (epoch seconds, when set) are skipped and counted
# as such, so that the summaries are written within a caller's time budget.
# Usage: bench/device-parity.sh TRACESWEEP GPU_BACKEND OUTDIR INPUT...  (files or directories)
set -uo pipefail
PARITY_DEADLINE="${PARITY_DEADLINE:-}"
ts="${1:?usage: device-parity.sh TRACESWEEP GPU_BACKEND OUTDIR INPUT...}"
gpu="${2:?}"
out="${3:?}"
shift 3
dir="$out/parity"
rm -rf "$dir" && mkdir -p "$dir/runs"

files=()
for input in "$@"; do
  if [[ -d "$input" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find -L "$input" -type f \( -name '*.sqlite' \
      -o -name '*.json' -o -name '*.json.gz' -o -name '*.jsonl' -o -name '*.pt.trace.json*' \) | sort)
  elif [[ -f "$input" ]]; then
    files+=("$input")
  fi
done
echo "${#files[@]} trace files"

reports=$("$ts" stats --help | sed -n 's/.*Report to compute: //p' | tr ',' '\n' |
  sed 's/^ *//; s/\[.*//' | sort -u)
[[ -n "$reports" ]] || { echo "no report names in stats --help"; exit 1; }
# The command lines (label, then arguments before the trace), one per line.
{
  echo "summary|summary --format json"
  echo "diagnose|diagnose --top 0 --format json"
  for t in all overview model distributed kernels device memcpy userdefined perf operators \
    memory; do
    echo "overview:$t|overview --format json --table $t"
  done
  echo "overview:tb|overview --compat tb --format json --table tb"
  echo "overview:tb_operators|overview --compat tb --format json --table operators"
  for r in $reports; do echo "stats:$r|stats --format csv --report $r"; done
} > "$dir/commands.txt"

# One comparison: both backends on one command and file; a line of runs.tsv per job.
one() {
  local id=$1 label=$2 args=$3 file=$4 b t0 t1
  local base="$dir/runs/$id"
  if [[ -n ${PARITY_DEADLINE:-} ]] && (($(date +%s) >= PARITY_DEADLINE)); then
    printf '%s\tskipped\t0\t0\t%s\n' "$label" "$file"
    return
  fi
  declare -A secs rc
  for b in gpu cpu; do
    local backend=$gpu
    [[ $b == cpu ]] && backend=cpu
    t0=$(date +%s%N)
    # shellcheck disable=SC2086  # args are words
    timeout 60 "$ts" -q --backend "$backend" $args "$file" > "$base.$b.out" 2> "$base.$b.err"
    rc[$b]=$?
    t1=$(date +%s%N)
    secs[$b]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  done
  local verdict=equal
  if [[ ${rc[gpu]} != "${rc[cpu]}" ]]; then
    verdict="different-exit(${rc[gpu]}/${rc[cpu]})"
  elif ! cmp -s "$base.gpu.out" "$base.cpu.out"; then
    verdict="different-output"
  elif [[ ${rc[gpu]} != 0 ]] && ! cmp -s "$base.gpu.err" "$base.cpu.err"; then
    verdict="different-error"
  elif [[ ${rc[gpu]} != 0 ]]; then
    verdict="equal-failure(${rc[gpu]})"
  fi
  [[ $verdict == equal* ]] && rm -f "$base".*
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$verdict" "${secs[gpu]}" "${secs[cpu]}" "$file"
}
export -f one
export ts gpu dir PARITY_DEADLINE

n=0
while IFS='|' read -r label args; do
  for f in "${files[@]}"; do
    n=$((n + 1))
    printf '%s\0%s\0%s\0%s\0' "$n" "$label" "$args" "$f"
  done
done < "$dir/commands.txt" |
  xargs -0 -n 4 -P 8 bash -c 'one "$@"' _ > "$dir/runs.tsv"

# The 2-worker scan with each backend; the report of each store, timestamps removed.
scan_one() {
  local b=$1 backend=$2 t0 t1 rc
  shift 2
  rm -f "$dir/scan_$b.db"*
  t0=$(date +%s%N)
  timeout 30 "$ts" -q --backend "$backend" scan --jobs 2 --db "$dir/scan_$b.db" "$@" \
    > "$dir/scan_$b.log" 2>&1
  rc=$?
  "$ts" report --db "$dir/scan_$b.db" --format json --top 0 2>&1 |
    sed -E 's/"(started|finished)_utc": "[^"]*"/"\1_utc": ""/g' > "$dir/report_$b.json"
  t1=$(date +%s%N)
  echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
}
read -r scan_rc_gpu scan_s_gpu < <(scan_one gpu "$gpu" "$@")
read -r scan_rc_cpu scan_s_cpu < <(scan_one cpu cpu "$@")
verdict=equal
if [[ $scan_rc_gpu != 0 || $scan_rc_cpu != 0 ]]; then
  verdict="different-exit($scan_rc_gpu/$scan_rc_cpu)"
elif ! cmp -s "$dir/report_gpu.json" "$dir/report_cpu.json"; then
  verdict="different-output"
fi
printf 'scan --jobs 2\t%s\t%s\t%s\t%s\n' "$verdict" "$scan_s_gpu" "$scan_s_cpu" "$*" >> "$dir/runs.tsv"

# Summaries: per command, the runs and their verdicts; the timing table.
awk -F'\t' '{ split($1, c, ":"); cmd = c[1]; runs[cmd]++
  if ($2 ~ /^equal/) eq[cmd]++; else if ($2 == "skipped") skipped[cmd]++; else diff[cmd]++
  if ($2 ~ /^equal-failure/) failed[cmd]++
  g[cmd] += $3; p[cmd] += $4 }
  END { printf "%-14s %6s %6s %10s %10s %8s\n", "command", "runs", "equal", "different",
      "both-fail", "skipped"
    for (k in runs)
      printf "%-14s %6d %6d %10d %10d %8d\n", k, runs[k], eq[k], diff[k], failed[k], skipped[k]
    printf "\n"; printf("command\truns\tgpu_s\tcpu_s\tcpu/gpu\n") > TIMING
    for (k in runs) {
      ratio = g[k] > 0 ? p[k] / g[k] : 0
      printf("%s\t%d\t%.3f\t%.3f\t%.2f\n", k, runs[k], g[k], p[k], ratio) > TIMING
    } }' TIMING="$out/timing.tsv" "$dir/runs.tsv" \
  > "$dir/summary.txt"
awk -F'\t' '$2 !~ /^equal/ && $2 != "skipped"' "$dir/runs.tsv" > "$dir/different.txt"
skipped=$(awk -F'\t' '$2 == "skipped"' "$dir/runs.tsv" | wc -l)
column -t -s $'\t' "$out/timing.tsv" > "$out/timing.txt" 2>/dev/null || cp "$out/timing.tsv" "$out/timing.txt"
cat "$dir/summary.txt" "$out/timing.txt"
different=$(wc -l < "$dir/different.txt")
total=$(wc -l < "$dir/runs.tsv")
echo "parity: $((total - different - skipped)) of $total comparisons equal, $different different" \
  "(parity/different.txt), $skipped skipped (out of time)"
[[ $different == 0 ]]
