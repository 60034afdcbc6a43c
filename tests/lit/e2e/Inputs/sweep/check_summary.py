#!/usr/bin/env python3
"""Checks a sweep summary against the result documents it names, for the
sweep lit tests. Usage: check_summary.py DIR [BASE]  (BASE: summary)
Recomputes every row's headline metrics from its result document, checks
that BASE.csv holds the same rows as BASE.json, and prints
"NAME STATUS" per row, then "checked N rows"."""
import csv
import json
import os
import sys


def miss_ratio(totals, cache_bytes):
    for e in totals.get("miss_ratio", []):
        if e["cache_bytes"] == cache_bytes and e["line_bytes"] == 64:
            return e["ratio"]
    return None


def references(t):
    """Memory references (docs/result-document.md, "One accounting"): every
    reference enters the reuse histogram of each line size once; without
    one, loads + stores + atomics + 2 memcpy + memset + gathers + scatters
    (counter mode, which does not see gather lanes)."""
    reuse = t.get("reuse_distance")
    if reuse:
        return reuse[0]["cold"] + sum(reuse[0]["bins"])
    a = t["memory_accesses"]
    return (a["loads"] + a["stores"] + a["atomics"] + 2 * a["memcpy"] +
            a["memset"] + a["gathers"] + a["scatters"])


def headline(doc):
    if doc is None:
        return dict.fromkeys(
            ["instructions", "memory_accesses_per_instruction", "bytes_loaded",
             "bytes_stored", "footprint_bytes", "memory_entropy_0",
             "memory_entropy_6", "slq", "miss_ratio_32k", "miss_ratio_32m"])
    t = doc["totals"]
    n = t["instructions"]
    entropy = t.get("memory_entropy", [])
    return {
        "instructions": n,
        "memory_accesses_per_instruction": references(t) / n,
        "bytes_loaded": t["instruction_mix"]["bytes_loaded"],
        "bytes_stored": t["instruction_mix"]["bytes_stored"],
        "footprint_bytes": t.get("footprint", {}).get("bytes"),
        "memory_entropy_0": entropy[0] if len(entropy) > 0 else None,
        "memory_entropy_6": entropy[6] if len(entropy) > 6 else None,
        "slq": t.get("spatial_locality", {}).get("score"),
        "miss_ratio_32k": miss_ratio(t, 32768),
        "miss_ratio_32m": miss_ratio(t, 32 << 20),
    }


def same(csv_text, value):
    if value is None:
        return csv_text == ""
    if isinstance(value, str):
        return csv_text == value
    return float(csv_text) == float(value)


def main(argv):
    out = argv[1]
    base = argv[2] if len(argv) > 2 else "summary"
    with open(os.path.join(out, base + ".json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, base + ".csv"), newline="") as f:
        table = list(csv.DictReader(f))
    rows = summary["benchmarks"]
    assert len(table) == len(rows), (len(table), len(rows))
    for row, line in zip(rows, table):
        assert list(line) == list(row), (list(line), list(row))
        for key, value in row.items():
            assert same(line[key], value), (row["name"], key, line[key], value)
        doc = None
        if row["result"] is not None:
            with open(os.path.join(out, row["result"])) as f:
                doc = json.load(f)
        for key, value in headline(doc).items():
            if isinstance(value, float):
                assert abs(row[key] - value) <= 1e-12 * max(1, abs(value)), (row["name"], key)
            else:
                assert row[key] == value, (row["name"], key, row[key], value)
        print(row["name"], row["status"])
    counts = summary["counts"]
    ok = sum(r["status"] == "ok" for r in rows)
    assert counts == {"finished": len(rows), "ok": ok, "failed": len(rows) - ok}, counts
    print(f"checked {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
