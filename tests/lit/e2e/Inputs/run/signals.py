#!/usr/bin/env python3
"""Signals sent to pisa-char while the program runs. pisa-char must ignore
SIGINT and SIGQUIT (a terminal sends them to the program as well) and
forward SIGTERM and SIGHUP to the program.
Usage: signals.py INT-QUIT|TERM|HUP PISA_CHAR OUTPUT FAKE
Runs `PISA_CHAR -q -o OUTPUT FAKE wait out done`, waits for the fake's
"ready", sends the signal(s) to pisa-char alone (not to its process group),
then, for INT-QUIT, lets the fake go on; prints the program's output and
"exit N"."""
import os
import signal
import subprocess
import sys


def main(argv):
    which, pisa_char, output, fake = argv[1:5]
    p = subprocess.Popen([pisa_char, "-q", "-o", output, fake, "wait", "out", "done"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    print(p.stdout.readline().decode().strip(), flush=True)
    for name in which.split("-"):
        os.kill(p.pid, getattr(signal, "SIG" + name))
    if which == "INT-QUIT":
        # Ignored signals are dropped when sent: pisa-char survived them or
        # died already. Let the program finish.
        out, _ = p.communicate(b"go\n", timeout=60)
    else:
        # The program dies of the forwarded signal while it waits for input.
        out = p.stdout.read()
        p.wait(timeout=60)
        p.stdin.close()
    print(out.decode().strip())
    status = p.returncode
    print(f"exit {status}" if status >= 0 else f"killed by signal {-status}")


if __name__ == "__main__":
    main(sys.argv)
