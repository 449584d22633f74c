#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole side-by-side comparison in one command (issue 12):
#   1. makes the inputs: a real Kineto trace repeated along time with ../shared/bench's
#      replicate_kineto.py (plain .json and .json.gz), and generated nsys exports of about 1 M
#      and 10 M kernels (as many runtime rows);
#   2. runs tracesweep and every peer of ../shared/bench on the same files, interleaved, three
#      times (each timed run right after an untimed one of the same command: see measure), and
#      takes the median: `summary --format json` (Kineto; nsys too) and
#      `stats --report cuda_gpu_kern_sum --format csv` (nsys) at 1 thread and at all threads;
#      `diagnose --format json` at 1 thread and at all threads (plain Kineto file and nsys);
#      the pandas script (needs python3-pandas); the nsys report SQL in sqlite3; HTA when
#      `import hta` works;
#      `overview --format json` at 1 thread beside summary (Kineto and nsys); the parse ceiling of
#      ../shared/bench (simdjson_parse_ceiling.cpp, built here with -O3 -march=native) on the
#      plain Kineto file; the cheapest sqlite3 scan of the kernel columns on each export;
#      the row listings of issue 31 at 1 thread: `stats --report cuda_gpu_trace --format csv` on
#      each export (its peak RSS against cuda_gpu_kern_sum's, its MB/s of CSV) and, without
#      --quick, `diagnose --min-gap 1 --top 0 --table gaps --format csv` on a job of about 1 M
#      gaps (the Kineto trace 46 times): its peak RSS against the default diagnose's, its MB/s
#      of CSV over the time it adds to the same analysis writing only its verdicts;
#   3. prints one table (time, MB/s of the uncompressed input, GPU operations/s, peak RSS, ratio of each
#      peer to tracesweep at 1 thread) and appends it to bench/README.md with the date, the CPU model and load average;
#      with the bench programs built, also ingest alone (nsys_ingest_bench) and the table's memory
#      per event (table_bytes).
# Usage: bench/run.sh [--quick] [BUILD_DIR] — --quick: a 2× Kineto trace and the 1 M export only
# (under 3 minutes on 2 cores). Inputs are kept in $TRACESWEEP_BENCH_WORK (default
# BUILD_DIR/bench-work) and made only once.
set -euo pipefail
quick=0
if [[ ${1:-} == --quick ]]; then
  quick=1
  shift
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
ts="$build/src/cli/tracesweep"
peers="$root/../shared/bench"
traces="${TRACESWEEP_TRACES:-$root/../shared/traces}"
work="${TRACESWEEP_BENCH_WORK:-$build/bench-work}"
[[ -x $ts ]] || { echo "bench/run.sh: no $ts (build the tracesweep target first)" >&2; exit 1; }
[[ -d $peers ]] || { echo "bench/run.sh: no peers folder $peers" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench/run.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$work"

# ---- inputs ----------------------------------------------------------------------------------
src="$traces/kineto/hta_df_index_resolver_v100/df_index_resolver.json.gz"
copies=$((quick ? 2 : 20))
kineto="$work/kineto_x${copies}.json"
if [[ ! -f $kineto ]]; then
  python3 "$peers/replicate_kineto.py" "$src" "$copies" "$kineto.tmp" >/dev/null
  mv "$kineto.tmp" "$kineto"
fi
[[ -f $kineto.gz ]] || gzip -6 -c "$kineto" >"$kineto.gz"
nsys_sizes=(1000000)
((quick)) || nsys_sizes+=(10000000)
# A job of about 1 M idle gaps (issue 31's diagnose --top 0 listing): the same real trace 46
# times (22,049 gaps each at --min-gap 1); not with --quick.
gaps=""
if ((!quick)); then
  gaps="$work/kineto_x46.json"
  if [[ ! -f $gaps ]]; then
    python3 "$peers/replicate_kineto.py" "$src" 46 "$gaps.tmp" >/dev/null
    mv "$gaps.tmp" "$gaps"
  fi
fi
for k in "${nsys_sizes[@]}"; do
  f="$work/nsys_${k}_kernels.sqlite"
  [[ -f $f ]] || "$ts" generate --format nsys-sqlite --ranks 4 --devices 2 \
    --events $((2 * k)) -o "$f" >/dev/null
done

# The parse ceiling (../shared/bench, as given), built for this CPU.
ceiling="$work/simdjson_parse_ceiling"
if [[ ! -x $ceiling || $peers/simdjson_parse_ceiling.cpp -nt $ceiling ]]; then
  g++ -O3 -march=native -std=c++17 "$peers/simdjson_parse_ceiling.cpp" -lsimdjson -o "$ceiling"
fi
scan_sql='SELECT count(*), sum(start), sum(end), sum(shortName) FROM CUPTI_ACTIVITY_KIND_KERNEL'

# ---- runs ------------------------------------------------------------------------------------
have_pandas=0 have_hta=0
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
  have_pandas=1
else
  echo "bench/run.sh: the pandas peer is skipped: apt-get install python3-pandas" >&2
fi
if python3 -c 'import hta' 2>/dev/null; then
  have_hta=1
else
  echo "bench/run.sh: the HTA peer is skipped: HolisticTraceAnalysis is not installed" >&2
fi
results="$work/results.tsv"
: >"$results"
# measure LABEL INPUT TOOL THREADS CMD...: one run, "label input tool threads seconds kb" appended.
# Each timed run follows an untimed run of the same command (every tool alike; set
# TRACESWEEP_BENCH_WARMUP=0 to leave it out): on the development VM the guest reports memory
# free for about 2 s to the host (virtio-balloon free page reporting, page_reporting_order=11;
# 9 since 2026-12-06: every freed 2 MiB block),
# and touching it again costs a host fault, so a run that followed a pause or a small peer paid
# for its fresh pages several times what the same run paid right after another (diagnose on the
# 1 M export, 1 thread: 0.24–0.36 s of system time after 3–5 s of idle, 0.03–0.12 s within 1 s),
# and the order of the runs, not the tools, decided ratios such as 2 threads against 1.
measure() {
  local label=$1 input=$2 tool=$3 threads=$4
  shift 4
  if [[ ${TRACESWEEP_BENCH_WARMUP:-1} != 0 ]]; then
    "$@" >/dev/null 2>"$work/stderr.txt" ||
      { echo "bench/run.sh: failed: $*" >&2; cat "$work/stderr.txt" >&2; exit 1; }
  fi
  /usr/bin/time -o "$work/time.txt" -f '%e %M' "$@" >/dev/null 2>"$work/stderr.txt" ||
    { echo "bench/run.sh: failed: $*" >&2; cat "$work/stderr.txt" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$input" "$tool" "$threads" \
    "$(tail -1 "$work/time.txt")" >>"$results"
}
all=$(nproc)
for rep in 1 2 3; do
  for f in "$kineto" "$kineto.gz"; do
    n=$(basename "$f")
    measure "$n" "$f" "tracesweep summary" 1 "$ts" --threads 1 summary --format json "$f"
    measure "$n" "$f" "tracesweep summary" "$all" "$ts" --threads 0 summary --format json "$f"
    measure "$n" "$f" "tracesweep overview" 1 "$ts" --threads 1 overview --format json "$f"
    if [[ $f != *.gz ]]; then
      measure "$n" "$f" "simdjson On-Demand ceiling" 1 "$ceiling" "$f"
      for t in 1 0; do
        shown=$t
        ((t == 0)) && shown=$all
        measure "$n" "$f" "tracesweep diagnose" "$shown" "$ts" --threads "$t" diagnose \
          --format json "$f"
      done
    fi
    if ((have_pandas)); then
      measure "$n" "$f" "pandas script" 1 /usr/bin/python3 "$peers/pandas_kernel_summary.py" "$f"
    fi
    if ((have_hta)); then  # HTA reads a folder of rank traces: one holding this file alone
      mkdir -p "$work/hta_$n"
      ln -sf "$f" "$work/hta_$n/rank-0.json${f##*.json}"
      measure "$n" "$f" "HTA kernel breakdown" 1 python3 -c "import sys
from hta.trace_analysis import TraceAnalysis
TraceAnalysis(trace_dir=sys.argv[1]).get_gpu_kernel_breakdown()" "$work/hta_$n"
    fi
  done
  for k in "${nsys_sizes[@]}"; do
    f="$work/nsys_${k}_kernels.sqlite"
    n=$(basename "$f")
    for t in 1 0; do
      shown=$t
      ((t == 0)) && shown=$all
      measure "$n" "$f" "tracesweep stats" "$shown" "$ts" --threads "$t" stats --report \
        cuda_gpu_kern_sum --format csv "$f"
      measure "$n" "$f" "tracesweep summary" "$shown" "$ts" --threads "$t" summary --format json "$f"
      measure "$n" "$f" "tracesweep diagnose" "$shown" "$ts" --threads "$t" diagnose \
        --format json "$f"
    done
    measure "$n" "$f" "tracesweep overview" 1 "$ts" --threads 1 overview --format json "$f"
    measure "$n" "$f" "tracesweep cuda_gpu_trace CSV" 1 "$ts" --threads 1 stats --report \
      cuda_gpu_trace --format csv "$f"
    measure "$n" "$f" "nsys SQL in sqlite3" 1 sh -c "sqlite3 -csv '$f' < '$peers/nsys_kern_sum.sql'"
    measure "$n" "$f" "sqlite3 kernel scan" 1 sqlite3 "$f" "$scan_sql"
  done
  if [[ -n $gaps ]]; then
    n=$(basename "$gaps")
    measure "$n" "$gaps" "tracesweep diagnose" 1 "$ts" --threads 1 diagnose --format csv \
      --table gaps "$gaps"
    measure "$n" "$gaps" "tracesweep diagnose gap listing CSV" 1 "$ts" --threads 1 diagnose \
      --min-gap 1 --top 0 --format csv --table gaps "$gaps"
    # The same analysis (every gap with its context) writing only the verdicts: the listing's
    # writing is the difference.
    measure "$n" "$gaps" "tracesweep diagnose every gap, verdicts written" 1 "$ts" --threads 1 \
      diagnose --min-gap 1 --top 0 --format csv --table verdicts "$gaps"
  fi
done
# The bytes of each listing (for MB/s of CSV written): counted once, apart from the timed runs.
listing_bytes="$work/listing_bytes.tsv"
: >"$listing_bytes"
for k in "${nsys_sizes[@]}"; do
  f="$work/nsys_${k}_kernels.sqlite"
  printf '%s\t%s\t%s\n' "$(basename "$f")" "tracesweep cuda_gpu_trace CSV" \
    "$("$ts" stats --report cuda_gpu_trace --format csv "$f" | wc -c)" >>"$listing_bytes"
done
if [[ -n $gaps ]]; then
  printf '%s\t%s\t%s\n' "$(basename "$gaps")" "tracesweep diagnose gap listing CSV" \
    "$("$ts" diagnose --min-gap 1 --top 0 --format csv --table gaps "$gaps" | wc -c)" \
    >>"$listing_bytes"
fi

# ---- table -----------------------------------------------------------------------------------
# GPU operations per input (summary's inputs[].gpu_operations): the rows both commands read of
# an nsys export (kernels, memcpys, memsets); of a Kineto trace, the part of what is parsed that
# the tables are computed from.
declare -A events
for f in "$kineto" "$kineto.gz" "$work"/nsys_*_kernels.sqlite; do
  [[ -f $f ]] || continue
  events[$(basename "$f")]=$("$ts" --threads 0 summary --format json "$f" |
    python3 -c 'import json,sys; print(sum(i["gpu_operations"] for i in json.load(sys.stdin)["inputs"]))')
done
table=$(
  for key in "${!events[@]}"; do printf '%s\t%s\n' "$key" "${events[$key]}"; done >"$work/events.tsv"
  python3 - "$results" "$work/events.tsv" <<'EOF'
import os, statistics, sys
from collections import defaultdict
runs = defaultdict(list)
paths = {}
for line in open(sys.argv[1]):
    label, path, tool, threads, secs, kb = line.rstrip("\n").split("\t")[0:4] + line.split("\t")[4].split()
    runs[(label, tool, int(threads))].append((float(secs), int(kb)))
    paths[label] = path
events = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[2]))
base = {}
for (label, tool, threads), v in runs.items():
    if tool.startswith("tracesweep") and threads == 1:
        base.setdefault(label, {})[tool] = statistics.median(s for s, _ in v)
print("| input | size | tool | threads | time (s) | MB/s | GPU operations/s | peak RSS (MB) | ratio |")
print("|---|---|---|---|---|---|---|---|---|")
for (label, tool, threads) in sorted(runs, key=lambda k: (k[0], not k[1].startswith("tracesweep"), k[1], k[2])):
    v = runs[(label, tool, threads)]
    secs = statistics.median(s for s, _ in v)
    rss = max(kb for _, kb in v) / 1024
    path = paths[label]
    if path.endswith(".gz") and os.path.exists(path[:-3]):
        path = path[:-3]  # MB/s of the JSON text, as for the plain file
    size = os.path.getsize(path) / 1e6
    n = int(events.get(label, 0))
    if tool.startswith("tracesweep"):
        ref = base.get(label, {}).get(tool)
        ratio = f"{ref / secs:.2f}× of 1 thread" if ref and threads != 1 else "—"
    else:
        ref = min(base.get(label, {}).values(), default=None)
        ratio = f"{secs / ref:.1f}× slower" if ref else "—"
    print(f"| {label} | {size:.0f} MB | {tool} | {threads} | {secs:.2f} | {size / secs:.0f} | "
          f"{n / secs / 1e6:.2f} M | {rss:.0f} | {ratio} |")
EOF
)
# Issue 31's ratios, each at 1 thread from the medians above: the JSON reader against the parse
# ceiling (the .gz against the same ceiling on its plain text) and the pandas script; overview
# against summary; nsys summary against stats, stats against the cheapest scan, the report SQL
# against stats.
targets=$(python3 - "$results" "$listing_bytes" <<'EOF'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
rss = defaultdict(int)
threaded = defaultdict(list)  # (label, tool, threads) -> seconds, at more than 1 thread
for line in open(sys.argv[1]):
    label, _, tool, threads, rest = line.rstrip("\n").split("\t", 4)
    if threads == "1":
        runs[(label, tool)].append(float(rest.split()[0]))
        rss[(label, tool)] = max(rss[(label, tool)], int(rest.split()[1]))
    else:
        threaded[(label, tool, threads)].append(float(rest.split()[0]))
t = {k: statistics.median(v) for k, v in runs.items()}
listing = {}
for line in open(sys.argv[2]):
    label, tool, size = line.rstrip("\n").split("\t")
    listing[(label, tool)] = int(size)
def listed(label, tool, base, what, unwritten=None):
    """A row listing: peak RSS against 2x the aggregate report's + 64 MiB, and MB/s of CSV: over
    the whole run, or (with `unwritten`, the same analysis writing next to nothing) over the
    time the listing adds to it, where reading the input alone takes longer than the target
    allows for the whole listing."""
    if (label, tool) not in t or (label, base) not in rss:
        return
    budget = 2 * rss[(label, base)] + 64 * 1024
    mine = rss[(label, tool)]
    print(f"- {label}: {what} peak RSS {mine / 1024:.0f} MiB (target ≤ 2 × {base}'s "
          f"{rss[(label, base)] / 1024:.0f} + 64 = {budget / 1024:.0f} MiB): "
          f"{'met' if mine <= budget else 'missed'}")
    size = listing.get((label, tool), 0)
    rate = size / t[(label, tool)] / 1e6
    if unwritten is None or (label, unwritten) not in t:
        print(f"- {label}: {what} {rate:.0f} MB/s of CSV, read included (target ≥ 300): "
              f"{'met' if rate >= 300 else 'missed'}")
        return
    added = t[(label, tool)] - t[(label, unwritten)]
    written = size / added / 1e6 if added > 0 else float("inf")
    print(f"- {label}: {what} {size / 1e6:.0f} MB of CSV in {added:.2f} s beyond the same "
          f"analysis writing its verdicts ({t[(label, unwritten)]:.2f} s): {written:.0f} MB/s "
          f"(target ≥ 300): {'met' if written >= 300 else 'missed'}; {rate:.0f} MB/s with the "
          f"read and the analysis")
def ratio(label, what, a, b, target, at_most=True, b_label=None):
    b_key = (b_label or label, b)
    if (label, a) not in t or b_key not in t:
        return
    r = t[(label, a)] / t[b_key]
    ok = r <= target if at_most else r >= target
    print(f"- {label}: {what} {r:.2f}× (target {'≤' if at_most else '≥'} {target}×): "
          f"{'met' if ok else 'missed'}")
for label in sorted({k[0] for k in t}):
    if label.endswith((".json", ".json.gz")):
        plain = label[:-3] if label.endswith(".gz") else label
        ratio(label, "summary / the simdjson On-Demand ceiling", "tracesweep summary",
              "simdjson On-Demand ceiling", 1.3, b_label=plain)
        ratio(label, "the pandas script / summary", "pandas script", "tracesweep summary", 25, False)
    ratio(label, "overview / summary", "tracesweep overview", "tracesweep summary", 1.5)
    if label.endswith(".sqlite"):
        ratio(label, "summary / stats", "tracesweep summary", "tracesweep stats", 1.3)
        ratio(label, "stats / the sqlite3 kernel scan", "tracesweep stats", "sqlite3 kernel scan", 1.3)
        ratio(label, "the nsys report SQL / stats", "nsys SQL in sqlite3", "tracesweep stats", 15,
              False)
        listed(label, "tracesweep cuda_gpu_trace CSV", "tracesweep stats", "cuda_gpu_trace")
    listed(label, "tracesweep diagnose gap listing CSV", "tracesweep diagnose",
           "diagnose --min-gap 1 --top 0", "tracesweep diagnose every gap, verdicts written")
# Item 5: summary and diagnose at all threads against 1 thread (target ≥ 1.85× on 2 threads).
for (label, tool, threads), v in sorted(threaded.items()):
    if tool in ("tracesweep summary", "tracesweep diagnose") and (label, tool) in t:
        r = t[(label, tool)] / statistics.median(v)
        print(f"- {label}: {tool.split()[1]} at {threads} threads {r:.2f}× as fast as at 1 "
              f"(target ≥ 1.85×): {'met' if r >= 1.85 else 'missed'}")
EOF
)
# Ingest alone (the nsys reader into the columns, no analysis): nsys_ingest_bench, when the bench
# programs are built, on each export at 1 thread and at all threads.
ingest=""
if [[ -x $build/bench/nsys/nsys_ingest_bench ]]; then
  for k in "${nsys_sizes[@]}"; do
    f="$work/nsys_${k}_kernels.sqlite"
    ingest+="$(basename "$f"): $("$build/bench/nsys/nsys_ingest_bench" "$f" 1 "$all" |
      grep '^KERNEL+RUNTIME' | sed 's/^KERNEL+RUNTIME tables, //' | paste -sd ';' | sed 's/;/; /g')"$'\n'
  done
