#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Data flows one way (docs/architecture.md): no source includes a header of a layer above its own
# or beside it. Each rule: a folder, and the include patterns (extended regex on the quoted or
# bracketed header path) its sources must not use. Prints every violation; exit 1 on any.
#   check_layers.sh REPO_ROOT
set -euo pipefail
root="$1"
cd "$root"

readers='tracesweep/(ingest/|input_reader\.hpp)|"ingest/'
model='tracesweep/model/|"model/'
session='tracesweep/session/|"session/'
backends='tracesweep/cuda_backend\.hpp|"cpu/|"cuda/|"backends/'
analyses='tracesweep/(analysis|reports)/|"(analysis|reports)/'
writers='tracesweep/output/writer|tracesweep/(summary_report|stats_report_writer)\.hpp|tracesweep/tables/report\.hpp|"(output|report)/'
cli='"cli/'
any_result_table='tracesweep/output/'
fleet='tracesweep/fleet/|"fleet/'

rules=(
  "src/core|$readers|$model|$session|$backends|tracesweep/backend\.hpp|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/ingest|$model|$session|$backends|tracesweep/backend\.hpp|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/model|$readers|$session|$backends|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/cpu|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet"
  "cuda|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/backends|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/session|$readers|$backends|$analyses|$writers|$any_result_table|$cli|$fleet"
  "src/analysis|$readers|$backends|$writers|$cli|$fleet"
  "src/reports|$readers|$backends|$writers|$cli|$fleet"
  "src/output|$readers|$model|$session|$backends|tracesweep/backend\.hpp|$analyses|$cli|tracesweep/event_table|tracesweep/fleet/"
  "src/fleet|$backends|$cli|tracesweep/ingest/"
)

status=0
checked=0
for rule in "${rules[@]}"; do
  dir="${rule%%|*}"
  forbidden="${rule#*|}"
  [[ -d $dir ]] || continue
  while IFS= read -r -d '' f; do
    checked=$((checked + 1))
    if hits=$(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]" "$f" |
      grep -E "$forbidden"); then
      while IFS= read -r h; do
        echo "layering: $f:${h%%:*}: ${h#*:} (not allowed in $dir)"
      done <<<"$hits"
      status=1
    fi
  done < <(find "$dir" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)
done
echo "layering: $checked files checked"
exit "$status"
