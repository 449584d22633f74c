#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One prepared run on an H200 machine (nvcc, CMake, ninja, g++; no network, none of our Debian
# -dev packages): prints nvidia-smi, builds for sm_90 against the .deb files that
# bench/device-prepare.sh fetched into .device/debs, runs the GPU parity tests on the traces in
# .device/traces and the benchmark, and writes every log into OUTDIR. At most 5 minutes
# (build at most 2). Usage: bench/device-check.sh OUTDIR [--dry-run]  (--dry-run: configure and
# build only, no GPU needed)
set -uo pipefail
out="${1:?usage: bench/device-check.sh OUTDIR [--dry-run]}"
dry="${2:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log() { echo "== $*" | tee -a "$out/summary.log"; }

log "device-check $(date -u +%FT%TZ) on $(hostname)"
{ nvidia-smi || echo "nvidia-smi failed"; } 2>&1 | tee "$out/nvidia-smi.log"
{ lscpu | head -20; free -g; nvcc --version; cmake --version | head -1; } > "$out/host.log" 2>&1

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
timeout 120 ninja -C "$build" -j "$(nproc)" cuda_backend_test device_twin_test device_activity_test \
  device_parity_test bench_device tracesweep > "$out/build.log" 2>&1 || { log "build FAILED or timed out (see build.log)"; exit 1; }
log "ldd tracesweep, bench_device, cuda_backend_test"
for b in src/cli/tracesweep bench/device/bench_device tests/cuda/cuda_backend_test; do
  echo "-- $b"; ldd "$build/$b"
done 2>&1 | tee "$out/ldd.log"
[[ "$dry" == "--dry-run" ]] && { log "dry run: stopping before the GPU steps"; exit 0; }

export TRACESWEEP_TRACES="$root/.device/traces" TRACESWEEP_REQUIRE_TRACES=1
log "GPU parity (cuda_backend_test) and CPU-compiled device tests"
status=0
timeout 60 "$build/tests/cuda/cuda_backend_test" > "$out/cuda_backend_test.log" 2>&1 || status=1
timeout 30 "$build/tests/cuda/device_twin_test" > "$out/device_twin_test.log" 2>&1 || status=1
timeout 60 "$build/tests/cuda/device_activity_test" > "$out/device_activity_test.log" 2>&1 || status=1
timeout 30 "$build/tests/cuda/device_parity_test" > "$out/device_parity_test.log" 2>&1 || status=1
grep -E "PASSED|FAILED|SKIPPED" "$out"/*_test.log | tee -a "$out/summary.log"
log "diagnose on the GPU vs the CPU (JSON documents must be equal)"
for f in "$root/datasets/samples/train_2rank.sqlite" "$TRACESWEEP_TRACES"/nsys/*/*.sqlite; do
  [[ -f $f ]] || continue
  timeout 60 "$build/src/cli/tracesweep" --backend cuda diagnose --format json "$f" > "$out/d_gpu.json" 2>> "$out/diagnose.log" &&
    timeout 60 "$build/src/cli/tracesweep" --backend cpu diagnose --format json "$f" > "$out/d_cpu.json" 2>> "$out/diagnose.log" &&
    cmp -s "$out/d_gpu.json" "$out/d_cpu.json" && echo "equal: $f" >> "$out/diagnose.log" ||
    { echo "DIFFERENT or failed: $f" | tee -a "$out/summary.log"; status=1; }
done
log "benchmark (at most 150 s)"
timeout 150 "$build/bench/device/bench_device" --sizes 10000000,100000000 --reps 3 \
  2>&1 | tee "$out/bench_device.log" || log "benchmark failed or timed out"
log "done, tests status $status"
exit $status
