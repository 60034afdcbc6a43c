#!/usr/bin/env python3
"""Runs a command and succeeds only when it exits with the expected status.
Usage: expect_status.py STATUS COMMAND [ARGS...]  (stdout/stderr pass through)"""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print(f"expect_status: {' '.join(sys.argv[2:])}: exit status {got}, expected {want}",
          file=sys.stderr)
    sys.exit(1)
