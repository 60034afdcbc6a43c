#!/usr/bin/env python3
"""Runs every command of README.md's "Use it" block exactly as written, one
after the other with bash, in WORKDIR, which the caller has given a `build`
(the build tree) and an `examples` (the repository's examples) so that the
commands' paths mean what they mean at the repository's root. Prints each
command; exits 1 at the first that fails, naming it and its status.
Usage: readme_use_it.py README WORKDIR"""
import subprocess
import sys


def use_it_commands(readme):
    """The indented (four-space) lines of the section "## Use it", up to
    the first paragraph of text after them."""
    lines = open(readme).read().split("\n")
    start = lines.index("## Use it") + 1
    commands, seen = [], False
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if line.startswith("    "):
            commands.append(line[4:])
            seen = True
        elif seen and line.strip():
            break
    return commands


def main(readme, workdir):
    commands = use_it_commands(readme)
    if len(commands) < 5:
        print(f"readme_use_it: only {len(commands)} commands in 'Use it'")
        return 1
    for command in commands:
        print(f"$ {command}", flush=True)
        status = subprocess.run(["bash", "-c", command], cwd=workdir).returncode
        if status != 0:
            print(f"readme_use_it: exit status {status}: {command}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
