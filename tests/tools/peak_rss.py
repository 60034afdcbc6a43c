#!/usr/bin/env python3
"""Runs a command and records its peak resident set size.
Usage: peak_rss.py OUT.json CMD ARG...  Writes {"peak_rss_bytes": N} to
OUT.json: the largest RSS of the command and of every descendant it
waited for (wait4's ru_maxrss), so for `pisa-char ... PROGRAM` the larger
of pisa-char's and the analysed program's.  Exits with the command's
status."""
import json
import os
import sys


def main(argv):
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[2], argv[2:])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    with open(argv[1], "w") as f:
        json.dump({"peak_rss_bytes": usage.ru_maxrss * 1024}, f)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
