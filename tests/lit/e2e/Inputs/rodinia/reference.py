#!/usr/bin/env python3
"""Brute-force references for the benchmarks of rodinia/suite.json: each
benchmark's published computation written again in plain Python, often
another way (a queue for bfs, Dijkstra for pathfinder, unblocked
Doolittle for lud, whole-grid updates for the stencils), on the inputs of
the C generators (SplitMix64, rodinia/common/rd_support.h). Builds every
benchmark natively, runs it at a tiny size of the test's own and compares
its checksum: exactly for the integer results, within a relative tolerance
of the checksum's scale for the floating-point ones.
Usage: reference.py SUITE.json --clang CLANG --workdir DIR
Prints one line per mismatch and a last line "N passed, M failed"."""
import argparse
import collections
import heapq
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "polybench"))
from check_suite import build, checksum, load_manifest, run  # noqa: E402

MASK = (1 << 64) - 1


class Rng:
    """SplitMix64 and the uniform / below draws of rd_support.h."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 40) / 16777216.0

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def f32(x):
    """x rounded to the nearest float, as the C code stores it."""
    return struct.unpack("f", struct.pack("f", x))[0]


class Sum:
    """The checksum: a start value, then each array with element k
    weighted by k % 13 + 1; scale is the same sum of magnitudes."""

    def __init__(self, start, *arrays):
        self.value, self.scale = float(start), abs(float(start))
        for a in arrays:
            for k, v in enumerate(a):
                self.value += v * (k % 13 + 1)
                self.scale += abs(v) * (k % 13 + 1)


def bfs(nodes, degree):
    rng = Rng(1)
    count = [1 + rng.below(2 * degree - 1) for _ in range(nodes)]
    adj = []
    for v in range(nodes):
        adj.append([(v + 1) % nodes] +
                   [rng.below(nodes) for _ in range(count[v] - 1)])
    level = [-1] * nodes
    level[0] = 0
    queue = collections.deque([0])
    while queue:
        v = queue.popleft()
        for w in adj[v]:
            if level[w] < 0:
                level[w] = level[v] + 1
                queue.append(w)
    return Sum(max(level), level), 0.0


def pathfinder(cols, rows):
    rng = Rng(7)
    wall = [[rng.below(10) for _ in range(cols)] for _ in range(rows)]
    # Dijkstra from all top cells at once: a cell's cost is its weight plus
    # the cheapest of the three cells above it.
    dist = {(0, c): wall[0][c] for c in range(cols)}
    heap = [(d, rc) for rc, d in dist.items()]
    heapq.heapify(heap)
    done = set()
    while heap:
        d, (r, c) = heapq.heappop(heap)
        if (r, c) in done or r + 1 == rows:
            done.add((r, c))
            continue
        done.add((r, c))
        for cc in (c - 1, c, c + 1):
            if 0 <= cc < cols:
                nd = d + wall[r + 1][cc]
                if nd < dist.get((r + 1, cc), math.inf):
                    dist[(r + 1, cc)] = nd
                    heapq.heappush(heap, (nd, (r + 1, cc)))
    cost = [dist[(rows - 1, c)] for c in range(cols)]
    return Sum(min(cost), cost), 0.0


def nw_table():
    t = [[0] * 24 for _ in range(24)]
    for a in range(24):
        for b in range(a + 1):
            s = 4 + (a * 7) % 5 if a == b else (a * 31 + b * 17 + a * b) % 7 - 4
            t[a][b] = t[b][a] = s
    return t


def nw(n, penalty):
    rng = Rng(3)
    s1, s2 = [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        s1[i], s2[i] = rng.below(24), rng.below(24)
    t = nw_table()
    score = [[-penalty * max(i, j) if i == 0 or j == 0 else 0
              for j in range(n + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            score[i][j] = max(score[i - 1][j - 1] + t[s1[i]][s2[j]],
                              score[i - 1][j] - penalty,
                              score[i][j - 1] - penalty)
    i, j, steps, pairs = n, n, 0, 0
    while i > 0 or j > 0:
        here = score[i][j]
        if i > 0 and j > 0 and here == score[i - 1][j - 1] + t[s1[i]][s2[j]]:
            i, j, pairs = i - 1, j - 1, pairs + 1
        elif i > 0 and here == score[i - 1][j] - penalty:
            i -= 1
        else:
            j -= 1
        steps += 1
    return Sum(steps + 3 * pairs, [v for row in score for v in row]), 0.0


def hotspot(size, iterations):
    w = h = 0.016 / size
    thick, k_si, heat, factor, max_pd = 0.0005, 100.0, 1.75e6, 0.5, 3.0e6
    cap = factor * heat * thick * w * h
    gx = 2.0 * k_si * thick * h / w
    gy = 2.0 * k_si * thick * w / h
    gz = k_si * h * w / thick
    step = 0.001 / (max_pd / (factor * thick * heat)) / cap
    if step * (2 * gx + 2 * gy + gz) > 0.5:
        step *= 0.5 / (step * (2 * gx + 2 * gy + gz))
    rng = Rng(11)
    density = []
    for _ in range(64):
        d = rng.uniform()
        density.append(max_pd * (0.5 * d if d > 0.85 else 0.05 * d))
    power = [[0.0] * size for _ in range(size)]
    temp = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(size):
            unit = (i * 8 // size) * 8 + j * 8 // size
            power[i][j] = density[unit] * w * h * (0.9 + 0.2 * rng.uniform())
            temp[i][j] = 318.0 + 10.0 * rng.uniform()

    def at(t, i, j):  # an edge cell stands in for its missing neighbour
        return t[min(max(i, 0), size - 1)][min(max(j, 0), size - 1)]
    for _ in range(iterations):
        temp = [[temp[i][j] + step * (
            power[i][j] +
            gy * (at(temp, i - 1, j) + at(temp, i + 1, j) - 2 * temp[i][j]) +
            gx * (at(temp, i, j - 1) + at(temp, i, j + 1) - 2 * temp[i][j]) +
            gz * (318.15 - temp[i][j]))
            for j in range(size)] for i in range(size)]
    return Sum(0, [v for row in temp for v in row]), 1e-10


def srad(rows, cols, iterations):
    rng = Rng(5)
    img = [[0.0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            y, x = i / rows - 0.5, j / cols - 0.6
            tissue = 0.3
            if x * x + y * y < 0.06:
                tissue = 0.9
            elif cols // 8 < j < cols // 4 and i > rows // 3:
                tissue = 0.6
            speckle = -sum(math.log(1.0 - rng.uniform()) for _ in range(4))
            img[i][j] = f32(tissue * speckle / 4 + 1e-3)

    def at(a, i, j):
        return a[min(max(i, 0), rows - 1)][min(max(j, 0), cols - 1)]
    for _ in range(iterations):
        roi = [img[i][j] for i in range(max(rows // 8, 1))
               for j in range(max(cols // 8, 1))]
        mean = sum(roi) / len(roi)
        q0 = (sum(v * v for v in roi) / len(roi) - mean * mean) / mean ** 2
        c = [[0.0] * cols for _ in range(rows)]
        for i in range(rows):
            for j in range(cols):
                v = img[i][j]
                d = [at(img, i - 1, j) - v, at(img, i + 1, j) - v,
                     at(img, i, j - 1) - v, at(img, i, j + 1) - v]
                g2 = sum(x * x for x in d) / (v * v)
                lap = sum(d) / v
                q = (0.5 * g2 - lap * lap / 16) / (1 + lap / 4) ** 2
                c[i][j] = min(max(1 / (1 + (q - q0) / (q0 * (1 + q0))), 0), 1)
        img = [[img[i][j] + 0.125 * (
            c[i][j] * (at(img, i - 1, j) - img[i][j]) +
            at(c, i + 1, j) * (at(img, i + 1, j) - img[i][j]) +
            c[i][j] * (at(img, i, j - 1) - img[i][j]) +
            at(c, i, j + 1) * (at(img, i, j + 1) - img[i][j]))
            for j in range(cols)] for i in range(rows)]
    return Sum(0, [v for row in img for v in row]), 1e-6


def lud(n):
    rng = Rng(13)
    a = [[f32(2.0 * rng.uniform() - 1.0) + (n if i == j else 0)
          for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(k + 1, n):
            a[i][k] /= a[k][k]
            for j in range(k + 1, n):
                a[i][j] -= a[i][k] * a[k][j]
    return Sum(0, [v for row in a for v in row]), 1e-6


def kmeans(points, features, clusters):
    rng = Rng(29)
    truth = [f32(10.0 * rng.uniform()) for _ in range(clusters * features)]
    x = []
    for _ in range(points):
        c = rng.below(clusters)
        x.append([f32(truth[c * features + k] + f32(2 * rng.uniform() - 1))
                  for k in range(features)])
    centre = [list(x[c * points // clusters]) for c in range(clusters)]
    member, rounds = [-1] * points, 0
    while True:
        changed = 0
        for p in range(points):
            dists = [sum((a - b) ** 2 for a, b in zip(x[p], centre[c]))
                     for c in range(clusters)]
            best = dists.index(min(dists))
            changed += member[p] != best
            member[p] = best
        for c in range(clusters):
            mine = [x[p] for p in range(points) if member[p] == c]
            if mine:
                centre[c] = [sum(col) / len(mine) for col in zip(*mine)]
        rounds += 1
        if changed <= 0.001 * points or rounds == 500:
            break
    s = Sum(rounds, member)
    t = Sum(s.value, [v for row in centre for v in row])
    t.scale += s.scale
    return t, 1e-6


def backprop(inputs, epochs):
    rng = Rng(23)
    hid = 16
    bound = f32(2.0 / f32(math.sqrt(inputs)))
    x = [f32(rng.uniform()) for _ in range(inputs + 1)]
    w_in = [[f32(-bound + f32(2 * bound) * f32(rng.uniform()))
             for _ in range(hid + 1)] for _ in range(inputs + 1)]
    w_out = [[f32(-0.5 + f32(rng.uniform())) for _ in range(2)]
             for _ in range(hid + 1)]
    dw_in = [[0.0] * (hid + 1) for _ in range(inputs + 1)]
    dw_out = [[0.0] * 2 for _ in range(hid + 1)]
    x[0] = 1.0

    def squash(v):
        return 1 / (1 + math.exp(-v))
    for _ in range(epochs):
        h = [1.0] + [squash(sum(w_in[k][j] * x[k] for k in range(inputs + 1)))
                     for j in range(1, hid + 1)]
        o = squash(sum(w_out[k][1] * h[k] for k in range(hid + 1)))
        d_out = o * (1 - o) * (0.1 - o)
        d_hid = [0.0] + [h[j] * (1 - h[j]) * d_out * w_out[j][1]
                         for j in range(1, hid + 1)]
        for k in range(hid + 1):
            dw_out[k][1] = 0.3 * d_out * h[k] + 0.3 * dw_out[k][1]
            w_out[k][1] += dw_out[k][1]
        for k in range(inputs + 1):
            for j in range(1, hid + 1):
                dw_in[k][j] = 0.3 * d_hid[j] * x[k] + 0.3 * dw_in[k][j]
                w_in[k][j] += dw_in[k][j]
    return Sum(o, [v for r in w_out for v in r],
               [v for r in w_in for v in r]), 1e-6


def nn(records, k):
    rng = Rng(17)
    dist = []
    for _ in range(records):
        for n in (60, 12, 28, 4):
            rng.below(n)
        lat = f32(7.0 + 53.0 * rng.uniform())
        lng = f32(360.0 * rng.uniform())
        rng.uniform(), rng.uniform()
        dist.append(math.sqrt((lat - 30) ** 2 + (lng - 90) ** 2))
    best = sorted(range(records), key=lambda i: (dist[i], i))[:k]
    start = sum((i + 1) * (b + dist[b]) for i, b in enumerate(best))
    return Sum(start, dist), 1e-6


# The tiny sizes of this test: (function, arguments).
CASES = {
    "bfs": (bfs, [300, 3]),
    "backprop": (backprop, [40, 3]),
    "kmeans": (kmeans, [300, 4, 3]),
    "hotspot": (hotspot, [16, 6]),
    "nw": (nw, [48, 10]),
    "srad": (srad, [16, 24, 3]),
    "pathfinder": (pathfinder, [40, 25]),
    "lud": (lud, [48]),
    "nn": (nn, [3000, 4]),
}


def check(bench, suite, root, opts):
    name = bench["name"]
    if name not in CASES:
        return [f"{name}: no reference"]
    fn, args = CASES[name]
    exe = os.path.join(opts.workdir, name)
    size = suite["default_size"]
    err = build(opts.clang, suite, root, bench, size, exe)
    if err:
        return [f"{name}: build failed: {err}"]
    r = run([exe] + [str(a) for a in args], cwd=opts.workdir)
    got = checksum(suite, r.stdout)
    if r.returncode != 0 or got is None:
        return [f"{name}: run failed: {r.returncode} {r.stderr.strip()}"]
    ref, tolerance = fn(*args)
    if abs(float(got) - ref.value) > tolerance * ref.scale:
        return [f"{name}: checksum {got}, reference {ref.value!r} "
                f"(tolerance {tolerance * ref.scale:.3g})"]
    return []


def main():
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("--clang", required=True)
    p.add_argument("--workdir", required=True)
    opts = p.parse_args()
    suite, root = load_manifest(opts.manifest)
    os.makedirs(opts.workdir, exist_ok=True)
    problems, passed = [], 0
    for bench in suite["benchmarks"]:
        found = check(bench, suite, root, opts)
        problems += found
        passed += not found
    for line in problems:
        print(line)
    print(f"{passed} passed, {len(suite['benchmarks']) - passed} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
