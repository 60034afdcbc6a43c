#!/usr/bin/env python3
"""Asserts that a run of a signal test counted every record of the program
and of its handlers exactly.  The program prints, besides its own output,
one line per function:

    count NAME CALLS LOADS STORES

where CALLS is how many times it ran (an alarm's handler: the number of
alarms the program saw) and LOADS and STORES are its loads and stores in
one call, derived by hand in the program's source (see each test).  The
document must be complete, with exit status 0, and list each function
with CALLS * LOADS loads and CALLS * STORES stores (a function with none
may be missing).
Usage: signal-counts.py DOC.json OUTPUT [DOC.json OUTPUT ...]"""
import json
import re
import sys


def check(doc_path, out_path):
    doc = json.load(open(doc_path))
    counts = re.findall(r"^count (\S+) (\d+) (\d+) (\d+)$",
                        open(out_path).read(), re.M)
    assert counts, f"{out_path}: no `count` lines"
    assert doc["complete"] is True, f"{doc_path}: incomplete"
    assert doc["program"]["exit_status"] == 0, f"{doc_path}: exit status"
    by_name = {f["name"]: f["memory_accesses"] for f in doc["functions"]}
    for name, calls, loads, stores in counts:
        got = by_name.get(name, {"loads": 0, "stores": 0})
        want = (int(calls) * int(loads), int(calls) * int(stores))
        assert (got["loads"], got["stores"]) == want, (
            f"{doc_path}: {name}: {got['loads']} loads, {got['stores']} "
            f"stores for {calls} calls (want {want[0]} and {want[1]})")


args = sys.argv[1:]
if not args or len(args) % 2:
    sys.exit(__doc__)
for i in range(0, len(args), 2):
    check(args[i], args[i + 1])
