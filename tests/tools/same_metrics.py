#!/usr/bin/env python3
"""Asserts that pisa-char documents hold the same metrics.
Usage: same_metrics.py REFERENCE DOC...  Compares each DOC's config,
totals, functions and threads (without os_tid, which differs from run to
run), and its intervals and phases when it has them, with REFERENCE's, and prints the first path that differs."""
import json
import sys


def metrics(path):
    with open(path) as f:
        d = json.load(f)
    threads = [{k: v for k, v in t.items() if k != "os_tid"}
               for t in d["threads"]]
    kept = {"config": d["config"], "totals": d["totals"],
            "functions": d["functions"], "threads": threads}
    for key in ("intervals", "phases"):  # deep mode's time series
        if key in d:
            kept[key] = d[key]
    return kept


def first_difference(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}/{k}"
            diff = first_difference(a[k], b[k], f"{path}/{k}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (lengths {len(a)} and {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            diff = first_difference(x, y, f"{path}/{i}")
            if diff:
                return diff
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def main(argv):
    reference = metrics(argv[1])
    for path in argv[2:]:
        diff = first_difference(reference, metrics(path))
        if diff:
            print(f"same_metrics: {path} differs from {argv[1]} at {diff}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
