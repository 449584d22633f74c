#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Compares every command × format on every real trace with the recorded goldens
# (outputs.tar.xz); prints the first lines of each difference and exits 1 on any.
#   check.sh TRACESWEEP_BINARY
# Traces: $TRACESWEEP_TRACES, else ../shared/traces beside the repository; when absent the test
# skips (exit 77) unless TRACESWEEP_REQUIRE_TRACES=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$1"
traces="${TRACESWEEP_TRACES:-$root/../shared/traces}"
if [[ ! -d "$traces" ]]; then
  if [[ "${TRACESWEEP_REQUIRE_TRACES:-}" == 1 ]]; then
    echo "golden: traces folder $traces is missing and TRACESWEEP_REQUIRE_TRACES=1" >&2
    exit 1
  fi
  echo "golden: traces folder $traces not found (set TRACESWEEP_TRACES): skipped"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/expected"
xz -dc "$here/outputs.tar.xz" | tar -C "$work/expected" -xf -
bash "$here/run_all.sh" "$bin" "$traces" "$root/datasets/samples/train_2rank.sqlite" "$work/actual"
status=0
listed=0
expected_names() {  # every recorded output, or with TRACESWEEP_GOLDEN_SUBSET=1 those it makes
  if [[ "${TRACESWEEP_GOLDEN_SUBSET:-}" == 1 ]]; then
    (cd "$work/expected/outputs" && ls) |
      grep -Ev '\.(summary|overview|tb)\.(text|csv\..*)$'
  else
    (cd "$work/expected/outputs" && ls)
  fi
}
if ! diff <(expected_names) <(cd "$work/actual" && ls) >"$work/names.diff"; then
  echo "golden: the set of outputs differs (< expected, > actual):"
  cat "$work/names.diff"
  status=1
fi
for f in "$work/expected/outputs"/*; do
  name="$(basename "$f")"
  [[ -f "$work/actual/$name" ]] || continue
  if ! cmp -s "$f" "$work/actual/$name"; then
    status=1
    if ((listed < 12)); then
      echo "golden: $name differs:"
      diff -u "$f" "$work/actual/$name" | head -n 30 || true
    fi
    listed=$((listed + 1))
  fi
done
total=$(ls "$work/actual" | wc -l)
echo "golden: $total outputs compared, $listed differ"
exit "$status"
