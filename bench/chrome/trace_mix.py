#!/usr/bin/env python3
"""Bytes per event and category mix of Kineto traces (stdlib only).
usage: trace_mix.py REFERENCE.json[.gz] CANDIDATE.json[.gz]
Prints both mixes side by side, PASS/FAIL per line: bytes per event and each major event class's
share of all events (>= 0.5 % in either trace) within ±20 % (relative) of the reference; minor
classes are listed but not judged. Exit status 1 when any line fails."""
import collections, gzip, json, sys

def mix(path):
    raw = (gzip.open(path) if path.endswith(".gz") else open(path, "rb")).read()
    events = json.loads(raw)["traceEvents"]
    kinds = collections.Counter()
    for e in events:
        ph = e.get("ph")
        kinds["X:" + str(e.get("cat")) if ph == "X" else "ph " + str(ph)] += 1
    return len(raw) / len(events), len(events), kinds

def verdict(ok):
    return "PASS" if ok else "FAIL"

ref_bpe, ref_n, ref = mix(sys.argv[1])
gen_bpe, gen_n, gen = mix(sys.argv[2])
ok = abs(gen_bpe / ref_bpe - 1) <= 0.2
print(f"{'line':<28}{'reference':>12}{'generated':>12}{'diff':>8}  within ±20%")
print(f"{'bytes/event':<28}{ref_bpe:>12.1f}{gen_bpe:>12.1f}{gen_bpe / ref_bpe - 1:>+8.0%}  {verdict(ok)}")
for key in sorted(set(ref) | set(gen), key=lambda k: -ref.get(k, 0)):
    r, g = 100 * ref.get(key, 0) / ref_n, 100 * gen.get(key, 0) / gen_n
    diff = f"{g / r - 1:>+8.0%}" if r > 0 else f"{'new':>8}"
    if r < 0.5 and g < 0.5:
        print(f"{key + ' %':<28}{r:>12.2f}{g:>12.2f}{diff}  minor (< 0.5 %), not judged")
        continue
    within = r > 0 and abs(g / r - 1) <= 0.2
    ok &= within
    print(f"{key + ' %':<28}{r:>12.1f}{g:>12.1f}{diff}  {verdict(within)}")
print(f"overall: {verdict(ok)} (bytes per event and every major class within ±20 %)")
sys.exit(0 if ok else 1)
