#!/usr/bin/env python3
"""Asserts that a counter-mode document counts what a deep-mode document of
the same program and input counts: the instruction mix, the memory access
counts and the external calls, for the totals, every thread and every
function.  Usage: counter-compare.py COUNTER.json DEEP.json"""
import json
import sys

KEYS = ("instructions", "instruction_mix", "memory_accesses", "external_calls")


def counted(metrics):
    return {k: metrics[k] for k in KEYS}


def main(counter_path, deep_path):
    with open(counter_path) as f:
        counter = json.load(f)
    with open(deep_path) as f:
        deep = json.load(f)
    assert counter["mode"] == "counter" and deep["mode"] == "deep"
    pairs = [("totals", counter["totals"], deep["totals"])]
    pairs += [(f"thread {i}", c, d) for i, (c, d) in
              enumerate(zip(counter["threads"], deep["threads"]))]
    cf = {f["linkage_name"]: f for f in counter["functions"]}
    df = {f["linkage_name"]: f for f in deep["functions"]}
    if set(cf) != set(df):
        print(f"functions differ: counter {sorted(cf)} deep {sorted(df)}")
        return 1
    pairs += [(f"function {n}", cf[n], df[n]) for n in sorted(cf)]
    if len(counter["threads"]) != len(deep["threads"]):
        print("thread counts differ")
        return 1
    failed = 0
    for where, c, d in pairs:
        for k in KEYS:
            if c[k] != d[k]:
                print(f"{where}: {k} differs\n  counter {json.dumps(c[k])}\n"
                      f"  deep    {json.dumps(d[k])}")
                failed = 1
    print(f"compared {len(pairs)} entries: {'FAILED' if failed else 'equal'}")
    return failed


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
