#!/usr/bin/env python3
"""Checks `pisa-char export` against the documents it read, with Python's
csv module (as pandas.read_csv and R's read.csv read RFC 4180): one row per
number of every document (counted here by walking the JSON: every int and
float but those of config and tool and the fields that name an entry),
and chosen values found where docs/pisa-char.md says.
Usage: check_export.py TABLE DELIMITER DOC..."""
import csv
import json
import sys

table, delimiter, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
delimiter = "\t" if delimiter == "tab" else delimiter
NAMING = {"name", "linkage_name", "file", "line", "module", "directory",
          "rank", "thread", "os_tid", "pid", "ppid"}
ENTRY_KEYS = {"cache_bytes", "line_bytes", "window", "history", "block"}


def numbers(v, skip_entry_keys=False):
    """How many numbers v holds (bools are no numbers)."""
    if isinstance(v, bool):
        return 0
    if isinstance(v, (int, float)):
        return 1
    if isinstance(v, list):
        return sum(numbers(e, isinstance(e, dict) and bool(ENTRY_KEYS & set(e))) for e in v)
    if isinstance(v, dict):
        return sum(numbers(x) for k, x in v.items()
                   if not (skip_entry_keys and k in ENTRY_KEYS))
    return 0


def expected_rows(doc):
    n = 0
    for key, v in doc.items():
        if key in ("schema", "tool", "config", "mode", "complete"):
            continue
        if isinstance(v, list):
            n += sum(numbers({k: x for k, x in e.items() if k not in NAMING}) for e in v)
        elif isinstance(v, dict):
            n += numbers(v)
    return n


with open(table, newline="") as f:
    rows = list(csv.reader(f, delimiter=delimiter))
assert rows[0] == ["document", "scope", "scope_key", "metric", "value"], rows[0]
by_doc = {}
for r in rows[1:]:
    assert len(r) == 5, r
    by_doc.setdefault(r[0], {})[(r[1], r[2], r[3])] = r[4]
failures = []
for path in docs:
    doc = json.load(open(path))
    got = sum(1 for r in rows[1:] if r[0] == path)
    want = expected_rows(doc)
    if got != want:
        failures.append(f"{path}: {got} rows, expected {want}")
    cells = by_doc.get(path, {})
    t = doc["totals"]
    checks = [(("totals", "", "instructions"), t["instructions"])]
    if "memory_entropy" in t:
        checks.append((("totals", "", "memory_entropy.%d" % (len(t["memory_entropy"]) - 1)),
                       t["memory_entropy"][-1]))
    for e in t.get("reuse_distance", []):
        for i, b in enumerate(e["bins"]):
            checks.append((("totals", "", f"reuse_distance.{e['line_bytes']}.bins.{i}"), b))
    for e in t.get("miss_ratio", []):
        checks.append((("totals", "", f"miss_ratio.{e['cache_bytes']}.{e['line_bytes']}.ratio"),
                       e["ratio"]))
    for fn in doc["functions"]:
        names = [g["name"] for g in doc["functions"]]
        key = fn["name"] if names.count(fn["name"]) == 1 else f"{fn['name']} ({fn['module']})"
        checks.append((("function", key, "instructions"), fn["instructions"]))
    for (scope, key, metric), value in checks:
        cell = cells.get((scope, key, metric))
        if cell is None or float(cell) != float(value):
            failures.append(f"{path}: {scope} {key!r} {metric}: {cell!r}, expected {value!r}")
for f in failures:
    print("check_export:", f)
sys.exit(1 if failures else 0)
