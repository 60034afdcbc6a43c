#!/usr/bin/env python3
"""Runs a command in a new process group, waits for its first output line,
then sends SIGTERM to the whole group (as a batch system or `kill -- -PGID`
does, so the program gets it from the group kill and from pisa-char's
forwarding) and prints the exit status."""
import os
import signal
import subprocess
import sys
import time

p = subprocess.Popen(sys.argv[1:], start_new_session=True, stdout=subprocess.PIPE)
p.stdout.readline()
time.sleep(0.2)
os.killpg(p.pid, signal.SIGTERM)
print("status", p.wait())
