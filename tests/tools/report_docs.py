#!/usr/bin/env python3
"""Writes N pisa-char/1 documents with every metric family the report plots
(entropy, reuse at 8..512-byte lines, locality, miss ratios, ilp, dlp, bblp)
and a few functions, for the report tests.
Usage: report_docs.py OUTDIR N [--without FAMILY,...] [--parallel-every K]
                      [--objects K]
  --without        families left out of every document (as --metrics would)
  --parallel-every only every K-th application has ilp, dlp and bblp
  --objects        every document has `objects`: K heap objects (object k
                   of application i at app<i>.c line 100 + k, 1000 * (K - k)
                   + i accesses), a global and `unknown`
Application 3 has a long name and application 5 one with <, &, > and quotes,
so that the tests see truncation and escaping; application 5's global has
such a name and file too."""
import argparse
import json
import os

CATEGORIES = ["memory", "int", "fp", "bitwise", "conversion", "address",
              "control", "vector", "other"]
LINE_SIZES = [8, 16, 32, 64, 128, 256, 512]
PARALLEL = ("ilp", "dlp", "bblp")


def name_of(i):
    if i == 3:
        return "app03-with-a-name-much-longer-than-any-axis-label"
    if i == 5:
        return "app05-<b>&amp;\"quoted'"
    return "app%02d" % i


