#!/usr/bin/env python3
"""Checks rank's JSON output on programs with known answers: every
memory-bound program ranks above every compute-bound one, by a clear
margin. Usage: check.py RANK.json MARGIN MEMORY COMPUTE, the last two
comma-separated program names. The classes are the programs' known
answers (streaming, random and pointer-chasing access over arrays far
larger than the cache against cache-blocked or in-cache floating-point
work), never the tool's output; MARGIN is the least gap in score (log2
speed-up) between the worst memory-bound and the best compute-bound."""
import json
import sys


def main(path, margin, memory, compute):
    memory, compute = set(memory.split(",")), set(compute.split(","))
    ranked = json.load(open(path))["candidates"]
    score = {c["candidate"]: c["score"] for c in ranked}
    assert memory | compute <= set(score), sorted(score)
    order = [c["candidate"] for c in ranked if c["candidate"] in score]
    print("order:", " ".join(f"{p}={score[p]:+.2f}" for p in order))
    worst_memory = min(score[p] for p in memory)
    best_compute = max(score[p] for p in compute)
    assert worst_memory - best_compute >= float(margin), \
        (worst_memory, best_compute)
    # A gain near memory for every memory-bound one, a loss for the others.
    assert worst_memory > 0 and best_compute < 0, (worst_memory, best_compute)


if __name__ == "__main__":
    main(*sys.argv[1:5])
