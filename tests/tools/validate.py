#!/usr/bin/env python3
"""Validates pisa-char documents against schemas/ with python3-jsonschema, an
implementation independent of pisa-char's own validator.
Usage: validate.py [--schema NAME] FILE...   (exit 1 on the first invalid file)"""
import json
import os
import sys

import jsonschema

SCHEMAS = os.path.join(os.path.dirname(__file__), "..", "..", "schemas")


def load_schemas():
    """Every schema in schemas/, by file name."""
    schemas = {}
    for name in os.listdir(SCHEMAS):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMAS, name)) as f:
                schemas[name] = json.load(f)
    return schemas


def make_validator(schemas, name):
    """A validator for schemas[name] that resolves a $ref to another schema
    by its $id locally, never over the network."""
    schema = schemas[name]
    try:
        from referencing import Registry, Resource
    except ImportError:  # jsonschema < 4.18 (Debian 12's python3-jsonschema)
        store = {s["$id"]: s for s in schemas.values()}
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def main(argv):
    name = "pisa-char-1.schema.json"
    if len(argv) > 2 and argv[1] == "--schema":
        name, argv = argv[2], argv[2:]
    validator = make_validator(load_schemas(), name)
    status = 0
    for path in argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:10]:
            print(f"{path}: {'/'.join(map(str, e.path)) or '<root>'}: {e.message}")
        if errors:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
