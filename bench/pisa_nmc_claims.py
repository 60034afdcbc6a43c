#!/usr/bin/env python3
"""PISA-NMC's findings (section 4, figure 4) against sweep documents, over
each document's region of interest (the kernel) and over the whole run:
the order of the applications by memory entropy (H_0, lowest first),
spatial locality (SLQ, highest first), DLP1 (highest first), and the gaps
DLP1/DLP2 and smart BBLP/BBLP that the paper discusses. docs/validation.md
quotes its output.
Usage: pisa_nmc_claims.py SWEEP_DIR [APP...]   (APP...: a subset to rank)"""
import glob
import json
import os
import sys


def metrics(doc, scope):
    if scope == "region":
        regions = doc.get("regions") or []
        return regions[0] if regions else None
    return doc["totals"]


def main():
    sweep, subset = sys.argv[1], sys.argv[2:]
    docs = {}
    for path in sorted(glob.glob(os.path.join(sweep, "results", "*.json"))):
        with open(path) as f:
            docs[os.path.basename(path).split(".")[0]] = json.load(f)
    for scope in ("region", "whole run"):
        rows = {}
        for app, doc in docs.items():
            m = metrics(doc, scope.split()[0])
            if m and (not subset or app in subset):
                rows[app] = {
                    "H": m["memory_entropy"][0],
                    "SLQ": m["spatial_locality"]["score"],
                    "DLP1": m["dlp"]["dlp1"],
                    "DLP1/DLP2": m["dlp"]["dlp1"] / m["dlp"]["dlp2"],
                    "smart BBLP/BBLP": m["bblp"]["bblp_smart"] /
                    max(m["bblp"]["bblp"], 1e-9)}
        print("== %s (%d applications)" % (scope, len(rows)))
        for key, highest in (("H", False), ("SLQ", True), ("DLP1", True),
                             ("DLP1/DLP2", True), ("smart BBLP/BBLP", True)):
            order = sorted(rows, key=lambda a: rows[a][key], reverse=highest)
            print("%s, %s first: %s" % (
                key, "highest" if highest else "lowest",
                ", ".join("%s %.3g" % (a, rows[a][key]) for a in order)))


if __name__ == "__main__":
    main()
