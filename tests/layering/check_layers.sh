#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Data flows one way (docs/architecture.md): no source or header includes a header of a layer
# above its own or beside it. Each rule: a folder (FOLDER:top for its files only, not its
# subfolders), and the include patterns (extended regex on the quoted or bracketed header path)
# its sources must not use. Each alternative of a pattern names a header or a folder that must
# exist, so the rules follow the tree. Prints every violation; exit 1 on any.
#   check_layers.sh REPO_ROOT
set -euo pipefail
root="$1"
cd "$root"

readers='tracesweep/ingest/|tracesweep/input_reader\.hpp|"ingest/'
model='tracesweep/model/|"model/'
session='tracesweep/session/|"session/'
backend_interface='tracesweep/backend\.hpp'
backends='tracesweep/cuda_backend\.hpp|"cpu/|"cuda/|"backends/'
analyses='tracesweep/analysis/|tracesweep/reports/|"analysis/|"reports/'
writers='tracesweep/output/writer\.hpp|"output/'
any_result_table='tracesweep/output/'
columns_internals='tracesweep/event_table\.hpp'
generator='tracesweep/generator/'
cli='"cli/'
python='"python/'
fleet='tracesweep/fleet/|"fleet/'

below_model="$readers|$model|$session|$backends|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
rules=(
  "src/core|$below_model|$backend_interface|$python"
  "include/tracesweep:top|$below_model|$python"
  "src/ingest|$model|$session|$backends|$backend_interface|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "include/tracesweep/ingest|$model|$session|$backends|$backend_interface|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "src/model|$readers|$session|$backends|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "include/tracesweep/model|$readers|$session|$backends|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "src/cpu|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "cuda|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "src/backends|$readers|$model|$session|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "src/session|$readers|$backends|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "include/tracesweep/session|$readers|$backends|$analyses|$writers|$any_result_table|$cli|$fleet|$generator|$python"
  "src/analysis|$readers|$backends|$writers|$cli|$fleet|$generator|$python"
  "include/tracesweep/analysis|$readers|$backends|$writers|$cli|$fleet|$generator|$python"
  "src/reports|$readers|$backends|$writers|$cli|$fleet|$generator|$python"
  "include/tracesweep/reports|$readers|$backends|$writers|$cli|$fleet|$generator|$python"
  "src/output|$readers|$model|$session|$backends|$backend_interface|$analyses|$cli|$columns_internals|$fleet|$generator|$python"
  "include/tracesweep/output|$readers|$model|$session|$backends|$backend_interface|$analyses|$cli|$columns_internals|$fleet|$generator|$python"
  "src/cli|$python"
  "src/fleet|$backends|$cli|tracesweep/ingest/|$generator|$python"
  "include/tracesweep/fleet|$backends|$cli|tracesweep/ingest/|$generator|$python"
)

status=0

# Every alternative names what exists: a header, a folder of headers, or a source folder.
for rule in "${rules[@]}"; do
  dir="${rule%%|*}"
  [[ -d ${dir%:top} ]] || { echo "layering: rule folder $dir does not exist"; status=1; }
done
IFS='|' read -r -a alternatives <<<"${below_model}|${backend_interface}|${columns_internals}"
for a in "${alternatives[@]}"; do
  case "$a" in
    tracesweep/*\\.hpp) path="include/${a//\\/}" && [[ -f $path ]] ;;
    tracesweep/*/) path="include/$a" && [[ -d $path ]] ;;
    \"*/) path="${a#\"}" && { [[ -d src/$path ]] || [[ -d $path ]]; } ;;
    *) path="$a" && false ;;
  esac || {
    echo "layering: the pattern $a names no header or folder of the tree"
    status=1
  }
done

checked=0
for rule in "${rules[@]}"; do
  dir="${rule%%|*}"
  forbidden="${rule#*|}"
  depth=()
  [[ $dir == *:top ]] && dir="${dir%:top}" && depth=(-maxdepth 1)
  [[ -d $dir ]] || continue
  files=()
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$dir" "${depth[@]}" -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)
  checked=$((checked + ${#files[@]}))
  [[ ${#files[@]} -gt 0 ]] || continue
  # FILE:LINE:TEXT of every include line; the patterns see TEXT only (not the file's path).
  hits=$(grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]" "${files[@]}" |
    forbidden="$forbidden" awk '{ text = $0; sub(/^[^:]*:[0-9]+:/, "", text)
                                  if (text ~ ENVIRON["forbidden"]) print }') || true
  [[ -n $hits ]] || continue
  while IFS= read -r h; do
    at="${h#*:}"
    echo "layering: ${h%%:*}:${at%%:*}: ${at#*:} (not allowed in $dir)"
  done <<<"$hits"
  status=1
done
echo "layering: $checked files checked"
exit "$status"