else
  echo "bench/run.sh: ingest alone is skipped: build the nsys_ingest_bench target" >&2
fi
# Memory per event in the table (columns, strings, side tables; no analysis): table_bytes.
footprint=""
if [[ -x $build/bench/memory/table_bytes ]]; then
  measured=("$kineto")
  for k in "${nsys_sizes[@]}"; do measured+=("$work/nsys_${k}_kernels.sqlite"); done
  for f in "${measured[@]}"; do
    footprint+="$("$build/bench/memory/table_bytes" "$f" | sed "s|^$work/||")"$'\n'
  done
else
  echo "bench/run.sh: memory per event is skipped: build the table_bytes target" >&2
fi
echo "$table"
printf '\nIssue 31 targets (1 thread, medians):\n%s\n' "$targets"
[[ -n $ingest ]] && printf '\nIngest alone (nsys_ingest_bench: KERNEL + RUNTIME into the columns):\n%s' "$ingest"
[[ -n $footprint ]] && printf '\nMemory per event in the table (table_bytes):\n%s' "$footprint"
{
  echo
  echo "### bench/run.sh$([[ $quick == 1 ]] && echo ' --quick'), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
    "before the runs ended. Median of 3 interleaved runs$([[ ${TRACESWEEP_BENCH_WARMUP:-1} != 0 ]] &&
      echo ', each right after an untimed run of the same command'); peak RSS the largest of the 3;" \
    "a peer's ratio is its time over the fastest tracesweep command at 1 thread on the same file."
  echo
  echo "$table"
  echo
  echo "Issue 31's ratios (1 thread, medians; a .gz against the ceiling on its plain text):"
  echo
  echo "$targets"
  if [[ -n $ingest ]]; then
    echo
    echo "Ingest alone (\`nsys_ingest_bench\`, the nsys reader filling the columns from KERNEL and RUNTIME, median of 3):"
    echo
    while IFS= read -r line; do [[ -n $line ]] && echo "- $line"; done <<<"$ingest"
  fi
  if [[ -n $footprint ]]; then
    echo
    echo "Memory per event in the table (\`table_bytes\`: every kind read at 1 thread, the bytes the events take):"
    echo
    while IFS= read -r line; do [[ -n $line ]] && echo "- $line"; done <<<"$footprint"
  fi
} >>"$root/bench/README.md"
echo "appended to bench/README.md"
