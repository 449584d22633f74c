#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run on a networked Debian 12 machine before bench/device-check.sh: fetches the .deb files of
# the -dev packages the build needs into .device/debs and copies the shared traces into
# .device/traces (both git-ignored, never committed). Keeps the total under 64 MiB.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
traces="${1:-$root/../shared/traces}"
mkdir -p "$root/.device/debs" "$root/.device/traces"
cd "$root/.device/debs"
pkgs=(libsqlite3-dev libsqlite3-0 libfmt-dev libfmt9 libcli11-dev libsimdjson-dev libsimdjson14
      libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libips4o-dev libgtest-dev zlib1g-dev zlib1g)
apt-get download "${pkgs[@]}"
rm -rf "$root/.device/traces" && cp -a "$traces" "$root/.device/traces"
du -sh "$root/.device"
total=$(du -sb "$root/.device" | cut -f1)
if (( total > 64 * 1024 * 1024 )); then echo "device-prepare: .device is over 64 MiB" >&2; exit 1; fi
