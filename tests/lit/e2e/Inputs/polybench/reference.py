#!/usr/bin/env python3
"""Brute-force references for the PolyBench kernels of polybench/suite.json:
each kernel's published computation, written here again in plain Python
(often another way: a dense solve for a solver, whole-array updates for a
stencil), on the same initial values as the C code. Builds every benchmark
natively at one size and compares its checksum with the reference's.
Usage: reference.py SUITE.json --clang CLANG --size MINI --workdir DIR
Prints one line per mismatch and a last line "N passed, M failed"."""
import argparse
import heapq
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_suite import build, checksum, load_manifest  # noqa: E402

MASK = (1 << 64) - 1


def val(i, j, salt):
    """pb_value() of polybench/common/pb_support.h."""
    h = (i * 2654435761 + j * 40503 + salt * 2246822519 + 374761393) & MASK
    h ^= h >> 15
    h = (h * 2246822507) & MASK
    h ^= h >> 13
    return (h % 1024) / 1024.0


def mat(rows, cols, f):
    return [[f(i, j) for j in range(cols)] for i in range(rows)]


def flat(x):
    return [v for row in x for v in row] if isinstance(x[0], list) else x


class Sum:
    """The programs' checksum: each array flattened, element k weighted by
    k % 13 + 1, arrays in order; scale is the same sum of magnitudes."""

    def __init__(self, *arrays):
        self.value = self.scale = 0.0
        for a in arrays:
            for k, v in enumerate(flat(a)):
                self.value += v * (k % 13 + 1)
                self.scale += abs(v) * (k % 13 + 1)


def matmul(a, b):
    bt = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def transpose(a):
    return [list(r) for r in zip(*a)]


def solve(a, b):
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (m[i][n] - sum(m[i][k] * x[k] for k in range(i + 1, n))) / m[i][i]
    return x


def centred(p, salt_fn):
    n, m = p["N"], p["M"]
    data = mat(n, m, salt_fn)
    mean = [sum(data[i][j] for i in range(n)) / n for j in range(m)]
    return [[data[i][j] - mean[j] for j in range(m)] for i in range(n)]


def ref_correlation(p):
    n, m = p["N"], p["M"]
    x = centred(p, lambda i, j: val(i, j, 1) * (j % 5 + 1))
    sd = [math.sqrt(sum(x[i][j] ** 2 for i in range(n)) / n) for j in range(m)]
    sd = [s if s > 0.1 else 1.0 for s in sd]
    z = [[x[i][j] / (math.sqrt(n) * sd[j]) for j in range(m)] for i in range(n)]
    corr = mat(m, m, lambda a, b: 1.0 if a == b else
               sum(z[k][a] * z[k][b] for k in range(n)))
    return Sum(corr)


def ref_covariance(p):
    n, m = p["N"], p["M"]
    x = centred(p, lambda i, j: val(i, j, 2) + (i % 3) * 0.25)
    return Sum(mat(m, m, lambda a, b: sum(x[k][a] * x[k][b]
                                          for k in range(n)) / (n - 1)))


def ref_gemm(p):
    c = mat(p["NI"], p["NJ"], lambda i, j: val(i, j, 1))
    ab = matmul(mat(p["NI"], p["NK"], lambda i, k: val(i, k, 2)),
                mat(p["NK"], p["NJ"], lambda k, j: val(k, j, 3)))
    return Sum(mat(p["NI"], p["NJ"], lambda i, j: 1.5 * ab[i][j] + 1.2 * c[i][j]))


def ref_gemver(p):
    n = p["N"]
    u1, v1, u2, v2, y, z = ([val(i, s, 1) for i in range(n)] for s in range(6))
    a = mat(n, n, lambda i, j: val(i, j, 2) + u1[i] * v1[j] + u2[i] * v2[j])
    x = [1.2 * sum(a[j][i] * y[j] for j in range(n)) + z[i] for i in range(n)]
    return Sum([1.5 * sum(a[i][j] * x[j] for j in range(n)) for i in range(n)])


