#!/usr/bin/env bash
# Chrome-trace reader benchmark, side by side in one run (median of 3), plain and .gz separately:
#   inputs: hta_negative_queue_length_a100 repeated with ../shared/bench/replicate_kineto.py to
#   >= 1 GB, and generator output of about the same size with the real job's host mix
#   (bench/chrome/kineto_like_trace: event polling, launch-free aten ops, device copies); its
#   bytes per event and category mix against the real trace printed by trace_mix.py, PASS/FAIL
#   per line (±20 %);
#   tools: `tracesweep --threads 1|0 stats --report cuda_gpu_kern_sum` and
#   `/usr/bin/python3 ../shared/bench/pandas_kernel_summary.py` as given.
# Prints end-to-end seconds, MB/s of raw JSON, events/s, peak RSS (/usr/bin/time -v).
# usage: bench/chrome/run_chrome_bench.sh BUILD_DIR [WORK_DIR]   (big files are removed at exit)
set -euo pipefail
build=$(realpath "$1")
here=$(cd "$(dirname "$0")/../.." && pwd)
shared="$here/../shared"
work=${2:-$(mktemp -d /tmp/tracesweep-chrome-bench.XXXXXX)}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
ts="$build/src/cli/tracesweep"
real="$shared/traces/kineto/hta_negative_queue_length_a100/rank0.json.gz"

echo "== inputs (in $work)"
python3 "$shared/bench/replicate_kineto.py" "$real" 45 "$work/real.json"
gzip -6 -k "$work/real.json"
gen="$build/bench/chrome/kineto_like_trace"
"$gen" 2670000 "$work/gen-" > /dev/null
gzip -6 -k "$work/gen-rank-0.json"
"$gen" 40000 "$work/sample-" > /dev/null  # same mix, small enough for json.load
echo "== mix of the generated trace vs the real one"
python3 "$here/bench/chrome/trace_mix.py" "$real" "$work/sample-rank-0.json" ||
  echo "(the generated mix is outside ±20 %: the generated rows below are not comparable)"

raw_bytes() { stat -c %s "${1%.gz}"; }
events_of() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "${1%.gz}"; }

# run LABEL FILE CMD...: median of 3 wall times and the RSS of that run.
run() {
  local label=$1 file=$2; shift 2
  local times=() rss=()
  for _ in 1 2 3; do
    /usr/bin/time -v -o "$work/time.txt" "$@" > /dev/null
    times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")")
    rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")")
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
  local r
  r=$(printf '%s\n' "${rss[@]}" | sort -g | tail -1)
  local raw=${RAW[$file]} ev=${EVENTS[$file]}
  printf '%-44s %-16s %8.2f s %8.0f MB/s %8.2f M ev/s %7.0f MB RSS (%.2f x raw)\n' "$label" \
    "$(basename "$file")" "$med" "$(echo "$raw / 1000000 / $med" | bc -l)" \
    "$(echo "$ev / 1000000 / $med" | bc -l)" "$(echo "$r / 1000" | bc -l)" \
    "$(echo "$r * 1024 / $raw" | bc -l)"
  echo "$med" > "$work/last_median"
}

declare -A RAW EVENTS
for f in "$work/real.json" "$work/real.json.gz" "$work/gen-rank-0.json" "$work/gen-rank-0.json.gz"; do
  RAW[$f]=$(raw_bytes "$f")
done
RAW_EV_REAL=$(events_of "$work/real.json"); RAW_EV_GEN=$(events_of "$work/gen-rank-0.json")
EVENTS[$work/real.json]=$RAW_EV_REAL; EVENTS[$work/real.json.gz]=$RAW_EV_REAL
EVENTS[$work/gen-rank-0.json]=$RAW_EV_GEN; EVENTS[$work/gen-rank-0.json.gz]=$RAW_EV_GEN
echo "real: ${RAW[$work/real.json]} bytes raw, $(stat -c %s "$work/real.json.gz") gz, $RAW_EV_REAL events"
echo "generated: ${RAW[$work/gen-rank-0.json]} bytes raw, $(stat -c %s "$work/gen-rank-0.json.gz") gz, $RAW_EV_GEN events"

echo "== $(date -u +%F) $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for f in "$work/real.json" "$work/real.json.gz" "$work/gen-rank-0.json" "$work/gen-rank-0.json.gz"; do
  run "tracesweep --threads 1 stats cuda_gpu_kern_sum" "$f" "$ts" --threads 1 stats --report cuda_gpu_kern_sum "$f"
  t1=$(cat "$work/last_median")
  run "tracesweep --threads 0 stats cuda_gpu_kern_sum" "$f" "$ts" --threads 0 stats --report cuda_gpu_kern_sum "$f"
  if [[ $f == "$work/real.json"* ]]; then
    run "pandas_kernel_summary.py" "$f" /usr/bin/python3 "$shared/bench/pandas_kernel_summary.py" "$f"
    tp=$(cat "$work/last_median")
    printf '  -> tracesweep --threads 1 is %.1fx faster than pandas on %s\n' "$(echo "$tp / $t1" | bc -l)" "$(basename "$f")"
  fi
done
