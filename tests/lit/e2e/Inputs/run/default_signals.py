#!/usr/bin/env python3
"""Runs a command with SIGINT and SIGQUIT at their default actions (lit
may start tests with them ignored, and a shell cannot undo that), then
prints "exit N" as a shell reports it (128+N for a death by signal N).
Usage: default_signals.py COMMAND [ARGS...]"""
import signal
import subprocess
import sys


def main(argv):
    def defaults():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)

    status = subprocess.run(argv[1:], preexec_fn=defaults).returncode
    print(f"exit {128 - status if status < 0 else status}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
