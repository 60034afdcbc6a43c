#!/usr/bin/env python3
"""Fails when a process runs the executable PATH, for the sweep tests that
check that a killed benchmark left nothing behind. Usage: no_process.py PATH"""
import os
import sys


def runs(pid, path):
    try:
        return os.readlink(f"/proc/{pid}/exe") == path
    except OSError:  # gone, or not ours to look at
        return False


path = os.path.realpath(sys.argv[1])
pids = [p for p in os.listdir("/proc") if p.isdigit() and runs(p, path)]
if pids:
    print(f"no_process: {path} still runs as {', '.join(pids)}")
sys.exit(1 if pids else 0)
