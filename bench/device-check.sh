#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One prepared run on an H200 machine (nvcc, CMake, ninja, g++; no network, none of our Debian
# -dev packages): prints nvidia-smi, builds for sm_90 against the .deb files that
# bench/device-prepare.sh fetched into .device/debs, runs the GPU tests (TRACESWEEP_REQUIRE_GPU=1:
# a missing GPU fails them) on the traces in .device/traces, then GPU-vs-CPU parity of the CLI
# (bench/device-parity.sh: summary, diagnose --top 0, every overview table, every stats report,
# a 2-worker scan; outputs byte for byte) with its timing table, and the benchmark. Writes every
# log into OUTDIR (summary.log, parity/summary.txt, timing.txt). At most 5 minutes in all
# (build at most 2); each step gets what is left of that.
# Usage: bench/device-check.sh OUTDIR [--dry-run | --cpu-parity]
#   --dry-run     configure and build only, no GPU needed
#   --cpu-parity  everything but the GPU: the parity and timing steps run their "GPU" side on
#                 the CPU backend (checks this script on a machine without a GPU)
# Environment: TRACESWEEP_CHECK_BUILD=DIR reuses a configured build (no .deb prefix, no
# configure); TRACESWEEP_TRACES=DIR other traces than .device/traces.
set -uo pipefail
out="${1:?usage: bench/device-check.sh OUTDIR [--dry-run | --cpu-parity]}"
mode="${2:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log() { echo "== $*" | tee -a "$out/summary.log"; }
deadline=$(($(date +%s) + 300))
# Seconds a step may take: at most $1, and never past the 5-minute deadline (at least 1).
left() {
  local l=$((deadline - $(date +%s)))
  ((l > $1)) && l=$1
  ((l < 1)) && l=1
  echo "$l"
}

log "device-check $(date -u +%FT%TZ) on $(hostname) ${mode:-(full)}"
{ nvidia-smi || echo "nvidia-smi failed"; } 2>&1 | tee "$out/nvidia-smi.log"
{ lscpu | head -20; free -g; nvcc --version; cmake --version | head -1; } > "$out/host.log" 2>&1

build="${TRACESWEEP_CHECK_BUILD:-}"
if [[ -n "$build" ]]; then
  log "reusing the build in $build"
else
  prefix="$out/prefix"
  rm -rf "$prefix" && mkdir -p "$prefix"
  for deb in "$root"/.device/debs/*.deb; do dpkg -x "$deb" "$prefix" || log "dpkg -x failed: $deb"; done
  arch_dir="$prefix/usr/lib/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$arch_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  build="$out/build"
  log "configure"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRACESWEEP_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix/usr" \
    -DCMAKE_LIBRARY_PATH="$arch_dir" -DCMAKE_INCLUDE_PATH="$prefix/usr/include" \
    > "$out/configure.log" 2>&1 || { log "configure FAILED (see configure.log)"; exit 1; }
  log "build (at most 120 s)"
  timeout "$(left 120)" ninja -C "$build" -j "$(nproc)" cuda_backend_test device_twin_test \
    device_activity_test device_parity_test bench_device tracesweep > "$out/build.log" 2>&1 ||
    { log "build FAILED or timed out (see build.log)"; exit 1; }
fi
log "ldd tracesweep, bench_device, cuda_backend_test"
for b in src/cli/tracesweep bench/device/bench_device tests/cuda/cuda_backend_test; do
  echo "-- $b"; ldd "$build/$b"
done > "$out/ldd.log" 2>&1
[[ "$mode" == "--dry-run" ]] && { log "dry run: stopping before the GPU steps"; exit 0; }

export TRACESWEEP_TRACES="${TRACESWEEP_TRACES:-$root/.device/traces}" TRACESWEEP_REQUIRE_TRACES=1
status=0
gpu_backend=cuda
if [[ "$mode" == "--cpu-parity" ]]; then
  gpu_backend=cpu
  log "cpu-parity: no GPU steps; the parity below compares the CPU backend with itself"
else
  export TRACESWEEP_REQUIRE_GPU=1
  log "GPU tests (cuda_backend_test, TRACESWEEP_REQUIRE_GPU=1) and CPU-compiled device tests"
  timeout "$(left 60)" "$build/tests/cuda/cuda_backend_test" > "$out/cuda_backend_test.log" 2>&1 || status=1
  timeout "$(left 30)" "$build/tests/cuda/device_twin_test" > "$out/device_twin_test.log" 2>&1 || status=1
  timeout "$(left 40)" "$build/tests/cuda/device_activity_test" > "$out/device_activity_test.log" 2>&1 || status=1
  timeout "$(left 30)" "$build/tests/cuda/device_parity_test" > "$out/device_parity_test.log" 2>&1 || status=1
  grep -E "PASSED|FAILED|SKIPPED" "$out"/*_test.log | tee -a "$out/summary.log"
fi

log "CLI parity, $gpu_backend vs cpu (at most 100 s; parity/summary.txt, timing.txt)"
parity_s=$(left 100)
PARITY_DEADLINE=$(($(date +%s) + parity_s * 3 / 4)) timeout "$parity_s" \
  "$root/bench/device-parity.sh" "$build/src/cli/tracesweep" "$gpu_backend" "$out" \
  "$root"/datasets/samples/* "$TRACESWEEP_TRACES" > "$out/parity.log" 2>&1 || status=1
tail -n 3 "$out/parity.log" | tee -a "$out/summary.log"

if [[ "$mode" != "--cpu-parity" ]]; then
  log "benchmark (at most 90 s)"
  timeout "$(left 90)" "$build/bench/device/bench_device" --sizes 10000000,100000000 --reps 3 \
    2>&1 | tee "$out/bench_device.log" || log "benchmark failed or timed out"
fi
log "done in $((300 - (deadline - $(date +%s)))) s, status $status"
exit $status
