#!/usr/bin/env python3
"""Asserts facts about a pisa-char JSON document in lit tests.
Usage: jcheck.py FILE EXPR...  Each EXPR is a Python expression evaluated with
  d        the document
  fn(name) the entry of `functions` whose name is `name` (exactly one)
  th(i)    the i-th entry of `threads`
  op(m, o) opcode count o in metrics m (0 when absent)
  top_block(name) the entry of fn(name)['bblp']['blocks'] that ran most
  loop(n)  the entry of `loops` whose first line is n (exactly one)
  line(n)  the entry of `lines` for line n (exactly one)
  obj(n)   the entry of `objects` whose site starts at line n (exactly one)
  kind(k)  the entries of `objects` of kind k
  reuse(o) o's 64-byte reuse histogram: {"cold": n, "bins": [...]}
  load(path) another document (a reference run to compare with)
Prints the failing expression with the values it saw and exits 1."""
import json
import sys


def main(argv):
    with open(argv[1]) as f:
        d = json.load(f)

    def fn(name):
        hits = [f for f in d["functions"] if f["name"] == name]
        if len(hits) != 1:
            raise AssertionError(f"{len(hits)} functions named {name!r}")
        return hits[0]

    def th(i):
        return d["threads"][i]

    def op(m, o):
        return m["instruction_mix"]["opcodes"].get(o, 0)

    def only(key, line):
        hits = [e for e in d[key] if e["line"] == line]
        if len(hits) != 1:
            raise AssertionError(f"{len(hits)} {key} at line {line}")
        return hits[0]

    def top_block(name):
        return max(fn(name)["bblp"]["blocks"], key=lambda b: b["instances"])

    def load(path):
        with open(path) as f:
            return json.load(f)

    def obj(line):
        hits = [o for o in d["objects"] if o.get("site")
                and o["site"][0]["line"] == line]
        if len(hits) != 1:
            raise AssertionError(f"{len(hits)} objects at line {line}")
        return hits[0]

    def kind(k):
        return [o for o in d["objects"] if o["kind"] == k]

    env = {"obj": obj, "kind": kind,
           "reuse": lambda o: o["reuse_distance"][0], "d": d, "fn": fn, "th": th, "op": op, "top_block": top_block,
           "load": load, "loop": lambda n: only("loops", n),
           "line": lambda n: only("lines", n)}
    for expr in argv[2:]:
        try:
            ok = eval(expr, env)
        except Exception as e:  # a missing key is a failure too
            print(f"jcheck: {expr}: {type(e).__name__}: {e}")
            return 1
        if not ok:
            print(f"jcheck: FAILED: {expr}")
            # Show the operands of a comparison to make the failure readable.
            for part in expr.replace("==", "\0").replace("<=", "\0").replace(">=", "\0").split("\0"):
                try:
                    print(f"    {part.strip()} = {eval(part, env)!r}")
                except Exception:
                    pass
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
