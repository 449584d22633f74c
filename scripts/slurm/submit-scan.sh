#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Submits a fleet scan to Slurm: an array of N scan.sbatch tasks (task K runs
# `tracesweep scan DIR... --db OUTDIR/shard-K.sqlite --shard K/N [--label TEXT]`) and a
# merge.sbatch job, dependent on the whole array (afterok), that runs
# `tracesweep merge OUTDIR/results.sqlite OUTDIR/shard-0.sqlite ... shard-(N-1).sqlite`.
#
#   submit-scan.sh -o OUTDIR [-n SHARDS] [-l LABEL] [-b TRACESWEEP] [-s SBATCH_OPTION]... [-w]
#                  [-r] TRACE_DIR...
#     -o OUTDIR       a new or empty folder on a file system every node sees (shards, the
#                     merged results.sqlite and the jobs' logs scan-JOB_TASK.out, merge-JOB.out)
#     -n SHARDS       array size, default 8 (recorded in OUTDIR/SHARDS)
#     -r              resume an earlier submission into OUTDIR (a shard that ran out of time,
#                     a failed one): same trace dirs, same shard count (default: OUTDIR/SHARDS);
#                     scan skips the traces a shard database already holds, merge the jobs
#                     results.sqlite already holds. Without -r, OUTDIR must hold no databases.
#     -l LABEL        passed to every scan as --label
#     -b TRACESWEEP   the tracesweep binary (default: $TRACESWEEP, else `tracesweep` on PATH);
#                     it must be at the same path on the compute nodes
#     -s OPTION       an extra sbatch option for both jobs, e.g. -s --partition=batch
#                     -s --time=02:00:00 -s --mem=8G -s --cpus-per-task=4 (repeatable);
#                     the scan runs with --jobs $SLURM_CPUS_PER_TASK when that is set.
#                     SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_MEM_PER_NODE... in the
#                     environment work as well, or edit the ##SBATCH lines of the .sbatch files.
#     -w              wait until the merge job has ended; exit 0 only when it completed and
#                     wrote results.sqlite
# Prints the array job's and the merge job's ids. Example, on a real cluster:
#   scripts/slurm/submit-scan.sh -b /opt/tracesweep/bin/tracesweep -o /scratch/$USER/scan-0412 \
#       -n 16 -l nightly-0412 -s --partition=batch -s --time=01:00:00 -s --mem=4G \
#       /data/traces/rack1 /data/traces/rack2
#   squeue -u $USER; then sqlite3 /scratch/$USER/scan-0412/results.sqlite ...
#
# Exit code 2 of a scan (some inputs bad, recorded in the shard database, which is complete)
# counts as success (scan.sbatch maps it to 0), so the merge runs; any other failure of a shard
# makes the afterok dependency impossible and Slurm cancels the merge job
# (--kill-on-invalid-dep=yes). After fixing the cause, resubmit the same command with -r.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  sed -n '/^#   submit-scan.sh -o/,/wrote results.sqlite$/p' "${BASH_SOURCE[0]}" \
    | sed 's/^#  //' >&2
  exit 1
}

outdir=""
shards=""
resume=0
label=()
tracesweep="${TRACESWEEP:-}"
sbatch_opts=()
wait=0
while getopts "o:n:l:b:s:wrh" opt; do
  case "$opt" in
    o) outdir="$OPTARG" ;;
    n) shards="$OPTARG" ;;
    l) label=(--label "$OPTARG") ;;
    b) tracesweep="$OPTARG" ;;
    s) sbatch_opts+=("$OPTARG") ;;
    w) wait=1 ;;
    r) resume=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