def reuse(i, scale):
    """Histograms whose shape moves with i: a peak at bin 2 + i % 9."""
    hists = []
    for k, line in enumerate(LINE_SIZES):
        nbins = 14 - k
        bins = [(scale // 50) * (1 + (b * 7 + i) % 5) for b in range(nbins)]
        bins[min(2 + i % 9, nbins - 1)] += scale // 4
        hists.append({"line_bytes": line, "cold": scale // (20 * (k + 1)),
                      "bins": bins})
    return hists


def ilp(i):
    schedules = []
    for window, factor in ((0, 1.0), (64, 0.5)):
        value = (2.0 + i % 11) * factor
        schedules.append({"window": window, "ilp": max(value, 1.0),
                          "categories": {c: 1.0 + (i + j) % 4
                                         for j, c in enumerate(CATEGORIES)},
                          "opcodes": {"load": 1.5, "add": 2.0}})
    return schedules


def metrics(i, scale, without, parallel):
    instr = scale * (10 + i % 7)
    loads, stores = instr // (3 + i % 4), instr // (9 + i % 5)
    cats = {c: instr // (12 + 2 * j + i % 3) for j, c in enumerate(CATEGORIES)}
    cats["memory"] = loads + stores
    cats["int"] = instr - sum(v for c, v in cats.items() if c != "int")
    m = {
        "instructions": instr,
        "instruction_mix": {
            "opcodes": {"load": loads, "store": stores},
            "categories": cats, "phi": 0,
            "bytes_loaded": 8 * loads, "bytes_stored": 8 * stores,
            "vector": {"instructions": 0, "lanes": {}, "bits": {}}},
        "memory_accesses": {"loads": loads, "stores": stores, "atomics": 0,
                            "memcpy": 0, "memset": 0, "gathers": 0,
                            "scatters": 0},
        "external_calls": {},
        "footprint": {"bytes": 4096 << (i % 12),
                      "blocks": {str(b): (4096 << (i % 12)) // b
                                 for b in LINE_SIZES}},
        "memory_entropy": [max(0.0, 8 + i % 9 - max(0, k - 3) * 0.9)
                           for k in range(13)],
        "reuse_distance": reuse(i, scale),
        "spatial_locality": {
            "score": 0.1 + (i % 9) / 10, "score_strict": 0.05 + (i % 9) / 20,
            "pairs": [{"line_bytes": b, "score": 0.5, "strict": 0.25}
                      for b in LINE_SIZES[:-1]]},
        "miss_ratio": [{"cache_bytes": c, "line_bytes": 64,
                        "ratio": 1 / (2 + i + j)}
                       for j, c in enumerate((32768, 1048576, 33554432))],
    }
    if parallel:
        m["ilp"] = ilp(i)
        m["dlp"] = {"dlp1": 2.0 + i % 13, "dlp2": 1.5 + i % 13}
        m["bblp"] = {"bblp": 1.0 + i % 5, "bblp_smart": 2.0 + i % 5,
                     "pbblp": 4.0 * (1 + i % 8)}
    family = {"entropy": "memory_entropy", "reuse": "reuse_distance",
              "locality": "spatial_locality", "miss": "miss_ratio",
              "ilp": "ilp", "dlp": "dlp", "bblp": "bblp"}
    for f in without:
        m.pop(family[f], None)
    return m


def classes(n):
    return {"irregular": {"accesses": n // 4}, "constant": {"accesses": 0},
            "strided": {"accesses": n - n // 4}}


def data_object(kind, name, site, n):
    o = {"kind": kind, "name": name, "accesses": n, "loads": n - n // 3,
         "stores": n // 3, "bytes_loaded": 8 * (n - n // 3),
         "bytes_stored": 8 * (n // 3), "footprint_bytes": 64 * (n // 8),
         "access_classes": classes(n),
         "functions": [{"name": "kernel", "accesses": n}] if n else []}
    if site is not None:
        o["site"] = site
    return o


def objects(i, k_objects):
    """K heap objects by accesses, then a global and unknown."""
    out = []
    for k in range(k_objects):
        o = data_object("heap", "malloc",
                        [{"file": "app%d.c" % i, "line": 100 + k},
                         {"file": "app%d.c" % i, "line": 20}],
                        1000 * (k_objects - k) + i)
        o.update({"allocations": k + 1, "frees": k, "bytes_allocated":
                  4096 * (k + 1), "peak_live_bytes": 4096,
                  "first_allocation": 10 * k, "last_free":
                  None if k == 0 else 10 * k + 5})
        out.append(o)
    name, file = ("tbl", "app%d.c" % i) if i != 5 else \
        ("tbl<b>&amp;", "src&<x>/o'q\".c")
    g = data_object("global", name, [{"file": file, "line": 3}], 500)
    g["size"] = 2048
    out.append(g)
    out.append(data_object("unknown", "unknown", None, 7))
    return out


def document(i, without, parallel, k_objects=0):
    functions = []
    for j, fname in enumerate(("kernel_%d" % i, "init_array", "main")):
        f = {"name": fname, "linkage_name": fname,
             "file": None if fname == "main" else "app%d.c" % i,
             "line": None if fname == "main" else 10 * (j + 1),
             "module": "app%d.c" % i}
        f.update(metrics(i + j, 1000 // (j + 1), without, parallel))
        functions.append(f)
    doc = {"schema": "pisa-char/1",
            "tool": {"name": "pisa-char", "version": "0.1.0",
                     "llvm": "19.1.7"},
            "program": {"path": "./" + name_of(i), "args": [],
                        "exit_status": 0, "signal": None,
                        "wall_seconds": 0.5 + i},
            "mode": "deep", "complete": i != 2,
            "config": {"line_sizes": LINE_SIZES},
            "totals": metrics(i, 10000, without, parallel),
            "threads": [], "functions": functions}
    if k_objects:
        doc["objects"] = objects(i, k_objects)
    return doc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("outdir")
    p.add_argument("n", type=int)
    p.add_argument("--without", default="")
    p.add_argument("--parallel-every", type=int, default=1)
    p.add_argument("--objects", type=int, default=0)
    a = p.parse_args()
    without = [f for f in a.without.split(",") if f]
    os.makedirs(a.outdir, exist_ok=True)
    for i in range(a.n):
        parallel = (i % a.parallel_every == 0 and
                    not set(PARALLEL) <= set(without))
        path = os.path.join(a.outdir, name_of(i) + ".pisa.json")
        with open(path, "w") as f:
            json.dump(document(i, without, parallel, a.objects), f)


if __name__ == "__main__":
    main()