def ref_gesummv(p):
    n = p["N"]
    x = [val(i, 0, 1) for i in range(n)]
    return Sum([1.5 * sum(val(i, j, 2) * x[j] for j in range(n)) +
                1.2 * sum(val(i, j, 3) * x[j] for j in range(n))
                for i in range(n)])


def ref_symm(p):
    m, n = p["M"], p["N"]
    a = mat(m, m, lambda i, j: val(max(i, j), min(i, j), 3))
    ab = matmul(a, mat(m, n, lambda i, j: val(i, j, 2)))
    return Sum(mat(m, n, lambda i, j: 1.5 * ab[i][j] + 1.2 * val(i, j, 1)))


def ref_syr2k(p):
    m, n = p["M"], p["N"]
    a = mat(n, m, lambda i, j: val(i, j, 1))
    b = mat(n, m, lambda i, j: val(i, j, 2))
    abt, bat = matmul(a, transpose(b)), matmul(b, transpose(a))
    return Sum(mat(n, n, lambda i, j: 1.5 * (abt[i][j] + bat[i][j]) +
                   1.2 * val(i, j, 3) if j <= i else val(i, j, 3)))


def ref_syrk(p):
    m, n = p["M"], p["N"]
    a = mat(n, m, lambda i, j: val(i, j, 1))
    aat = matmul(a, transpose(a))
    return Sum(mat(n, n, lambda i, j: 1.5 * aat[i][j] + 1.2 * val(i, j, 2)
                   if j <= i else val(i, j, 2)))


def ref_trmm(p):
    m, n = p["M"], p["N"]
    # A with a unit diagonal and its strict lower triangle.
    a = mat(m, m, lambda i, j: 1.0 if i == j else val(i, j, 1) if j < i else 0)
    atb = matmul(transpose(a), mat(m, n, lambda i, j: val(i, j, 2)))
    return Sum([[1.5 * v for v in row] for row in atb])


def ref_2mm(p):
    ab = matmul(mat(p["NI"], p["NK"], lambda i, k: val(i, k, 1)),
                mat(p["NK"], p["NJ"], lambda k, j: val(k, j, 2)))
    abc = matmul(ab, mat(p["NJ"], p["NL"], lambda j, l: val(j, l, 3)))
    return Sum(mat(p["NI"], p["NL"],
                   lambda i, l: 1.5 * abc[i][l] + 1.2 * val(i, l, 4)))


def ref_3mm(p):
    e = matmul(mat(p["NI"], p["NK"], lambda i, k: val(i, k, 1)),
               mat(p["NK"], p["NJ"], lambda k, j: val(k, j, 2)))
    f = matmul(mat(p["NJ"], p["NM"], lambda j, m: val(j, m, 3)),
               mat(p["NM"], p["NL"], lambda m, l: val(m, l, 4)))
    return Sum(matmul(e, f))


def ref_atax(p):
    a = mat(p["M"], p["N"], lambda i, j: val(i, j, 2))
    ax = matmul(a, [[val(j, 0, 1)] for j in range(p["N"])])
    return Sum(flat(matmul(transpose(a), ax)))


def ref_bicg(p):
    m, n = p["M"], p["N"]
    a = mat(n, m, lambda i, j: val(i, j, 3))
    s = matmul(transpose(a), [[val(i, 0, 2)] for i in range(n)])
    q = matmul(a, [[val(j, 0, 1)] for j in range(m)])
    return Sum(flat(s), flat(q))


def ref_doitgen(p):
    nq, nr, np_ = p["NQ"], p["NR"], p["NP"]
    c4 = mat(np_, np_, lambda s, q: val(s, q, 2))
    rows = [[val(r * nq + q, s, 1) for s in range(np_)]
            for r in range(nr) for q in range(nq)]
    return Sum(matmul(rows, c4))


def ref_mvt(p):
    n = p["N"]
    a = mat(n, n, lambda i, j: val(i, j, 2))
    y1 = [[val(i, 2, 1)] for i in range(n)]
    y2 = [[val(i, 3, 1)] for i in range(n)]
    x1 = [val(i, 0, 1) + v for i, v in enumerate(flat(matmul(a, y1)))]
    x2 = [val(i, 1, 1) + v for i, v in enumerate(flat(matmul(transpose(a), y2)))]
    return Sum(x1, x2)


