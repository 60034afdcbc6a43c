#!/usr/bin/env python3
"""Checks `pisa-char show --json` of a counter-mode document against the
document itself, recomputing every value independently: regions largest
seconds first with their share of the regions' summed time, the intervals'
snapshot count, thread count, time span and bandwidth min/mean/max.
Usage: check_show_view.py DOC VIEW"""
import json
import sys


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main(doc_path, view_path):
    d, v = json.load(open(doc_path)), json.load(open(view_path))
    regions = sorted(d["regions"], key=lambda r: -r["seconds"])
    total = sum(r["seconds"] for r in d["regions"])
    assert [r["name"] for r in v["regions"]] == [r["name"] for r in regions]
    for r, w in zip(regions, v["regions"]):
        assert close(w["share_of_time"], r["seconds"] / total), (r, w)
        assert w["executions"] == r["executions"]
        assert close(w["read_bytes_per_second"],
                     r["bandwidth"]["read_bytes_per_second"])
    iv, snaps = v["intervals"], d["intervals"]
    assert snaps, "the run took no snapshot"
    assert iv["snapshots"] == len(snaps)
    assert iv["threads"] == len({s["thread"] for s in snaps})
    assert close(iv["start"], min(s["start"] for s in snaps))
    assert close(iv["end"], max(s["end"] for s in snaps))
    for key in ("read_bytes_per_second", "write_bytes_per_second"):
        values = [s[key] for s in snaps]
        assert close(iv[key]["min"], min(values))
        assert close(iv[key]["max"], max(values))
        assert close(iv[key]["mean"], sum(values) / len(values))
    assert v["counter"]["sample_every"] == d["counter"]["sample_every"]
    assert v["counter"]["updates"] == d["counter"]["updates"]
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
