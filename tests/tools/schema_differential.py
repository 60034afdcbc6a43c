#!/usr/bin/env python3
"""Differential test of pisa-char's schema validator (cli/lib/jsonschema.c)
against python3-jsonschema's Draft202012Validator on schemas/: documents
made by mutating valid seeds at random (fixed seed), and the documents of
fuzz corpora, are validated by both; every verdict must agree.
Usage: schema_differential.py --pisa-char BIN [--count N] [--seed S]
                              [--corpus DIR]... WORKDIR"""
import argparse
import copy
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from validate import load_schemas, make_validator  # noqa: E402

DOCS = os.path.join(os.path.dirname(__file__), "..", "lit", "e2e", "Inputs", "docs")
SEEDS = ["minimal.json", "full.json", "good-entries.json", "raw.json"]
KINDS = {"pisa-char/1": "pisa-char-1.schema.json",
         "pisa-char-raw/1": "pisa-char-raw-1.schema.json"}
# Values a mutation puts in place of another; integers stay within 64 bits,
# beyond which pisa-char refuses the text before any schema (jsontext.c).
VALUES = [None, True, False, 0, 1, -1, 7, 0.5, -0.5, 1.0, 2.5e10, 2**63 - 1,
          2**64 - 1, -2**63, "", "x", "deep", "counter", "load", "8", [], {},
          [1, 1], {"x": 1}, "pisa-char/1", 1e300]


def paths(value, prefix=()):
    """Every place in value: (container, key) pairs, depth first."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield value, key
        yield from paths(child, prefix + (key,))


def mutate(doc, rng):
    """One random change: replace, delete, duplicate or add."""
    places = list(paths(doc))
    if not places:
        return
    container, key = rng.choice(places)
    what = rng.randrange(4)
    if what == 0:
        container[key] = copy.deepcopy(rng.choice(VALUES))
    elif what == 1:
        del container[key]
    elif what == 2 and isinstance(container, list):
        container.append(copy.deepcopy(container[key]))
    elif isinstance(container, dict):
        container[rng.choice(["extra", "bound", "approximate", str(key) + "x",
                              "64", "signal"])] = rng.choice(VALUES)
    else:
        container[key] = copy.deepcopy(rng.choice(VALUES))


def generated(count, seed):
    rng = random.Random(seed)
    seeds = [json.load(open(os.path.join(DOCS, name))) for name in SEEDS]
    for i in range(count):
        doc = copy.deepcopy(rng.choice(seeds))
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            mutate(doc, rng)
        yield "gen%04d.json" % i, doc


def strict_load(path):
    """The document, or None when pisa-char's parser would refuse the text
    before validating (not JSON, repeated keys, integers past 64 bits)."""
    def no_repeats(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("repeated key")
        return dict(pairs)
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"), object_pairs_hook=no_repeats,
                             parse_constant=lambda c: 1 / 0)
    except (ValueError, UnicodeDecodeError, ZeroDivisionError, RecursionError):
        return None
    text = json.dumps(doc)
    if "\\u0000" in text or any(isinstance(v, int) and not -2**63 <= v < 2**64
                                for _, v in flat(doc)):
        return None
    return doc


def flat(value):
    for container, key in paths(value):
        yield key, container[key]


def corpus(dirs):
    for d in dirs:
        for name in sorted(os.listdir(d)):
            doc = strict_load(os.path.join(d, name))
            if doc is not None:
                yield "corpus-%s-%s.json" % (os.path.basename(d), name), doc


def schema_of(doc):
    kind = doc.get("schema") if isinstance(doc, dict) else None
    return KINDS.get(kind if isinstance(kind, str) else None,
                     "pisa-char-1.schema.json")


def pisa_verdicts(binary, schema_path, files):
    """FILE -> whether pisa-char validate --schema called it valid."""
    verdicts = {}
    for start in range(0, len(files), 200):
        chunk = files[start:start + 200]
        out = subprocess.run([binary, "validate", "--schema", schema_path] + chunk,
                             capture_output=True, text=True)
        for line in out.stdout.splitlines():
            if line.endswith(": valid"):
                verdicts[line[:-len(": valid")]] = True
        for f in chunk:
            verdicts.setdefault(f, False)
    return verdicts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pisa-char", required=True)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corpus", action="append", default=[])
    p.add_argument("workdir")
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    schemas = load_schemas()
    by_schema = {}
    for name, doc in list(generated(a.count, a.seed)) + list(corpus(a.corpus)):
        path = os.path.join(a.workdir, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        by_schema.setdefault(schema_of(doc), []).append((path, doc))
    schema_dir = os.path.join(os.path.dirname(__file__), "..", "..", "schemas")
    total = valid = disagree = 0
    for schema, docs in sorted(by_schema.items()):
        python = make_validator(schemas, schema)
        ours = pisa_verdicts(a.pisa_char, os.path.join(schema_dir, schema),
                             [path for path, _ in docs])
        for path, doc in docs:
            expected = python.is_valid(doc)
            total += 1
            valid += expected
            if ours[path] != expected:
                disagree += 1
                print("DISAGREE %s (%s): python-jsonschema says %s" %
                      (path, schema, "valid" if expected else "invalid"))
    print("%d documents (%d valid, %d invalid): %d disagreements" %
          (total, valid, total - valid, disagree))
    return 1 if disagree or not total else 0


if __name__ == "__main__":
    sys.exit(main())