def ref_cholesky(p):
    """Column by column (Cholesky-Crout); the upper triangle keeps A."""
    n = p["N"]
    a = mat(n, n, lambda i, j: n + val(i, i, 2) if i == j
            else val(max(i, j), min(i, j), 1))
    low = [[0.0] * n for _ in range(n)]
    for j in range(n):
        low[j][j] = math.sqrt(a[j][j] - sum(low[j][k] ** 2 for k in range(j)))
        for i in range(j + 1, n):
            low[i][j] = (a[i][j] - sum(low[i][k] * low[j][k]
                                       for k in range(j))) / low[j][j]
    return Sum(mat(n, n, lambda i, j: low[i][j] if j <= i else a[i][j]))


def ref_durbin(p):
    """Solves the Yule-Walker system T y = -r directly."""
    n = p["N"]
    r, slow, fast = [], 1.0, 1.0
    for _ in range(n):
        slow *= 0.95
        fast *= 0.8
        r.append((slow + fast) / 2.0)
    rho = [1.0] + r
    return Sum(solve(mat(n, n, lambda i, j: rho[abs(i - j)]), [-v for v in r]))


def ref_gramschmidt(p):
    """Modified Gram-Schmidt: with more columns than rows (as in every
    PolyBench size) the trailing columns are rounding noise, so only the
    same operations in the same order reproduce them."""
    m, n = p["M"], p["N"]
    a = mat(m, n, lambda i, j: val(i, j, 1) + (1.0 if i == j else 0.0))
    r = [[0.0] * n for _ in range(n)]
    q = [[0.0] * n for _ in range(m)]
    for k in range(n):
        nrm = 0.0
        for i in range(m):
            nrm += a[i][k] * a[i][k]
        r[k][k] = math.sqrt(nrm)
        for i in range(m):
            q[i][k] = a[i][k] / r[k][k]
        for j in range(k + 1, n):
            for i in range(m):
                r[k][j] += q[i][k] * a[i][j]
            for i in range(m):
                a[i][j] = a[i][j] - q[i][k] * r[k][j]
    return Sum(a, r, q)


def diag_dominant(n, salt):
    return mat(n, n, lambda i, j: val(i, j, salt) + (n if i == j else 0.0))


def ref_lu(p):
    """Gaussian elimination (k-i-j order), keeping the multipliers."""
    n = p["N"]
    a = diag_dominant(n, 1)
    for k in range(n):
        for i in range(k + 1, n):
            a[i][k] /= a[k][k]
            for j in range(k + 1, n):
                a[i][j] -= a[i][k] * a[k][j]
    return Sum(a)


def ref_ludcmp(p):
    n = p["N"]
    return Sum(solve(diag_dominant(n, 2), [val(i, 0, 1) * n for i in range(n)]))


def ref_trisolv(p):
    n = p["N"]
    low = mat(n, n, lambda i, j: val(i, j, 2) if j < i
              else i + 1 + val(i, i, 3) if i == j else 0.0)
    return Sum(solve(low, [val(i, 0, 1) for i in range(n)]))


def deriche_line(x, coef_now, coef_prev, coef_prev2, b1, b2, reverse):
    """One causal (or, reversed, anti-causal) recursive pass over a line."""
    idx = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    y, x1, x2, y1, y2 = [0.0] * len(x), 0.0, 0.0, 0.0, 0.0
    for k in idx:
        y[k] = coef_now * x[k] + coef_prev * x1 + coef_prev2 * x2 + b1 * y1 + b2 * y2
        x1, x2, y1, y2 = x[k], x1, y[k], y1
    return y


