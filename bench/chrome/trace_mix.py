#!/usr/bin/env python3
"""Bytes per event and category mix of Kineto traces (stdlib only).
usage: trace_mix.py REFERENCE.json[.gz] CANDIDATE.json[.gz]
Prints both mixes side by side and whether each share and the bytes per event are within ±20%."""
import collections, gzip, json, sys

def mix(path):
    raw = (gzip.open(path) if path.endswith(".gz") else open(path, "rb")).read()
    events = json.loads(raw)["traceEvents"]
    kinds = collections.Counter()
    for e in events:
        ph = e.get("ph")
        kinds["X:" + str(e.get("cat")) if ph == "X" else "ph " + str(ph)] += 1
    return len(raw) / len(events), len(events), kinds

ref_bpe, ref_n, ref = mix(sys.argv[1])
gen_bpe, gen_n, gen = mix(sys.argv[2])
ok = abs(gen_bpe / ref_bpe - 1) <= 0.2
print(f"bytes/event: reference {ref_bpe:.1f}, generated {gen_bpe:.1f} ({gen_bpe / ref_bpe - 1:+.0%}) {'ok' if ok else 'OUTSIDE ±20%'}")
print(f"{'event class':<28}{'reference %':>12}{'generated %':>12}  within ±20%")
for key in sorted(set(ref) | set(gen), key=lambda k: -ref.get(k, 0)):
    r, g = 100 * ref.get(key, 0) / ref_n, 100 * gen.get(key, 0) / gen_n
    if r < 0.5 and g < 0.5:
        continue
    within = r > 0 and abs(g / r - 1) <= 0.2
    ok &= within
    print(f"{key:<28}{r:>12.1f}{g:>12.1f}  {'yes' if within else 'no'}")
print("mix matches within ±20%" if ok else "mix does NOT match within ±20%")
