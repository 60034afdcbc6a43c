#!/usr/bin/env python3
"""same_schedule.py DOC REGION FUNCTION: the region's ILP (every window,
category and opcode), DLP and BBLP equal the function's, within 1e-9
relative (the region opened at the function's first instance and closed at
its caller's next: both are the span definition over the same instructions
of the thread's one schedule).  Prints what differs and exits 1."""
import json
import sys


def numbers(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from numbers(v, f"{path}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from numbers(v, f"{path}/{i}")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, x


def main(doc, region, function):
    d = json.load(open(doc))
    r = [e for e in d.get("regions", []) if e["name"] == region]
    f = [e for e in d["functions"] if e["name"] == function]
    if len(r) != 1 or len(f) != 1:
        print(f"{len(r)} regions {region!r}, {len(f)} functions {function!r}")
        return 1
    r, f = r[0], f[0]
    got = dict(numbers({k: r.get(k) for k in ("ilp", "dlp")}))
    want = dict(numbers({k: f.get(k) for k in ("ilp", "dlp")}))
    for k in ("bblp", "bblp_smart", "pbblp"):
        got["/bblp/" + k] = r["bblp"][k]
        want["/bblp/" + k] = f["bblp"][k]
    bad = [(k, got.get(k), want.get(k)) for k in sorted(set(got) | set(want))
           if k not in got or k not in want
           or abs(got[k] - want[k]) > 1e-9 * max(1.0, abs(want[k]))]
    for k, g, w in bad:
        print(f"{k}: region {g}, function {w}")
    print(f"{len(want)} values compared, {len(bad)} differ")
    return 1 if bad or not want else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