if [[ -z "$outdir" || $# -eq 0 ]]; then
  usage
fi
if [[ "$resume" == 1 && -z "$shards" && -s "$outdir/SHARDS" ]]; then
  shards="$(cat "$outdir/SHARDS")"
fi
shards="${shards:-8}"
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
  echo "submit-scan.sh: -n wants a positive number of shards, not '$shards'" >&2
  exit 1
fi
if [[ -z "$tracesweep" ]]; then
  tracesweep="$(command -v tracesweep || true)"
fi
if [[ -z "$tracesweep" || ! -x "$tracesweep" ]]; then
  echo "submit-scan.sh: no tracesweep binary (use -b PATH or set TRACESWEEP)" >&2
  exit 1
fi
tracesweep="$(realpath "$tracesweep")"

dirs=()
for dir in "$@"; do
  if [[ ! -d "$dir" ]]; then
    echo "submit-scan.sh: $dir is not a folder" >&2
    exit 1
  fi
  dirs+=("$(realpath "$dir")")
done

mkdir -p "$outdir"
outdir="$(realpath "$outdir")"
if [[ "$resume" == 1 ]]; then
  recorded="$(cat "$outdir/SHARDS" 2>/dev/null || true)"
  if [[ "$recorded" != "$shards" ]]; then
    echo "submit-scan.sh: -r: $outdir was scanned with ${recorded:-an unknown number of}" \
         "shards (OUTDIR/SHARDS), not $shards; a shard's jobs depend on N" >&2
    exit 1
  fi
else
  shopt -s nullglob
  stale=("$outdir"/shard-*.sqlite)
  shopt -u nullglob
  [[ -e "$outdir/results.sqlite" ]] && stale+=("$outdir/results.sqlite")
  if [[ ${#stale[@]} -gt 0 ]]; then
    echo "submit-scan.sh: $outdir already holds ${stale[0]}; use a new or empty folder," \
         "or -r to resume that scan" >&2
    exit 1
  fi
  echo "$shards" > "$outdir/SHARDS"
fi

array_id="$(sbatch --parsable "${sbatch_opts[@]}" --array="0-$((shards - 1))" \
              --output="$outdir/scan-%A_%a.out" \
              "$here/scan.sbatch" "$tracesweep" "$outdir" "${label[@]}" "${dirs[@]}")"
array_id="${array_id%%;*}"  # --parsable prints JOBID[;CLUSTER]
echo "scan array job: $array_id ($shards shards, logs $outdir/scan-${array_id}_K.out)"

merge_opts=(--parsable --dependency="afterok:$array_id" --kill-on-invalid-dep=yes
            --output="$outdir/merge-%j.out")
if [[ "$wait" == 1 ]]; then
  # sbatch --wait exits 0 also when Slurm cancels the job (a failed shard), so the job's
  # final state decides.
  echo "merge job: waiting for it (sbatch --wait)"
  rc=0
  merge_id="$(sbatch --wait "${merge_opts[@]}" "${sbatch_opts[@]}" \
                "$here/merge.sbatch" "$tracesweep" "$outdir" "$shards")" || rc=$?
  merge_id="${merge_id%%;*}"
  state="$(scontrol show job -o "$merge_id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' || true)"
  echo "merge job: $merge_id ${state:-(state no longer known)}, sbatch exit $rc"
  if [[ "$rc" == 0 && "$state" != JobState=COMPLETED && -n "$state" ]]; then
    rc=1
  fi
  if [[ "$rc" == 0 && -s "$outdir/results.sqlite" ]]; then
    echo "merged: $outdir/results.sqlite"
  else
    [[ "$rc" != 0 ]] || rc=1
    echo "submit-scan.sh: the merge did not succeed; see $outdir/scan-*.out, merge-*.out" >&2
  fi
  exit "$rc"
fi
merge_id="$(sbatch "${merge_opts[@]}" "${sbatch_opts[@]}" \
              "$here/merge.sbatch" "$tracesweep" "$outdir" "$shards")"
merge_id="${merge_id%%;*}"
echo "merge job: $merge_id (after the array; result $outdir/results.sqlite," \
     "log $outdir/merge-$merge_id.out)"
