#!/usr/bin/env python3
"""Asserts that a counter-mode document counts what a deep-mode document of
the same program and input counts: the instruction mix, the memory access
counts and the external calls, for the totals, every thread and every
function.  Counter mode attributes inlined code to the function it was
inlined into: the deep run must do the same (PISA_INLINED=0).  Deep mode's
memory_accesses also has `references`, which counter mode cannot count
(it does not see gather lanes): without gathers and scatters it must be
loads + stores + atomics + 2 memcpy + memset (one accounting).
Usage: counter-compare.py COUNTER.json DEEP.json"""
import json
import sys

KEYS = ("instructions", "instruction_mix", "memory_accesses", "external_calls")


def deep_only_references(accesses):
    """Deep's memory_accesses without `references`, after checking it."""
    a = dict(accesses)
    refs = a.pop("references")
    if a["gathers"] == 0 and a["scatters"] == 0:
        assert refs == (a["loads"] + a["stores"] + a["atomics"] +
                        2 * a["memcpy"] + a["memset"]), (refs, a)
    return a


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
        d = dict(d, memory_accesses=deep_only_references(d["memory_accesses"]))
        for k in KEYS:
            if c[k] != d[k]:
                print(f"{where}: {k} differs\n  counter {json.dumps(c[k])}\n"
                      f"  deep    {json.dumps(d[k])}")
                failed = 1
    print(f"compared {len(pairs)} entries: {'FAILED' if failed else 'equal'}")
    return failed


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
