#!/usr/bin/env python3
"""Builds every C++ program given with pisa-c++ in both modes at -O0 to -O3
and checks that each compiles and prints what a plain clang++ build of it
prints (-O0), with the same exit status.  Two builds run at a time.
Usage: corpus.py PISA_CXX CLANG OUTDIR SOURCE..."""
import concurrent.futures
import os
import subprocess
import sys

LEVELS = ("-O0", "-O1", "-O2", "-O3")
MODES = ("deep", "counter")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def build_and_run(compile_cmd, exe):
    """(error or None, (stdout, status)) of building and running exe."""
    built = run(compile_cmd)
    if built.returncode != 0:
        return f"compile failed ({built.returncode}): {' '.join(compile_cmd)}\n" \
               f"{built.stderr[-4000:]}", None
    ran = run([exe])
    return None, (ran.stdout, ran.returncode)


def check(pisa_cxx, src, exe, level, mode, expected):
    cmd = [pisa_cxx, level, "-o", exe, src]
    if mode == "counter":
        cmd.insert(1, "--mode=counter")
    error, got = build_and_run(cmd, exe)
    if error is None and got != expected:
        error = (f"{' '.join(cmd)}: output or status differs\n"
                 f"  expected {expected!r}\n  got      {got!r}")
    return error


def main(pisa_cxx, clang, outdir, sources):
    os.makedirs(outdir, exist_ok=True)
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        plain = {}
        for src in sources:
            exe = os.path.join(outdir, os.path.basename(src) + ".plain")
            cmd = [clang, "--driver-mode=g++", "-O0", "-o", exe, src]
            plain[src] = pool.submit(build_and_run, cmd, exe)
        jobs = []
        for src in sources:
            error, expected = plain[src].result()
            if error:
                print(f"{src}: plain build: {error}")
                failures += 1
                continue
            name = os.path.basename(src)
            for level in LEVELS:
                for mode in MODES:
                    exe = os.path.join(outdir, f"{name}.{mode}{level}")
                    jobs.append((f"{name} {level} {mode}",
                                 pool.submit(check, pisa_cxx, src, exe, level,
                                             mode, expected)))
        for what, job in jobs:
            error = job.result()
            print(f"{what}: {'ok' if error is None else 'FAILED'}")
            if error:
                print(error)
                failures += 1
    print(f"{len(sources)} programs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
