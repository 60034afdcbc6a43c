#!/usr/bin/env python3
"""Checks the status line a run wrote to its terminal (pty_run.py's OUT):
each refresh is "\\r\\033[K" then "pisa-char: H:MM:SS elapsed, N events
analysed, PHASE"; there are at least MIN of them (the program ran long
enough for that many half-second refreshes), the elapsed time and the
event count never go down, the count grows past 0 while it runs, and the
line is erased before the run's summary ("pisa-char: wrote ...") comes.
Usage: check_progress.py OUT MIN"""
import re
import sys

LINE = re.compile(r"pisa-char: (\d+):(\d\d):(\d\d) elapsed, ([\d,]+) events "
                  r"analysed, (starting|running|draining|writing)")


def main(path, minimum):
    text = open(path, "rb").read().decode()
    parts = text.split("\r\033[K")
    lines = [p for p in parts if " elapsed, " in p]
    seen = [LINE.fullmatch(p) for p in lines]
    assert all(seen), [p for p, m in zip(lines, seen) if not m]
    assert len(seen) >= int(minimum), f"{len(seen)} refreshes"
    times = [int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) for m in seen]
    events = [int(m[4].replace(",", "")) for m in seen]
    assert times == sorted(times), times
    assert events == sorted(events), events
    assert any(e > 0 for e in events), events
    assert "running" in [m[5] for m in seen]
    assert parts[-1].startswith("pisa-char: wrote tty.json:"), repr(parts[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
