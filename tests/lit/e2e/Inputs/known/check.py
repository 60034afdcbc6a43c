#!/usr/bin/env python3
"""Checks rank's JSON output on the known-answer programs: every memory-
bound program ranks above every compute-bound one, by a clear margin.
Usage: check.py RANK.json MARGIN. The classes are the programs' known
answers (streaming, random and pointer-chasing access over arrays far
larger than the cache against cache-blocked or in-cache floating-point
work), never the tool's output; MARGIN is the least gap in score (log2
speed-up) between the worst memory-bound and the best compute-bound."""
import json
import sys

MEMORY = {"triad", "vadd", "chase", "histo", "gather", "spmv"}
COMPUTE = {"matmul", "nbody", "transc"}


def main(path, margin):
    ranked = json.load(open(path))["candidates"]
    score = {c["candidate"]: c["score"] for c in ranked}
    assert set(score) == MEMORY | COMPUTE, sorted(score)
    order = [c["candidate"] for c in ranked]
    worst_memory = min(score[p] for p in MEMORY)
    best_compute = max(score[p] for p in COMPUTE)
    print("order:", " ".join(f"{p}={score[p]:+.2f}" for p in order))
    assert set(order[:len(MEMORY)]) == MEMORY, order
    assert worst_memory - best_compute >= float(margin), \
        (worst_memory, best_compute)
    # A gain near memory for every memory-bound one, a loss for the others.
    assert worst_memory > 0 and best_compute < 0, (worst_memory, best_compute)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
