#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the fuzz targets' seed corpora in OUTDIR/<target>/ from small real traces and small
# generated ones; nothing here is committed (the regression corpus is tests/fuzz/regressions/).
#   tests/fuzz/make_seeds.sh OUTDIR
# Real traces: $TRACESWEEP_TRACES (default ../shared/traces beside the repository), small files
# only: Kineto traces under 300 KB decompressed (as JSON; the smallest also as gzip), nsys
# exports under 1.5 MB. Generated traces: `tracesweep generate` from $TRACESWEEP_BIN (default
# build/src/cli/tracesweep), when it exists. Missing sources are said and skipped.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 1
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$1"
traces="${TRACESWEEP_TRACES:-$root/../shared/traces}"
bin="${TRACESWEEP_BIN:-$root/build/src/cli/tracesweep}"

rm -rf "$out"
mkdir -p "$out"/{fuzz_chrome_events,fuzz_decimal_time,fuzz_gzip_source,fuzz_nsys_reader,fuzz_text_escaping,fuzz_results_store}

# A name for a seed from its path under the traces folder.
seed_name() { echo "${1#"$traces"/}" | tr '/' '_'; }

if [[ -d "$traces" ]]; then
  while IFS= read -r f; do
    n="$(seed_name "$f")"
    size=$(gzip -dc "$f" | wc -c)
    if ((size < 300 * 1024)); then
      gzip -dc "$f" >"$out/fuzz_chrome_events/${n%.gz}"
    fi
    if (($(stat -c %s "$f") < 8 * 1024)); then
      cp "$f" "$out/fuzz_chrome_events/$n"
    fi
    if (($(stat -c %s "$f") < 300 * 1024)); then
      # fuzz_gzip_source: control byte 0x7f (raw gzip, 1456-byte reads, 2318-byte pieces), the file
      { printf '\x7f'; cat "$f"; } >"$out/fuzz_gzip_source/$n"
    fi
  done < <(find "$traces/kineto" -name '*.json.gz' -size -1500k | sort)
  while IFS= read -r f; do
    cp "$f" "$out/fuzz_nsys_reader/$(seed_name "$f")"
  done < <(find "$traces/nsys" -name '*.sqlite' -size -1536k | sort)
else
  echo "make_seeds: no traces at $traces (set TRACESWEEP_TRACES): real-trace seeds skipped" >&2
fi

