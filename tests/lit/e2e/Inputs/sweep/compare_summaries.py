#!/usr/bin/env python3
"""Compares two sweep summaries ignoring timing, shard and result paths:
the rows of a merged sweep must equal those of one whole sweep, except for
what depends on where and how long things ran."""
import json
import sys

VARIABLE = {"seconds", "build_seconds", "result"}


def rows(path):
    with open(path) as f:
        d = json.load(f)
    return [{k: v for k, v in r.items() if k not in VARIABLE} for r in d["benchmarks"]], d


a_rows, a = rows(sys.argv[1])
b_rows, b = rows(sys.argv[2])
for key in ("format", "suite", "manifest", "size", "options", "benchmarks_in_suite", "counts"):
    assert a[key] == b[key], (key, a[key], b[key])
assert len(a_rows) == len(b_rows) == len(a["benchmarks_in_suite"])
for x, y in zip(a_rows, b_rows):
    assert x == y, (x, y)
print(f"same {len(a_rows)} rows")
