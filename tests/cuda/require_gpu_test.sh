#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# TRACESWEEP_REQUIRE_GPU=1 turns the GPU test's skip into a failure. On a machine without a
# usable GPU the test skips by default and must fail with the variable set; on a machine with
# one it runs and must pass either way. Usage: require_gpu_test.sh CUDA_BACKEND_TEST_BINARY
set -u
bin=$1
filter=--gtest_filter=CudaBackend.PrimitivesMatchCpu
out=$(env -u TRACESWEEP_REQUIRE_GPU "$bin" "$filter" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  echo "the GPU test fails without TRACESWEEP_REQUIRE_GPU (exit $rc):"
  echo "$out"
  exit 1
fi
if printf '%s\n' "$out" | grep -q '^\[  SKIPPED \]'; then
  # No usable GPU here: the variable must turn the skip into a failure.
  out=$(TRACESWEEP_REQUIRE_GPU=1 "$bin" "$filter" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "TRACESWEEP_REQUIRE_GPU=1 did not fail the GPU test on a machine without a GPU:"
    echo "$out"
    exit 1
  fi
  if ! printf '%s\n' "$out" | grep -q 'TRACESWEEP_REQUIRE_GPU=1 but no usable GPU'; then
    echo "the GPU test failed for another reason:"
    echo "$out"
    exit 1
  fi
  echo "no GPU here: skipped by default, failed (exit $rc) with TRACESWEEP_REQUIRE_GPU=1"
  exit 0
fi
# A GPU is usable: the test ran; with the variable it must run and pass too.
TRACESWEEP_REQUIRE_GPU=1 "$bin" "$filter" >/dev/null 2>&1 || {
  echo "the GPU test fails with TRACESWEEP_REQUIRE_GPU=1 on a machine with a GPU"
  exit 1
}
echo "a GPU is usable: the test ran and passed with and without TRACESWEEP_REQUIRE_GPU=1"
