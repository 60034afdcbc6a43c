#!/usr/bin/env python3
"""Drives `pisa-char top` against running counter-mode programs (top.test):
starts COMMAND (a `pisa-char run --mode counter` of Inputs/top/spin.c with
DIR as its second argument), waits until PROCS processes wrote
DIR/ready.PID (their work done, their counters still), then prints what
`top --json -n 1` (every live program) and `top -n 1 PID` show, lets the
programs finish (DIR/go), and prints what `top PID` says afterwards.
Usage: live_top.py PISA_CHAR DIR PROCS -- COMMAND..."""
import glob
import json
import os
import subprocess
import sys
import time


def main():
    pisa_char, d, procs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1:]
    env = dict(os.environ, PISA_LIVE_DIR=os.path.join(d, "live"),
               PISA_LIVE_MS="100")
    os.makedirs(env["PISA_LIVE_DIR"], exist_ok=True)
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                           text=True)
    deadline = time.monotonic() + 300
    while len(glob.glob(os.path.join(d, "ready.*"))) < procs:
        if run.poll() is not None or time.monotonic() > deadline:
            sys.exit("live_top: the program ended or hung (status %s)" %
                     run.poll())
        time.sleep(0.05)
    time.sleep(0.5)  # a snapshot taken after the work
    top = subprocess.run([pisa_char, "top", "--json", "-n", "1"], env=env,
                         capture_output=True, text=True)
    print("top --json status", top.returncode, top.stderr.strip())
    shown = sorted((json.loads(l) for l in top.stdout.splitlines()),
                   key=lambda o: (o["rank"] is not None, o["rank"], o["pid"]))
    for o in shown:
        work = [f for f in o["functions"] if f["name"] == "work"]
        print("rank %s: work bytes %d, regions %s, running %s" % (
            o["rank"], work[0]["bytes"] if work else -1,
            ",".join("%s=%d" % (r["name"], r["executions"])
                     for r in o["regions"]), not o["ended"]))
    pid = str(shown[0]["pid"])
    text = subprocess.run([pisa_char, "top", "-n", "1", pid], env=env,
                          capture_output=True, text=True)
    print("top PID status", text.returncode)
    print(text.stdout)
    open(os.path.join(d, "go"), "w").close()
    out, _ = run.communicate(timeout=300)
    print("program status", run.returncode)
    print(out.strip())
    after = subprocess.run([pisa_char, "top", pid], env=env,
                           capture_output=True, text=True)
    print("top after status", after.returncode, after.stderr.strip())
    print("live files left", len(os.listdir(env["PISA_LIVE_DIR"])))
    if procs != 1:
        return
    # The same counters as the document: work ran before the snapshot only.
    with open(os.path.join(d, "doc.json")) as f:
        doc = json.load(f)
    in_doc = sum(f["instructions"] for f in doc.get("functions", [])
                 if f["name"] == "work")
    in_top = [f["instructions"] for f in shown[0]["functions"]
              if f["name"] == "work"]
    print("work instructions: top", "same as" if [in_doc] == in_top else
          "differs from", "the document", in_top, in_doc)


if __name__ == "__main__":
    main()
