#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records the golden outputs: every command × format on every real trace and the sample, into
# outputs.tar.xz beside this script. Run it only when an output change is made on purpose, and
# say in the commit message (and CHANGELOG.md) what changed and why.
#   record.sh TRACESWEEP_BINARY [TRACES_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$1"
traces="${2:-${TRACESWEEP_TRACES:-$root/../shared/traces}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash "$here/run_all.sh" "$bin" "$traces" "$root/datasets/samples/train_2rank.sqlite" "$work/outputs"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - outputs |
  xz -9e >"$here/outputs.tar.xz"
echo "recorded $(ls "$work/outputs" | wc -l) outputs into $here/outputs.tar.xz ($(stat -c %s "$here/outputs.tar.xz") bytes)"
