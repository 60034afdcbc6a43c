#!/usr/bin/env python3
"""sample_error.py: the error of sampled deep mode (pisa-char --sample)
against exact runs, per bench kernel: miss ratios at 32 KiB / 1 MiB /
32 MiB (absolute), the 64-byte reuse histogram (total variation distance),
spatial locality (absolute: the score, "slq", and the pairs' largest,
"pair"), memory entropy (largest |error| over H_0..H_K, bits), footprint, ILP per
window and BBLP (relative), and CPU seconds of both runs.  Prints a
Markdown table (docs/performance.md "Sampled deep mode").

usage: bench/sample_error.py BUILD [--rate 1%] [--kernels a,b] [--jobs N]
                             [--args K=A:B,...] [--keep DIR] [--reuse-exact]
                             [--exact-metrics LIST] [--same-layout]
                             [--dir DIR] [--seeds K]
Kernels run with pisa-bench's --quick sizes unless --args says otherwise
(K= for K's default size);
--dir DIR runs DIR/pisa/K instead of the build's kernels (the real
programs of bench/real/build.sh).
With --reuse-exact, exact documents already in --keep DIR (and their CPU
and RSS, K.exact.time) are used again.  --exact-metrics reuse runs the
exact side with --metrics=reuse only (every miss ratio and histogram comes
from that family, at a fraction of the cost); the columns are then those
both documents have.
With --same-layout both sides run with the same metrics (--exact-metrics,
or all), address randomisation off (setarch -R), glibc's mmap threshold
fixed at 128 KiB, no analysis thread (its arena's mappings land among the
program's as timing has it) and the rate passed in PISA_SAMPLE strings of
one length (1.00 and 0.01 for 1%), so that the program's data lie at the
same addresses in both runs: the entropies and footprints then differ by
the sampling alone, not by where the heap put the program's objects
(hashtable's H_5 moved by 0.7 bit between two runs otherwise, graph's H_0
by 0.1 between two sampled runs with the thread).  The environment's size
places the stack: exact documents kept with --reuse-exact compare with
sampled runs made in an environment of the same size (a variable set for
one side only, such as LD_LIBRARY_PATH for another runtime, moved
hashtable's and compress's short reuse distances), so give the other
side a variable of the same length in its place.
With --seeds K (1 to 9, with --same-layout) the sampled side runs K times,
with --sample-seed 1 to K (PISA_SAMPLE_SEED), and the exact side with
PISA_SAMPLE_SEED=0 (the same environment size); each error column is then
the mean over the K draws, followed by a column of the largest ("max"):
independent draws of the same estimator, so their errors show how far one
run's estimates move with the draw, which one placement of the data does
not.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

QUICK = {"atax": "1000:40", "compress": "1572864", "floyd-warshall": "500",
         "gemm": "550", "graph": "14", "hashtable": "262144:262144",
         "jacobi-2d": "1000:30", "pointer-chase": "262144:524288",
         "triad": "524288:60"}


PROGRAMS = ""  # where pisa/K is: --dir, or BUILD/bench


def run(build, kernel, args, extra, out, env=None):
    """Runs pisa-char on the kernel; returns its CPU seconds (user + sys of
    the child tree) and the peak RSS in KiB.  env: variables to add, and
    then the run is without address randomisation."""
    cmd = [os.path.join(build, "bin", "pisa-char"), "-q", "--force", "-o",
           out] + extra + [os.path.join(PROGRAMS, "pisa", kernel)]
    cmd += [a for a in args.split(":") if a]  # K= runs K's default size
    if env:
        cmd = ["setarch", "-R"] + cmd
        env = dict(os.environ, **env)
    with subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env) as p:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit("%s failed with status %d" % (" ".join(cmd), p.returncode))
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def histogram(totals, line):
    for h in totals.get("reuse_distance", []):
        if h["line_bytes"] == line:
            counts = [h["cold"]] + list(h["bins"])
            total = sum(counts)
            return [c / total for c in counts] if total else counts
    return []


def tvd(p, q):
    n = max(len(p), len(q))
    p = p + [0] * (n - len(p))
    q = q + [0] * (n - len(q))
    return 0.5 * sum(abs(a - b) for a, b in zip(p, q))


def relative(a, b):
    return abs(b - a) / a if a else (0.0 if not b else math.inf)


def errors(exact, sampled):
    """The errors of the metrics both documents have."""
    e, s = exact["totals"], sampled["totals"]
    row = {}
    for m_e, m_s in zip(e.get("miss_ratio", []), s.get("miss_ratio", [])):
        row["miss %d" % m_e["cache_bytes"]] = abs(m_e["ratio"] - m_s["ratio"])
    if "reuse_distance" in e and "reuse_distance" in s:
        row["tvd"] = tvd(histogram(e, 64), histogram(s, 64))
        row["tvd 8"] = tvd(histogram(e, 8), histogram(s, 8))
    l_e, l_s = e.get("spatial_locality"), s.get("spatial_locality")
    if l_e and l_s:
        row["slq"] = abs(l_e["score"] - l_s["score"])
        row["pair"] = max(abs(a["score"] - b["score"])
                          for a, b in zip(l_e["pairs"], l_s["pairs"]))
    h_e, h_s = e.get("memory_entropy", []), s.get("memory_entropy", [])
    if h_e and h_s:
        row["entropy"] = max(abs(a - b) for a, b in zip(h_e, h_s))
    if "footprint" in e and "footprint" in s:
        row["footprint"] = relative(e["footprint"]["bytes"],
                                    s["footprint"]["bytes"])
    for w_e, w_s in zip(e.get("ilp", []), s.get("ilp", [])):
        row["ilp %d" % w_e["window"]] = relative(w_e["ilp"], w_s["ilp"])
    if "bblp" in e and "bblp" in s:
        row["bblp"] = relative(e["bblp"]["bblp"], s["bblp"]["bblp"])
    return row


def timed_run(build, kernel, args, extra, out, reuse, env=None):
    """run(), or its earlier figures when reuse and they exist."""
    times = out[:-len(".json")] + ".time"
    if reuse and os.path.exists(out) and os.path.exists(times):
        with open(times) as f:
            cpu, rss = f.read().split()
        return float(cpu), float(rss)
    cpu, rss = run(build, kernel, args, extra, out, env)
    with open(times, "w") as f:
        f.write("%f %d\n" % (cpu, rss))
    return cpu, rss


def layout_rates(rate):
    """The PISA_SAMPLE strings of the exact and the sampled run for
    --same-layout, of one length: 1% gives 1.00 and 0.01."""
    r = float(rate[:-1]) / 100 if rate.endswith("%") else float(rate)
    sampled = ("%.9f" % r).rstrip("0")
    return "1." + "0" * (len(sampled) - 2), sampled


def measure(build, kernel, args, rate, keep, reuse_exact, exact_metrics,
            same_layout, seeds=0):
    exact_name = "exact-" + exact_metrics if exact_metrics else "exact"
    sampled_name = "sampled"
    if same_layout:
        exact_name += "-layout"
        sampled_name += "-layout"
    files = [os.path.join(keep, "%s.%s.%s.json" %
                          (kernel, args.replace("/", "_"), k))
             for k in (exact_name, sampled_name)]
    extra = ["--metrics=" + exact_metrics] if exact_metrics else []
    if same_layout:
        fixed = {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072",
                 "PISA_SNAPSHOT_INTERVAL": "off",
                 "PISA_ANALYSIS_THREADS": "0"}
        exact_rate, sampled_rate = layout_rates(rate)
        if seeds:
            fixed["PISA_SAMPLE_SEED"] = "0"
        cpu_e, rss_e = timed_run(build, kernel, args, extra, files[0],
                                 reuse_exact,
                                 dict(fixed, PISA_SAMPLE=exact_rate))
        if seeds:
            return seeded(build, kernel, args, extra, files, fixed,
                          sampled_rate, seeds, cpu_e, rss_e)
        cpu_s, rss_s = timed_run(build, kernel, args, extra, files[1], False,
                                 dict(fixed, PISA_SAMPLE=sampled_rate))
    else:
        cpu_e, rss_e = timed_run(build, kernel, args, extra, files[0],
                                 reuse_exact)
        cpu_s, rss_s = timed_run(build, kernel, args, ["--sample", rate],
                                 files[1], False)
    docs = [json.load(open(f)) for f in files]
    row = errors(*docs)
    row.update({"cpu exact": cpu_e, "cpu sampled": cpu_s,
                "rss exact": rss_e, "rss sampled": rss_s})
    return kernel, args, row


def seeded(build, kernel, args, extra, files, fixed, sampled_rate, seeds,
           cpu_e, rss_e):
    """measure()'s row over sampled runs with seeds 1..seeds: each error
    the mean over the draws, then its largest as "max ..."."""
    exact = json.load(open(files[0]))
    rows, cpu, rss = [], [], []
    for seed in range(1, seeds + 1):
        out = files[1][:-len(".json")] + ".seed%d.json" % seed
        c, r = timed_run(build, kernel, args, extra, out, False,
                         dict(fixed, PISA_SAMPLE=sampled_rate,
                              PISA_SAMPLE_SEED=str(seed)))
        rows.append(errors(exact, json.load(open(out))))
        cpu.append(c)
        rss.append(r)
    row = {}
    for c in rows[0]:
        row[c] = sum(r[c] for r in rows) / len(rows)
        row["max " + c] = max(r[c] for r in rows)
    row.update({"cpu exact": cpu_e, "cpu sampled": sorted(cpu)[len(cpu) // 2],
                "rss exact": rss_e, "rss sampled": max(rss)})
    return kernel, args, row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--rate", default="1%")
    ap.add_argument("--kernels", default=",".join(sorted(QUICK)))
    ap.add_argument("--args", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep")
    ap.add_argument("--reuse-exact", action="store_true")
    ap.add_argument("--exact-metrics", default="")
    ap.add_argument("--same-layout", action="store_true")
    ap.add_argument("--dir")
    ap.add_argument("--seeds", type=int, default=0)
    o = ap.parse_args()
    if o.seeds and not (1 <= o.seeds <= 9 and o.same_layout):
        ap.error("--seeds takes 1 to 9, with --same-layout")
    global PROGRAMS
    PROGRAMS = o.dir or os.path.join(o.build, "bench")
    sizes = dict(QUICK)
    for item in filter(None, o.args.split(",")):
        k, _, a = item.partition("=")
        sizes[k] = a
    keep = o.keep or tempfile.mkdtemp(prefix="sample-error.")
    os.makedirs(keep, exist_ok=True)
    kernels = o.kernels.split(",")
    with ThreadPoolExecutor(o.jobs) as pool:
        rows = list(pool.map(
            lambda k: measure(o.build, k, sizes[k], o.rate, keep,
                              o.reuse_exact, o.exact_metrics,
                              o.same_layout, o.seeds), kernels))
    cols = [c for c in rows[0][2] if not c.startswith(("cpu", "rss"))]
    print("| kernel (args) | " + " | ".join(cols) +
          " | CPU s exact / sampled | peak RSS MiB exact / sampled |")
    print("|---" * (len(cols) + 3) + "|")
    worst = {c: 0.0 for c in cols}
    for kernel, args, row in rows:
        cells = ["%.4f" % row[c] for c in cols]
        for c in cols:
            worst[c] = max(worst[c], row[c])
        print("| %s (%s) | %s | %.1f / %.1f | %.0f / %.0f |" % (
            kernel, args, " | ".join(cells), row["cpu exact"],
            row["cpu sampled"], row["rss exact"] / 1024,
            row["rss sampled"] / 1024))
    print("| worst | " + " | ".join("%.4f" % worst[c] for c in cols) +
          " | | |")


if __name__ == "__main__":
    main()
