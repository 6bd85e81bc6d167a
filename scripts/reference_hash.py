#!/usr/bin/env python3
"""The canonical DB hash of the reference harness, in Python 3, written from its
specification (reference-harness section 4), as the baseline that `cli.ts hash`
is measured against by scripts/bench_goals.ts.

    python3 scripts/reference_hash.py FILE|FOLDER ...

Prints {"input","sha256"} per input, as `cli.ts hash` does. A FOLDER is a sharded
database: its *.json files read as {stem: contents}.
"""
import hashlib
import json
import math
import os
import sys

EXCLUDED_TOP_LEVEL = {"session"}
ORDER_INDEPENDENT = {
    "standby_list",
    "notifications",
    "bookings",
    "system_accounts",
    "group_memberships",
    "asset_recoveries",
}


def sort_key(value):
    """Default separators, sorted keys, ASCII escapes: how the reference orders sets."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True)


def normalise(value):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = normalise(item)
            if key in ORDER_INDEPENDENT and isinstance(item, list):
                item = sorted(item, key=sort_key)
            out[key] = item
        return out
    if isinstance(value, list):
        return [normalise(item) for item in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("none", "null"):
        return None
    return value


def canonical(doc):
    if isinstance(doc, dict):
        doc = {k: v for k, v in doc.items() if k not in EXCLUDED_TOP_LEVEL}
    return json.dumps(normalise(doc), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def load(path):
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if n.endswith(".json"))
        db = {}
        for name in names:
            full = os.path.join(path, name)
            if os.path.isfile(full):
                with open(full, encoding="utf-8") as f:
                    db[name[: -len(".json")]] = json.load(f)
        return db
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    for path in argv:
        digest = hashlib.sha256(canonical(load(path)).encode("utf-8")).hexdigest()
        print(json.dumps({"input": path, "sha256": digest}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
