#!/usr/bin/env python3
"""Checks one function's memory metrics in a pisa-char document against the
brute-force reference (tests/tools/memref.py) fed with the address stream
the kernel is known to touch.
Usage: check.py DOC FUNCTION PROGRAM_OUTPUT KIND
  KIND sweep:  "base=B n=N passes=R": loads of B + 8i, i < N, R times
  KIND gather: "base=B idx=I n=N seed=S": per i, a load of I + 8i then of
               B + 8 idx[i], idx from the kernel's LCG, after main stored
               idx[0..N) in order (the prefix of the thread's stream)"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "tools"))
import memref  # noqa: E402


def fields(text):
    out = {}
    for tok in text.split():
        k, v = tok.split("=")
        out[k] = int(v, 0)
    return out


def stream(kind, f):
    """(prefix, the function's references)"""
    if kind == "sweep":
        return [], [f["base"] + 8 * i for _ in range(f["passes"]) for i in range(f["n"])]
    if kind == "gather":
        x, idx = f["seed"], []
        for _ in range(f["n"]):
            x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
            idx.append((x >> 33) % f["n"])
        out = []
        for i in range(f["n"]):
            out += [f["idx"] + 8 * i, f["base"] + 8 * idx[i]]
        return [f["idx"] + 8 * i for i in range(f["n"])], out
    raise SystemExit(f"unknown kind {kind}")


def main(doc_path, function, output_path, kind):
    doc = json.load(open(doc_path))
    line = next(l for l in open(output_path) if "base=" in l)
    prefix, refs = stream(kind, fields(line))
    ref = memref.Reference(refs, doc["config"]["line_sizes"],
                           doc["config"]["entropy_max_shift"], prefix)
    fn = [f for f in doc["functions"] if f["name"] == function]
    if len(fn) != 1:
        raise SystemExit(f"{len(fn)} functions named {function}")
    problems = memref.compare(fn[0], ref)
    for p in problems:
        print(f"{function}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
