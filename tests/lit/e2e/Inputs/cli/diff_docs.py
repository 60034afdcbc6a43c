#!/usr/bin/env python3
"""Writes the documents of diff.test, each a copy of Inputs/docs/full.json
with values set by hand: a.json and b.json differ in exactly three numbers
(totals.instructions 1000 -> 1100: +10%; function triad's memory_entropy.0
4 -> 3: -25%; thread 0's footprint.bytes 0 -> 100: new) and b.json has one
function more; c.json is a's in counter mode, same.json equals a.json.
Usage: diff_docs.py FULL.json OUTDIR"""
import copy
import json
import sys

full, out = sys.argv[1], sys.argv[2]
base = json.load(open(full))
a = copy.deepcopy(base)
a["totals"]["instructions"] = 1000
next(f for f in a["functions"] if f["name"] == "triad")["memory_entropy"] = [4.0]
a["threads"][0]["footprint"]["bytes"] = 0

b = copy.deepcopy(a)
b["totals"]["instructions"] = 1100
next(f for f in b["functions"] if f["name"] == "triad")["memory_entropy"] = [3.0]
b["threads"][0]["footprint"]["bytes"] = 100
extra = copy.deepcopy(b["functions"][0])
extra["name"] = extra["linkage_name"] = "extra"
b["functions"].append(extra)

c = copy.deepcopy(a)
c["mode"] = "counter"
c["counter"] = {"sample_every": 1, "counters": 0, "sets": 0, "updates": 0,
                "hw_counters": []}
for name, doc in (("a", a), ("b", b), ("same", a)):
    json.dump(doc, open(f"{out}/{name}.json", "w"), indent=1)
json.dump(c, open(f"{out}/c.json", "w"))
