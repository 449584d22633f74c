#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layering check fails on a planted upward include and passes on the real tree: a scratch
# copy of the tree's source folders gets one upward include at a time (an analysis header in the
# columns, a CLI header in a reader, an nsys report header in a top-level core header, a writer
# in the model's headers), and one pattern loses the header it names.
#   planted_include_test.sh REPO_ROOT
set -euo pipefail
root="$(cd "$1" && pwd)"
check="$root/tests/layering/check_layers.sh"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

fresh_copy() {
  rm -rf "$scratch/tree"
  mkdir -p "$scratch/tree"
  cp -r "$root/src" "$root/include" "$root/cuda" "$scratch/tree/"
}

failures=0
expect() {  # expect pass|fail WHAT [TEXT the failure must print]
  local want="$1" what="$2" text="${3:-}" out rc=0
  out="$(bash "$check" "$scratch/tree" 2>&1)" || rc=$?
  if [[ $want == pass && $rc -ne 0 ]] || [[ $want == fail && $rc -eq 0 ]]; then
    echo "FAIL: $what: expected $want, exit $rc"
    echo "$out"
    failures=$((failures + 1))
  elif [[ -n $text && $out != *"$text"* ]]; then
    echo "FAIL: $what: the output does not name $text"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok: $what ($want)"
  fi
}

fresh_copy
expect pass "the real tree"

plant() {  # plant FILE INCLUDE-LINE
  fresh_copy
  mkdir -p "$(dirname "$scratch/tree/$1")"
  printf '// planted\n%s\n' "$2" >"$scratch/tree/$1"
}

plant src/core/planted.cpp '#include <tracesweep/reports/nsys/gpu_trace.hpp>'
expect fail "an nsys report header in the columns" "src/core/planted.cpp:2"
plant src/core/planted.cpp '#include <tracesweep/analysis/summary.hpp>'
expect fail "an analysis header in the columns" "src/core/planted.cpp:2"
plant src/ingest/chrome/planted.cpp '#include "cli/app.hpp"'
expect fail "a CLI header in a reader" "src/ingest/chrome/planted.cpp:2"
plant include/tracesweep/planted.hpp '#include <tracesweep/reports/paddle/overview.hpp>'
expect fail "a report header in a top-level core header" "include/tracesweep/planted.hpp:2"
plant include/tracesweep/model/planted.hpp '#include <tracesweep/output/writer.hpp>'
expect fail "a writer in the model's headers" "include/tracesweep/model/planted.hpp:2"
plant src/session/planted.cpp '  #  include "reports/paddle/paddle_comm.hpp"'
expect fail "a report's private header in the session (spaced include)" "src/session/planted.cpp:2"
plant src/reports/planted.cpp '#include <tracesweep/analysis/kernel_stats.hpp>'
expect pass "an analysis header in the reports (same layer)"

fresh_copy
rm "$scratch/tree/include/tracesweep/cuda_backend.hpp"
expect fail "a pattern naming a header that does not exist" "tracesweep/cuda_backend"

[[ $failures -eq 0 ]] || exit 1
echo "planted includes: all caught"
