#!/usr/bin/env python3
"""Checks a pisa-char suite manifest (docs/suites.md) and its benchmarks.
  check_suite.py manifest SUITE.json --clang CLANG [--expect-names A,B,...]
                 [--params-are-macros]
      the manifest's structure and that its sources exist; with
      --params-are-macros, that every size's "params" are the values of the
      macros of those names in the first source built with the size's flags
  check_suite.py run SUITE.json --size SIZE --clang CLANG --pisa-cc PISA_CC
                 --pisa-char PISA_CHAR --validate "VALIDATE CMD" --workdir DIR
      builds every benchmark natively and instrumented, runs both and under
      pisa-char, and compares their checksums exactly
Prints one line per problem and a last line "N passed, M failed"."""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def load_manifest(path):
    with open(path) as f:
        suite = json.load(f)
    return suite, os.path.dirname(os.path.abspath(path))


def size_entry(bench, size):
    return bench.get("sizes", {}).get(size, {})


def compile_command(cc, suite, root, bench, size):
    """The build of docs/suites.md: the suite's cflags and -I include_dirs,
    the benchmark's, the size's cflags, then the sources (include_dirs and
    sources relative to the manifest); and the ldflags that follow -o."""
    cmd = [cc]
    for level in (suite, bench):
        cmd += level.get("cflags", [])
        cmd += ["-I" + os.path.join(root, d)
                for d in level.get("include_dirs", [])]
    cmd += size_entry(bench, size).get("cflags", [])
    cmd += [os.path.join(root, s) for s in bench["sources"]]
    ldflags = suite.get("ldflags", []) + bench.get("ldflags", []) + \
        size_entry(bench, size).get("ldflags", [])
    return cmd, ldflags


def compiler(cc, suite):
    """cc, or its C++ sibling (clang++, pisa-c++) for a C++ suite."""
    if suite.get("language", "c") != "c++":
        return cc
    head, base = os.path.split(cc)
    base = base.replace("pisa-cc", "pisa-c++", 1) if "pisa-cc" in base \
        else base.replace("clang", "clang++", 1)
    return os.path.join(head, base)


def defined_macros(cc, suite, root, bench, size):
    """The object-like macros the first source defines at this size, or
    None when it does not preprocess."""
    cmd, _ = compile_command(cc, suite, root, bench, size)
    r = run(cmd[:-len(bench["sources"])] +
            ["-E", "-dM", os.path.join(root, bench["sources"][0])])
    if r.returncode != 0:
        return None
    macros = {}
    for line in r.stdout.splitlines():
        m = re.match(r"#define (\w+) (.*)$", line)
        if m:
            macros[m.group(1)] = m.group(2).strip()
    return macros


def check_manifest(args, suite, root):
    """Structural checks; returns the problems and how many benchmarks had
    none."""
    problems = []
    for key in ("format", "suite", "benchmarks"):
        if key not in suite:
            problems.append(f"manifest: missing \"{key}\"")
    if problems:
        return problems, 0
    if suite["format"] != "pisa-char-suite/1":
        problems.append(f"manifest: unknown format {suite['format']!r}")
    if suite.get("default_size", suite.get("sizes", [None])[0]) not in \
            suite.get("sizes", [None]):
        problems.append("manifest: default_size is not one of sizes")
    names = [b.get("name") for b in suite["benchmarks"]]
    if len(set(names)) != len(names):
        problems.append("manifest: a benchmark name appears twice")
    if args.expect_names is not None:
        expected = args.expect_names.split(",")
        for n in sorted(set(expected) - set(names)):
            problems.append(f"manifest: {n} is missing")
        for n in sorted(set(names) - set(expected)):
            problems.append(f"manifest: {n} is not expected")
    passed = 0
    for b in suite["benchmarks"]:
        found = check_benchmark(args, suite, root, b)
        problems += found
        passed += not found
    return problems, passed


def check_benchmark(args, suite, root, bench):
    problems = []
    name = bench.get("name", "?")
    for s in bench.get("sources", []):
        if not os.path.isfile(os.path.join(root, s)):
            problems.append(f"{name}: no source {s}")
    if not re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9._+-]*", str(name)):
        problems.append(f"{name}: not a valid benchmark name")
    if not bench.get("sources"):
        problems.append(f"{name}: no sources")
    if "sizes" in bench and set(bench["sizes"]) != set(suite.get("sizes", [])):
        problems.append(f"{name}: sizes {sorted(bench.get('sizes', {}))} "
                        f"instead of {sorted(suite.get('sizes', []))}")
        return problems
    if problems:
        return problems
    for size in bench.get("sizes", {}):
        entry = bench["sizes"][size]
        if not all(isinstance(entry.get(k, []), list)
                   for k in ("cflags", "ldflags", "args")) or \
           not isinstance(entry.get("params", {}), dict):
            problems.append(f"{name} {size}: cflags, ldflags and args must "
                            "be lists, params an object")
            continue
        if not args.params_are_macros:
            continue
        cc = compiler(args.clang, suite)
        macros = defined_macros(cc, suite, root, bench, size)
        if macros is None:
            problems.append(f"{name} {size}: does not preprocess")
            continue
        for param, value in entry.get("params", {}).items():
            if macros.get(param) != str(value):
                problems.append(f"{name} {size}: {param} is "
                                f"{macros.get(param)} in the code, "
                                f"{value} in the manifest")
    return problems


