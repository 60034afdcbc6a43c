#!/usr/bin/env python3
"""Fault injection: runs `pisa-char -q -o OUT PROGRAM` many times and sends
one of SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE at a chosen moment: to the
program while it starts up and runs (the runtime's start-up, the program,
the drains of its buffer, its exit-time write), or, once the program has
ended, to pisa-char while it writes the document.  A calibration run
measures the program's life and pisa-char's write after it; each is cut
into strata (PROGRAM_STRATA and WRITE_STRATA equal slices) and every signal
is sent once at a random moment of every stratum, so every phase gets
every signal with few runs.  Every run must end (no hang), and leave
either a valid document whose exit status is the one pisa-char exits with
(128+N when the program died of signal N, which the document then records
as incomplete), or, without a document, a "pisa-char: ..." message and
exit status 125.  A signal that reaches pisa-char while it writes lets it
finish the document, then ends it: 128+N (or, sent as pisa-char exits,
finds it gone: the program's status).
Usage: inject.py PISA_CHAR PROGRAM WORKDIR PROGRAM_STRATA WRITE_STRATA SEED"""
import concurrent.futures
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "tools"))
import validate  # noqa: E402

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM, signal.SIGPIPE]


def defaults():
    """Every signal at its default action, as from a terminal."""
    for s in SIGNALS + [signal.SIGQUIT]:
        signal.signal(s, signal.SIG_DFL)


def child_of(pid):
    """The pid of pisa-char's child (the program), or None."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def shell_status(returncode):
    return 128 - returncode if returncode < 0 else returncode


def start(pisa_char, program, out, err_path):
    err = open(err_path, "w")
    p = subprocess.Popen([pisa_char, "-q", "--force", "-o", out, program],
                         stdout=subprocess.DEVNULL, stderr=err, preexec_fn=defaults)
    err.close()
    return p


def wait_until(p, deadline, condition):
    while time.monotonic() < deadline and p.poll() is None and not condition():
        time.sleep(0.0002)


def inject(p, sig, delay):
    """Sends sig `delay` seconds after pisa-char started the program: to the
    program while it runs, else (it ended) to pisa-char; what was hit."""
    wait_until(p, time.monotonic() + 30, lambda: child_of(p.pid))
    wait_until(p, time.monotonic() + delay, lambda: False)
    kid = child_of(p.pid)
    try:
        if kid:
            os.kill(kid, sig)
            return "program"
        if p.poll() is None:
            os.kill(p.pid, sig)
            return "pisa-char"
    except ProcessLookupError:
        pass
    return "nothing"


def check(p, target, sig, out, err_path, validator):
    """An error message, or None when the run left what it must."""
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return "hung"
    status = shell_status(p.returncode)
    with open(err_path) as f:
        err = f.read()
    if not os.path.exists(out):
        if status == 125 and "pisa-char: " in err:
            return None
        return f"no document, exit {status}, stderr {err!r}"
    with open(out) as f:
        doc = json.load(f)
    errors = list(validator.iter_errors(doc))
    if errors:
        return f"invalid document: {errors[0].message}"
    prog = doc["program"]
    if prog["signal"] is not None and (prog["signal"] != sig or doc["complete"]):
        return f"document says signal {prog['signal']}, complete {doc['complete']}"
    # A signal sent to pisa-char as it ends may find it gone already.
    want = {prog["exit_status"], 128 + sig} if target == "pisa-char" else {prog["exit_status"]}
    if status not in want:
        return f"exit {status}, expected {' or '.join(map(str, sorted(want)))}"
    if prog["exit_status"] not in (0, 128 + sig):
        return f"program exit status {prog['exit_status']}"
    return None


def one_run(pisa_char, program, workdir, validator, i, sig, delay):
    """(what was hit, what was left, an error message or None)."""
    out = os.path.join(workdir, f"run{i}.json")
    err_path = os.path.join(workdir, f"run{i}.err")
    p = start(pisa_char, program, out, err_path)
    target = inject(p, sig, delay)
    why = check(p, target, sig, out, err_path, validator)
    if why:
        why = (f"run {i}: {signal.Signals(sig).name} {delay * 1000:.1f} ms after the start "
               f"to {target}: {why}")
    return target, "document" if os.path.exists(out) else "message", why


def calibrate(pisa_char, program, workdir):
    """Seconds from the program's start to its end, and to pisa-char's end."""
    p = start(pisa_char, program, os.path.join(workdir, "calibrate.json"),
              os.path.join(workdir, "calibrate.err"))
    wait_until(p, time.monotonic() + 30, lambda: child_of(p.pid))
    begin = time.monotonic()
    wait_until(p, begin + 30, lambda: not child_of(p.pid))
    ended = time.monotonic() - begin
    p.wait()
    return ended, time.monotonic() - begin


def strata(start_s, end_s, n):
    width = (end_s - start_s) / n
    return [(start_s + k * width, start_s + (k + 1) * width) for k in range(n)]


def main(argv):
    pisa_char, program, workdir, program_strata, write_strata, seed = argv[1:7]
    rng = random.Random(int(seed))
    validator = validate.make_validator(validate.load_schemas(), "pisa-char-1.schema.json")
    ended, span = calibrate(pisa_char, program, workdir)
    slices = strata(0, ended, int(program_strata)) + strata(ended, span, int(write_strata))
    plan = [(lo, hi, sig) for lo, hi in slices for sig in SIGNALS]
    plan = [(i, sig, rng.uniform(lo, hi)) for i, (lo, hi, sig) in enumerate(plan)]
    hits, failures = {}, []
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for target, outcome, why in pool.map(
                lambda r: one_run(pisa_char, program, workdir, validator, *r), plan):
            hits[(target, outcome)] = hits.get((target, outcome), 0) + 1
            if why:
                failures.append(why)
    for (target, outcome), n in sorted(hits.items()):
        print(f"{n} runs: signal to {target}, {outcome}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