def ref_deriche(p):
    """In double precision (the program uses float): compared loosely."""
    w, h, alpha = p["W"], p["H"], 0.25
    e = math.exp(-alpha)
    k = (1 - e) ** 2 / (1 + 2 * alpha * e - e * e)
    a1, a2, a3, a4 = k, k * e * (alpha - 1), k * e * (alpha + 1), -k * e * e
    b1, b2 = 2 * e, -e * e

    def smooth(line):
        fwd = deriche_line(line, a1, a2, 0.0, b1, b2, False)
        # The anti-causal pass sees the input one and two steps ahead only.
        bwd = deriche_line(line, 0.0, a3, a4, b1, b2, True)
        return [f + g for f, g in zip(fwd, bwd)]

    img = mat(w, h, lambda i, j: val(i, j, 1))
    rows = [smooth(img[i]) for i in range(w)]
    cols = [smooth([rows[i][j] for i in range(w)]) for j in range(h)]
    return Sum(transpose(cols))


def ref_floyd_warshall(p):
    """Dijkstra from every node."""
    n = p["N"]
    edges = [[(j, 1 + int(val(i, j, 2) * 100.0)) for j in range(n)
              if j != i and val(i, j, 1) < 0.5] for i in range(n)]
    out = []
    for src in range(n):
        dist = [1000000] * n
        dist[src] = 0
        heap = [(0, src)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v, wgt in edges[u]:
                if d + wgt < dist[v]:
                    dist[v] = d + wgt
                    heapq.heappush(heap, (dist[v], v))
        out.append(dist)
    return Sum(out)


def ref_nussinov(p):
    """The Nussinov recurrence by increasing span; adjacent bases never
    pair, and entries on and below the diagonal stay 0."""
    n = p["N"]
    seq = [int(val(i, 0, 1) * 4.0) for i in range(n)]
    t = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            pair = t[i + 1][j - 1] + (seq[i] + seq[j] == 3) if span > 1 else 0
            split = max((t[i][k] + t[k + 1][j] for k in range(i + 1, j)),
                        default=0)
            t[i][j] = max(t[i + 1][j], t[i][j - 1], pair, split)
    return Sum(t)


def tridiagonal(lo, mid, hi, rhs, first, last):
    """x with x[0] = first, x[-1] = last and lo x[j-1] + mid x[j] +
    hi x[j+1] = rhs[j] in between, by a dense solve."""
    m = len(rhs)
    a = mat(m, m, lambda i, j: mid if i == j else lo if j == i - 1
            else hi if j == i + 1 else 0.0)
    b = rhs[:]
    b[0] -= lo * first
    b[-1] -= hi * last
    return [first] + solve(a, b) + [last]


def ref_adi(p):
    steps, n = p["TSTEPS"], p["N"]
    mul1 = 2.0 * (1.0 / steps) / (1.0 / n) ** 2
    mul2 = 1.0 * (1.0 / steps) / (1.0 / n) ** 2
    a, b, d, e = -mul1 / 2, 1 + mul1, -mul2 / 2, 1 + mul2
    u = mat(n, n, lambda i, j: val(i, j, 1))
    v = [[0.0] * n for _ in range(n)]
    inner = range(1, n - 1)
    for _ in range(steps):
        for i in inner:  # implicit along columns of v
            rhs = [-d * u[j][i - 1] + (1 + 2 * d) * u[j][i] - d * u[j][i + 1]
                   for j in inner]
            for j, x in enumerate(tridiagonal(a, b, a, rhs, 1.0, 1.0)):
                v[j][i] = x
        for i in inner:  # implicit along rows of u
            rhs = [-a * v[i - 1][j] + (1 + 2 * a) * v[i][j] - a * v[i + 1][j]
                   for j in inner]
            u[i] = tridiagonal(d, e, d, rhs, 1.0, 1.0)
    return Sum(u)


def ref_fdtd_2d(p):
    tmax, nx, ny = p["TMAX"], p["NX"], p["NY"]
    ex = mat(nx, ny, lambda i, j: val(i, j, 1))
    ey = mat(nx, ny, lambda i, j: val(i, j, 2))
    hz = mat(nx, ny, lambda i, j: val(i, j, 3))
    for t in range(tmax):
        ey = [[t / tmax] * ny] + [[ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j])
                                   for j in range(ny)] for i in range(1, nx)]
        ex = [[ex[i][0]] + [ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1])
                            for j in range(1, ny)] for i in range(nx)]
        hz = [[hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j])
               if i < nx - 1 and j < ny - 1 else hz[i][j] for j in range(ny)]
              for i in range(nx)]
    return Sum(ex, ey, hz)


