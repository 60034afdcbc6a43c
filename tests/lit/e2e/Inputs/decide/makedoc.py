#!/usr/bin/env python3
"""Writes a pisa-char/1 result document with chosen metrics, for the tests
of show, rank and compare.  Usage: makedoc.py OUT SPEC, SPEC a JSON object:
  program, instr, loads, stores, bl, bs (bytes loaded/stored), memory
  (memory-category instructions, default loads+stores), footprint, h (list
  of H_k), slq [score, strict], rd64 [cold, [bins...]], dlp [dlp1, dlp2],
  bblp [bblp, smart, pbblp], miss [[cache_bytes, ratio]...], ilp [[window,
  ilp, memory ILP]...], functions: list of specs with name, file, line;
  mode "counter" (with sample_every, default 1) for a counter document.
Keys left out give families left out, as in a real document."""
import json
import sys

CATEGORIES = ["memory", "int", "fp", "bitwise", "conversion", "address",
              "control", "vector", "other"]


def metrics(s):
    instr = s.get("instr", 1000)
    loads, stores = s.get("loads", 0), s.get("stores", 0)
    cats = dict.fromkeys(CATEGORIES, 0)
    cats["memory"] = s.get("memory", loads + stores)
    cats["int"] = instr - cats["memory"]
    m = {
        "instructions": instr,
        "instruction_mix": {
            "opcodes": {"load": loads, "store": stores,
                        "add": cats["int"]},
            "categories": cats, "phi": 0,
            "bytes_loaded": s.get("bl", 8 * loads),
            "bytes_stored": s.get("bs", 8 * stores),
            "vector": {"instructions": 0, "lanes": {}, "bits": {}}},
        "memory_accesses": {"loads": loads, "stores": stores, "atomics": 0,
                            "memcpy": 0, "memset": 0, "gathers": 0,
                            "scatters": 0},
        "footprint": {"bytes": s.get("footprint", 64),
                      "blocks": {"64": 1}},
        "external_calls": {},
    }
    if "h" in s:
        m["memory_entropy"] = s["h"]
    if "slq" in s:
        m["spatial_locality"] = {"score": s["slq"][0],
                                 "score_strict": s["slq"][1],
                                 "pairs": [{"line_bytes": 64,
                                            "score": s["slq"][0],
                                            "strict": s["slq"][1]}]}
    if "rd64" in s:
        m["reuse_distance"] = [{"line_bytes": 64, "cold": s["rd64"][0],
                                "bins": s["rd64"][1]}]
    if "miss" in s:
        m["miss_ratio"] = [{"cache_bytes": c, "line_bytes": 64, "ratio": r}
                           for c, r in s["miss"]]
    if "dlp" in s:
        m["dlp"] = {"dlp1": s["dlp"][0], "dlp2": s["dlp"][1]}
    if "ilp" in s:
        m["ilp"] = [{"window": w, "ilp": x, "categories": {"memory": mem},
                     "opcodes": {}} for w, x, mem in s["ilp"]]
    if "bblp" in s:
        b = s["bblp"]
        m["bblp"] = {"bblp": b[0], "bblp_smart": b[1], "pbblp": b[2]}
    return m


def main(out, spec):
    s = json.loads(spec)
    functions = []
    for f in s.get("functions", []):
        entry = {"name": f["name"], "linkage_name": f["name"],
                 "file": f.get("file"), "line": f.get("line"),
                 "module": f.get("file")}
        entry.update(metrics(f))
        functions.append(entry)
    doc = {"schema": "pisa-char/1",
           "tool": {"name": "pisa-char", "version": "0.1.0", "llvm": "19.1.7"},
           "program": {"path": s.get("program", "./app"), "args": [],
                       "exit_status": 0, "signal": None, "wall_seconds": 1.5},
           "mode": "deep", "complete": True, "config": {"line_sizes": [64]},
           "totals": metrics(s), "threads": [], "functions": functions}
    if s.get("mode") == "counter":
        doc.update(mode="counter", config={}, regions=[],
                   counter={"sample_every": s.get("sample_every", 1),
                            "counters": 1, "sets": 1,
                            "updates": 1, "hw_counters": []})
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
