#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every command × format on every real trace and on the bundled sample, one output file
# per run (stdout, then "# exit N" and stderr), into OUTDIR.
#   run_all.sh TRACESWEEP_BINARY TRACES_DIR SAMPLE_SQLITE OUTDIR
# Inputs are named relative to TRACES_DIR (the command runs there) so outputs do not depend on
# where the traces live. Used by record.sh (to write the goldens) and check.sh (to compare).
set -euo pipefail
unset COLUMNS  # text fits no width unless a run below asks for one
bin="$(realpath "$1")"
traces="$2"
sample="$(realpath "$3")"
out="$(realpath -m "$4")"
mkdir -p "$out"
cd "$traces"

# One job per Kineto file, plus the 2-rank folder as one job; every nsys export; the sample.
inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(find kineto nsys -type f \
  \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | LC_ALL=C sort)
inputs+=("kineto/hta_trace_filter_2rank")

run() {  # run NAME ARGS...: stdout, exit code and stderr of one invocation into OUTDIR/NAME
  local name="$1"
  shift
  local rc=0
  "$bin" --threads 1 "$@" >"$out/$name" 2>"$out/$name.err" || rc=$?
  {
    echo "# exit $rc"
    cat "$out/$name.err"
  } >>"$out/$name"
  rm -f "$out/$name.err"
}

# TRACESWEEP_GOLDEN_SUBSET=1 (the sanitizer build, where every run costs 2-4x): summary,
# overview and tb in JSON only (summary's text stays in its 160-column run), without their CSV
# tables: 11 runs an input instead of 24. Their results are the JSON runs', and their text and
# CSV go through the writers the text, critical-path and stats runs use; check.sh then compares
# the outputs made.
if [[ "${TRACESWEEP_GOLDEN_SUBSET:-}" == 1 ]]; then
  summary_tables=() overview_tables=() tb_tables=() views=(json)
else
  summary_tables=(devices kernels gaps inputs) overview_tables=(overview model distributed kernels)
  tb_tables=(tb tb_kernels) views=(text json)
fi

one() {  # one INPUT LABEL
  local in="$1" label="$2"
  for f in "${views[@]}"; do run "$label.summary.$f" summary --format "$f" "$in"; done
  COLUMNS=160 run "$label.summary.short160.text" --names short summary "$in"
  for t in "${summary_tables[@]}"; do
    run "$label.summary.csv.$t" summary --format csv --table "$t" "$in"
  done
  for f in "${views[@]}"; do run "$label.overview.$f" overview --format "$f" "$in"; done
  for t in "${overview_tables[@]}"; do
    run "$label.overview.csv.$t" overview --format csv --table "$t" "$in"
  done
  for f in "${views[@]}"; do run "$label.tb.$f" overview --compat tb --format "$f" "$in"; done
  for t in "${tb_tables[@]}"; do
    run "$label.tb.csv.$t" overview --compat tb --format csv --table "$t" "$in"
  done
  run "$label.critical_path.text" critical-path "$in"
  for r in cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum cuda_api_sum nvtx_sum osrt_sum; do
    run "$label.stats.$r.csv" stats --report "$r" --format csv "$in"
  done
}

# Inputs run TRACESWEEP_GOLDEN_JOBS at a time (default 2: ctest counts this test as two
# processors); each writes only files named after its own input, so the order cannot matter.
jobs="${TRACESWEEP_GOLDEN_JOBS:-2}"
pids=()
wait_for_a_slot() {
  while ((${#pids[@]} >= jobs)); do
    wait "${pids[0]}"  # a failed input fails the script (set -e): its outputs would be missing
    pids=("${pids[@]:1}")
  done
}
for in in "${inputs[@]}"; do
  wait_for_a_slot
  one "$in" "$(echo "$in" | tr '/' '_')" &
  pids+=($!)
done
# The sample by a fixed relative name, and one merged multi-input stats run.
ln -sfn "$sample" "$out/.sample.sqlite"
wait_for_a_slot
(cd "$out" && one .sample.sqlite sample) &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
rm -f "$out/.sample.sqlite"
run "nsys_all.stats.cuda_gpu_kern_sum.merge.csv" stats --report cuda_gpu_kern_sum --format csv \
  --merge nsys/nsys-ai/mfu_2gpu_before.sqlite nsys/nsys-ai/mfu_2gpu_after.sqlite
run "nsys_all.stats.cuda_gpu_kern_sum.text" stats --report cuda_gpu_kern_sum \
  nsys/nsys-ai/mfu_2gpu_before.sqlite nsys/fuser/report1_nsys2025.1.1.sqlite
