#!/usr/bin/env python3
"""Checks the one shape of a usage error: exit status 2, nothing on stdout,
and exactly two lines on stderr: LINE, then the hint "Try 'TOOL CMD
--help'." (pisa-cc: --pisa-help) for the "TOOL CMD" that LINE starts with.
Usage: expect_usage_error.py LINE COMMAND [ARGS...]"""
import subprocess
import sys

line, command = sys.argv[1], sys.argv[2:]
who = line.split(":", 1)[0]
flag = "--pisa-help" if who.split()[0] in ("pisa-cc", "pisa-c++") else "--help"
want = [line, f"Try '{who} {flag}'."]
run = subprocess.run(command, capture_output=True, text=True)
problems = []
if run.returncode != 2:
    problems.append(f"exit status {run.returncode}, expected 2")
if run.stdout:
    problems.append(f"stdout is not empty: {run.stdout!r}")
if run.stderr.splitlines() != want:
    problems.append(f"stderr is {run.stderr.splitlines()!r}, expected {want!r}")
if problems:
    print(f"expect_usage_error: {' '.join(command)}: " + "; ".join(problems),
          file=sys.stderr)
    sys.exit(1)
