#!/usr/bin/env python3
"""Checks that the rodinia benchmarks compute the same bits whatever the
number of OpenMP threads, and that they name their parameters as the
manifest does.
  check_threads.py SUITE.json --size SIZE --clang CLANG --pisa-cc PISA_CC
                   --workdir DIR [--threads 1,2,3]
Each benchmark is built natively with the manifest's flags, natively
without -fopenmp (the pragmas ignored: a sequential program) and with
pisa-cc. The native build runs with OMP_NUM_THREADS set to each count, the
instrumented one with the first and last count; every checksum must equal
the sequential build's. The first output line must be the benchmark's name
followed by NAME=VALUE for each of the size's params, in order.
Prints one line per problem and a last line "N passed, M failed"."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "polybench"))
from check_suite import build, checksum, load_manifest, run, run_args  # noqa


def without_openmp(suite):
    """The suite with -fopenmp removed from every flag list."""
    copy = dict(suite)
    for key in ("cflags", "ldflags"):
        copy[key] = [f for f in suite.get(key, []) if f != "-fopenmp"]
    return copy


def first_line_problem(bench, size, output):
    params = bench["sizes"][size].get("params", {})
    expected = " ".join([bench["name"]] +
                        [f"{k}={v}" for k, v in params.items()])
    got = output.splitlines()[0] if output else ""
    if got != expected:
        return f"{bench['name']}: first line {got!r}, expected {expected!r}"
    return None


def run_checksum(suite, exe, args, threads, workdir):
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    r = run([exe] + args, cwd=workdir, env=env)
    if r.returncode != 0:
        return None, f"exit {r.returncode}: {r.stderr.strip()}"
    return checksum(suite, r.stdout), r.stdout


def check_bench(opts, suite, root, bench):
    name, size = bench["name"], opts.size
    exes = {}
    for what, cc, flavour in (("native", opts.clang, suite),
                              ("sequential", opts.clang,
                               without_openmp(suite)),
                              ("instrumented", opts.pisa_cc, suite)):
        exes[what] = os.path.join(opts.workdir, f"{name}.{what}")
        err = build(cc, flavour, root, bench, size, exes[what])
        if err:
            return [f"{name}: {what} build failed: {err}"]
    args = run_args(bench, size)
    reference, output = run_checksum(suite, exes["sequential"], args, None,
                                     opts.workdir)
    if reference is None:
        return [f"{name}: sequential run failed: {output}"]
    problems = [p for p in [first_line_problem(bench, size, output)] if p]
    counts = [int(t) for t in opts.threads.split(",")]
    runs = [("native", t) for t in counts] + \
        [("instrumented", t) for t in (counts[0], counts[-1])]
    for what, threads in runs:
        got, detail = run_checksum(suite, exes[what], args, threads,
                                   opts.workdir)
        if got != reference:
            problems.append(f"{name}: {what} with {threads} threads: "
                            f"{got or detail} != sequential {reference}")
    return problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("--size", required=True)
    p.add_argument("--clang", required=True)
    p.add_argument("--pisa-cc", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--threads", default="1,2,3")
    opts = p.parse_args()
    suite, root = load_manifest(opts.manifest)
    os.makedirs(opts.workdir, exist_ok=True)
    problems, passed = [], 0
    for bench in suite["benchmarks"]:
        found = check_bench(opts, suite, root, bench)
        problems += found
        passed += not found
    for line in problems:
        print(line)
    total = len(suite["benchmarks"])
    print(f"{passed} passed, {total - passed} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