if [[ -x "$bin" ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$bin" generate --format nsys-sqlite --ranks 1 --steps 1 --kernels-per-step 5 \
    -o "$tmp/gen.sqlite" >/dev/null
  cp "$tmp/gen.sqlite" "$out/fuzz_nsys_reader/generated.sqlite"
  "$bin" generate --format kineto-json --ranks 1 --steps 1 --kernels-per-step 10 --plant all \
    -o "$tmp/gen-" >/dev/null
  cp "$tmp/gen-rank-0.json" "$out/fuzz_chrome_events/generated.json"
  # fuzz_results_store: a store a scan wrote (a two-rank job with every pattern planted: gaps,
  # findings, kernels), the same emptied of its rows, and with traces.ranks not a list; each
  # rewritten with 512-byte pages out of WAL mode (14 to 24 KB: small inputs mutate faster).
  if command -v sqlite3 >/dev/null; then
    mkdir -p "$tmp/job"
    "$bin" generate --format kineto-json --ranks 2 --steps 2 --kernels-per-step 10 --plant all \
      -o "$tmp/job/train-" >/dev/null
    "$bin" --quiet scan --db "$tmp/scanned.sqlite" "$tmp/job" >/dev/null
    cp "$tmp/scanned.sqlite" "$tmp/empty.sqlite"
    sqlite3 "$tmp/empty.sqlite" "$(sqlite3 "$tmp/scanned.sqlite" "SELECT 'DELETE FROM ' || name ||
      ';' FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")"
    # (once an uncaught std::stol in load_jobs)
    cp "$tmp/scanned.sqlite" "$tmp/ranks-not-a-list.sqlite"
    sqlite3 "$tmp/ranks-not-a-list.sqlite" "UPDATE traces SET ranks = 'x'"
    for s in scanned empty ranks-not-a-list; do
      sqlite3 "$tmp/$s.sqlite" 'PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;' \
        >/dev/null
      cp "$tmp/$s.sqlite" "$out/fuzz_results_store/$s.sqlite"
    done
  else
    echo "make_seeds: no sqlite3: fuzz_results_store's generated stores skipped" >&2
  fi
else
  echo "make_seeds: no tracesweep at $bin (set TRACESWEEP_BIN): generated seeds skipped" >&2
fi

# fuzz_chrome_events: a few tiny hand-written traces (Paddle marks, bare array, keys after events,
# Paddle memory events).
printf '%s' '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1.5,"dur":2,"pid":0,"tid":7,"args":{"stream":7,"correlation":3}}]}' \
  >"$out/fuzz_chrome_events/tiny_kineto.json"
printf '%s' '[{"ph":"X","cat":"Operator","name":"matmul [1.234 ms]","ts":10,"dur":1234,"pid":1,"tid":"12(Python)"},{"ph":"X","cat":"Kernel","name":"gemm","ts":11,"dur":3,"pid":0,"tid":"stream 7"}]' \
  >"$out/fuzz_chrome_events/tiny_paddle_array.json"
printf '%s' '{"traceEvents":[{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","ts":1e3,"dur":0.001,"args":{"bytes":64}}],"baseTimeNanoseconds":5,"distributedInfo":{"rank":3},"schemaVersion":"1.0.1"}' \
  >"$out/fuzz_chrome_events/tiny_keys_after.json"
printf '%s' '{"traceEvents":[{"name":"[memory]","pid":9,"tid":"7(C++)","ts":11,"ph":"i","cat":"ReservedFree","args":{"place":"Place(gpu:0)","addr":"1","increase_bytes":-2048,"current_allocated":0,"current_reserved":0}},{"name":"[memory]","tid":"7(C++)","ts":12,"ph":"i","cat":"Allocate","args":{"place":"CUDAPlace(1)","increase_bytes":64}}],"schemaVersion":"1.0.2"}' \
  >"$out/fuzz_chrome_events/tiny_paddle_memory.json"

# fuzz_decimal_time: the first byte is the scale (byte % 10), the rest the token.
i=0
for token in 0 1 -1 1.5 2.5 -2.5 0.0005 1694039959123.456 123456789012345 1234567890123456789 \
  9223372036854775.807 -9223372036854775.808 1e3 1.5E-3 -0.0 0.1e1 1e-400 1e400 \
  12345678901234567890123456789012345678901234567890123456789012345678.5e-60 '7 ' 01 1. .5 -; do
  for scale in 0 3 9; do
    printf "\\x0${scale}%s" "$token" >"$out/fuzz_decimal_time/seed_$i"
    i=$((i + 1))
  done
done

# fuzz_gzip_source: round trips (control byte with bit 7 set) of short texts.
printf '\x80%s' '{"traceEvents":[]}' >"$out/fuzz_gzip_source/roundtrip_json"
printf '\xf3%s' 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' \
  >"$out/fuzz_gzip_source/roundtrip_run"

# fuzz_text_escaping: names as a hostile trace holds them (terminal escapes, bytes not UTF-8).
printf 'clear\x1b[2J\x1b]0;owned\x07 row\rsplit\nhere' >"$out/fuzz_text_escaping/escapes"
printf 'bad\xff\xc0\xed\xa0\x80name \xc2\x9b2J caf\xc3\xa9' >"$out/fuzz_text_escaping/not_utf8"
printf 'void k<float, 4>(Params&)' >"$out/fuzz_text_escaping/kernel"

for d in "$out"/*/; do
  echo "make_seeds: $(basename "$d"): $(find "$d" -type f | wc -l) files, $(du -sk "$d" | cut -f1) KiB"
done