def run_args(bench, size):
    """The benchmark's arguments, then the size's."""
    return bench.get("args", []) + size_entry(bench, size).get("args", [])


def checksum(suite, output):
    """The checksum the manifest's checksum_regex finds, or None."""
    pattern = re.compile(suite["checksum_regex"], re.MULTILINE)
    hits = pattern.findall(output)
    return hits[-1] if hits else None


def is_number_but_not_finite(text):
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


def build(cc, suite, root, bench, size, exe):
    cmd, ldflags = compile_command(cc, suite, root, bench, size)
    r = run(cmd + ["-o", exe] + ldflags)
    return None if r.returncode == 0 else f"{shlex.join(cmd)}: {r.stderr}"


def compare_checksums(suite, name, outputs):
    """Problems with the checksums of outputs {what: stdout}, which must all
    equal the native run's."""
    if "checksum_regex" not in suite:
        return []
    sums = {what: checksum(suite, out) for what, out in outputs.items()}
    native = sums["native"]
    if native is None:
        return [f"{name}: no checksum line in the native output"]
    if is_number_but_not_finite(native):
        return [f"{name}: checksum {native} is not finite"]
    return [f"{name}: {what} checksum {s} != native {native}"
            for what, s in sums.items() if s != native]


def check_run(args, suite, root, bench, docs):
    """Builds, runs and characterises one benchmark; returns its problems."""
    name, size = bench["name"], args.size
    native = os.path.join(args.workdir, "native", name)
    instr = os.path.join(args.workdir, "pisa", name)
    doc = os.path.join(args.workdir, name + ".pisa.json")
    for cc, exe in ((args.clang, native), (args.pisa_cc, instr)):
        err = build(compiler(cc, suite), suite, root, bench, size, exe)
        if err:
            return [f"{name}: build failed: {err}"]
    runs = {"native": [native], "instrumented": [instr],
            "pisa-char": [args.pisa_char, "-q", "--force",
                          "--metrics=footprint", "-o", doc, instr]}
    outputs = {}
    for what, cmd in runs.items():
        r = run(cmd + run_args(bench, size), cwd=args.workdir)
        if r.returncode != 0:
            return [f"{name}: {what} run exited {r.returncode}: {r.stderr}"]
        outputs[what] = r.stdout
    docs.append(doc)
    return compare_checksums(suite, name, outputs) + \
        check_document(doc, name, bench.get("functions", []))


def check_document(doc, name, functions):
    with open(doc) as f:
        d = json.load(f)
    problems = []
    for fn in functions:
        hits = [e for e in d["functions"] if e["name"] == fn]
        if len(hits) != 1:
            problems.append(f"{name}: {len(hits)} entries for {fn}")
        elif not hits[0]["instructions"] > 0:
            problems.append(f"{name}: {fn} executed no instructions")
        elif not hits[0]["footprint"]["bytes"] > 0:
            problems.append(f"{name}: {fn} has an empty footprint")
    return problems


def run_suite(args, suite, root):
    for sub in ("native", "pisa"):
        os.makedirs(os.path.join(args.workdir, sub), exist_ok=True)
    problems, docs, passed = [], [], 0
    for bench in suite["benchmarks"]:
        found = check_run(args, suite, root, bench, docs)
        problems += found
        passed += not found
    if docs:
        r = run(shlex.split(args.validate) + docs)
        if r.returncode != 0:
            problems.append(f"validate: {r.stdout}{r.stderr}")
            passed = 0
    return problems, passed, len(suite["benchmarks"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["manifest", "run"])
    p.add_argument("manifest")
    p.add_argument("--clang", required=True)
    p.add_argument("--expect-names")
    p.add_argument("--params-are-macros", action="store_true")
    p.add_argument("--size")
    p.add_argument("--pisa-cc")
    p.add_argument("--pisa-char")
    p.add_argument("--validate")
    p.add_argument("--workdir")
    args = p.parse_args()
    suite, root = load_manifest(args.manifest)
    if args.mode == "manifest":
        problems, passed = check_manifest(args, suite, root)
        total = len(suite.get("benchmarks", []))
    else:
        problems, passed, total = run_suite(args, suite, root)
    for line in problems:
        print(line)
    print(f"{passed} passed, {total - passed} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