def stencil_steps(grid, steps, update):
    """Jacobi-style: each half step computes a new grid from the old one."""
    for _ in range(2 * steps):
        grid = update(grid)
    return grid


def ref_heat_3d(p):
    n = p["N"]
    a = [[[val(i * n + j, k, 1) for k in range(n)] for j in range(n)]
         for i in range(n)]

    def step(g):
        def at(i, j, k):
            if 0 < min(i, j, k) and max(i, j, k) < n - 1:
                lap = (g[i + 1][j][k] + g[i - 1][j][k] + g[i][j + 1][k] +
                       g[i][j - 1][k] + g[i][j][k + 1] + g[i][j][k - 1] -
                       6 * g[i][j][k])
                return g[i][j][k] + 0.125 * lap
            return g[i][j][k]
        return [[[at(i, j, k) for k in range(n)] for j in range(n)]
                for i in range(n)]

    return Sum([x for plane in stencil_steps(a, p["TSTEPS"], step)
                for x in flat(plane)])


def ref_jacobi_1d(p):
    n = p["N"]
    # The first half step reads A; B's initial values only survive at the
    # ends, which are never written.
    a = [val(i, 0, 1) for i in range(n)]
    ends_b = (val(0, 0, 2), val(n - 1, 0, 2))
    grid = a
    for step in range(2 * p["TSTEPS"]):
        ends = ends_b if step % 2 == 0 else (a[0], a[n - 1])
        grid = [ends[0]] + [0.33333 * (grid[i - 1] + grid[i] + grid[i + 1])
                            for i in range(1, n - 1)] + [ends[1]]
    return Sum(grid)


def ref_jacobi_2d(p):
    n = p["N"]
    a = mat(n, n, lambda i, j: val(i, j, 1))
    b = mat(n, n, lambda i, j: val(i, j, 2))
    src, dst = a, b
    for _ in range(2 * p["TSTEPS"]):
        dst = [[0.2 * (src[i][j] + src[i][j - 1] + src[i][j + 1] +
                       src[i + 1][j] + src[i - 1][j])
                if 0 < i < n - 1 and 0 < j < n - 1 else dst[i][j]
                for j in range(n)] for i in range(n)]
        src, dst = dst, src
    return Sum(src)


def ref_seidel_2d(p):
    """In place, so the order is the algorithm: rows, then columns."""
    n = p["N"]
    a = mat(n, n, lambda i, j: val(i, j, 1))
    for _ in range(p["TSTEPS"]):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                a[i][j] = sum(a[i + di][j + dj] for di in (-1, 0, 1)
                              for dj in (-1, 0, 1)) / 9.0
    return Sum(a)


# Relative tolerance (of the checksum's sum of magnitudes) per kernel;
# deriche's program computes in single precision.
TOLERANCE = {"deriche": 1e-5}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("--clang", required=True)
    p.add_argument("--size", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    suite, root = load_manifest(args.manifest)
    os.makedirs(args.workdir, exist_ok=True)
    failed = []
    for bench in suite["benchmarks"]:
        name = bench["name"]
        ref = globals().get("ref_" + name.replace("-", "_"))
        exe = os.path.join(args.workdir, name)
        err = build(args.clang, suite, root, bench, args.size, exe)
        if ref is None or err:
            failed.append(f"{name}: {err or 'no reference'}")
            continue
        out = subprocess.run([exe], capture_output=True, text=True).stdout
        got = float(checksum(suite, out))
        want = ref(bench["sizes"][args.size]["params"])
        tol = TOLERANCE.get(name, 1e-10) * max(want.scale, 1.0)
        if not abs(got - want.value) <= tol:
            failed.append(f"{name}: checksum {got!r}, reference {want.value!r}")
    for line in failed:
        print(line)
    total = len(suite["benchmarks"])
    print(f"{total - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
