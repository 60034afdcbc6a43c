#!/usr/bin/env python3
"""Brute-force reference for the memory metrics of METRICS.md, written
independently of pisa-char's C code, for end-to-end tests: feed it the
address stream a kernel is known to touch and compare with the document.

  reuse distance: an explicit LRU stack (a Python list, move to front)
  entropy:        a direct sum over the counts of addr >> k
  spatial locality, miss ratios: from the per-access bins
"""
import math
from collections import Counter

COLD = None


def stack_distances(blocks):
    """Exact LRU stack distance of every reference (None when cold)."""
    stack, out = [], []
    for b in blocks:
        try:
            d = stack.index(b)
            del stack[d]
        except ValueError:
            d = COLD
        stack.insert(0, b)
        out.append(d)
    return out


def bin_of(d):
    """0 for distance 0, i for [2^(i-1), 2^i), COLD for a first reference."""
    return COLD if d is COLD else d.bit_length()


def entropy(addrs, k):
    counts = Counter(a >> k for a in addrs)
    n = len(addrs)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


class Reference:
    """Metrics of the references `addrs`, with distances counted in the
    thread's stream `prefix + addrs` (a function's accesses see the cache
    state the code before it left)."""

    def __init__(self, addrs, line_sizes=(8, 16, 32, 64, 128, 256, 512),
                 entropy_bits=12, prefix=()):
        self.addrs = list(addrs)
        self.line_sizes = list(line_sizes)
        self.entropy = [entropy(self.addrs, k) for k in range(entropy_bits + 1)]
        skip = len(prefix)
        whole = list(prefix) + self.addrs
        self.dist = {b: stack_distances([a // b for a in whole])[skip:]
                     for b in self.line_sizes}
        self.bins = {b: [bin_of(d) for d in ds] for b, ds in self.dist.items()}

    def histogram(self, b):
        bins = self.bins[b]
        finite = [x for x in bins if x is not COLD]
        counts = [0] * (max(finite) + 1 if finite else 0)
        for x in finite:
            counts[x] += 1
        return {"line_bytes": b, "cold": bins.count(COLD), "bins": counts}

    def pair_scores(self, b):
        """(S_k, strict S_k) for the pair (b, 2b)."""
        n = len(self.addrs)
        rank = lambda x: math.inf if x is COLD else x
        drops = strict = 0
        for i, j in zip(self.bins[b], self.bins[2 * b]):
            if rank(j) < rank(i):
                drops += 1
                if i is COLD or rank(j) < rank(i) - 1:
                    strict += 1
        return drops / n, strict / n

    def spatial_locality(self):
        pairs = [b for b in self.line_sizes if 2 * b in self.line_sizes]
        scores = [self.pair_scores(b) for b in pairs]
        weights = [2.0 ** -(k + 1) for k in range(len(pairs))]
        total = sum(weights)
        return {
            "score": sum(w * s for w, (s, _) in zip(weights, scores)) / total,
            "score_strict": sum(w * t for w, (_, t) in zip(weights, scores)) / total,
            "pairs": [{"line_bytes": b, "score": s, "strict": t}
                      for b, (s, t) in zip(pairs, scores)],
        }

    def miss_ratio(self, cache_bytes, line_bytes=64):
        limit = cache_bytes // line_bytes
        ds = self.dist[line_bytes]
        return sum(1 for d in ds if d is COLD or d >= limit) / len(ds)


def compare(doc_metrics, ref, tolerance=1e-9):
    """Differences between a METRICS object and the reference, as text."""
    problems = []

    def close(what, got, want):
        if abs(got - want) > tolerance * max(1.0, abs(want)):
            problems.append(f"{what}: got {got!r}, reference {want!r}")

    got_h = doc_metrics["memory_entropy"]
    if len(got_h) != len(ref.entropy):
        problems.append(f"memory_entropy has {len(got_h)} entries, reference {len(ref.entropy)}")
    for k, (g, w) in enumerate(zip(got_h, ref.entropy)):
        close(f"memory_entropy[{k}]", g, w)
    hists = {h["line_bytes"]: h for h in doc_metrics["reuse_distance"]}
    for b in ref.line_sizes:
        if hists.get(b) != ref.histogram(b):
            problems.append(f"reuse_distance {b}: got {hists.get(b)}, reference {ref.histogram(b)}")
    sl, want = doc_metrics["spatial_locality"], ref.spatial_locality()
    close("spatial_locality.score", sl["score"], want["score"])
    close("spatial_locality.score_strict", sl["score_strict"], want["score_strict"])
    for g, w in zip(sl["pairs"], want["pairs"]):
        if g["line_bytes"] != w["line_bytes"]:
            problems.append(f"pair line sizes differ: {g['line_bytes']} vs {w['line_bytes']}")
        close(f"pair {w['line_bytes']} score", g["score"], w["score"])
        close(f"pair {w['line_bytes']} strict", g["strict"], w["strict"])
    for m in doc_metrics["miss_ratio"]:
        close(f"miss_ratio {m['cache_bytes']}", m["ratio"], ref.miss_ratio(m["cache_bytes"]))
    return problems
