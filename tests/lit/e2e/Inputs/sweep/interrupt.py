#!/usr/bin/env python3
"""Interrupts a command as Ctrl-C would, at a known point, for the sweep
resume test. Usage: interrupt.py FILE COMMAND [ARGS...]
Starts COMMAND, waits until FILE exists (at most 120 s), sends it SIGINT
and prints "exit STATUS" when it has ended."""
import os
import signal
import subprocess
import sys
import time


def main(argv):
    wait_for, command = argv[1], argv[2:]
    proc = subprocess.Popen(command)
    deadline = time.time() + 120
    while not os.path.exists(wait_for):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            print(f"interrupt: {wait_for} never appeared", file=sys.stderr)
            return 1
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    print(f"exit {proc.wait(timeout=60)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
