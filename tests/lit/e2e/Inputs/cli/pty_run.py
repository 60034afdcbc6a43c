#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal (stdout and stdin
stay as they are) and writes what reached the terminal to OUT, byte for
byte, so that a test can look at a status line rewritten in place.
Usage: pty_run.py OUT COMMAND...   Exits with the command's status."""
import os
import pty
import subprocess
import sys


def main(out, *command):
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        data += chunk
    status = proc.wait()
    with open(out, "wb") as f:
        f.write(data)
    return status


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
