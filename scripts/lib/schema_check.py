#!/usr/bin/env python3
"""Validates layout documents against docs/layout-document.schema.json and compares with the
parser's verdicts (Tests/LayoutModelTests/DocumentSchemaTests.swift writes them).

    schema_check.py SCHEMA CASES.jsonl

Each line of CASES is {"name": ..., "verdict": "accept" | "shape" | "other", "document": ...}:
`accept` — the parser accepts the document; `shape` — it rejects it with at least one problem
about the document's shape (a wrong type, an unknown or missing field, a word that is not one of
the allowed ones...); `other` — it rejects it only for what a schema cannot see (unknown view
references, cycles, expression syntax...). Prints one JSON object: counts, and the disagreements
(an accepted document the schema rejects, a shape-rejected one it accepts), at most 25 of each.
Exits 0 when there is none, 1 otherwise, 2 when it cannot run (jsonschema missing).
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print(json.dumps({"error": "python3 cannot import jsonschema: run scripts/lib/deps.sh's ensure_schema_tools "
                               "(pip install jsonschema)"}))
    sys.exit(2)
try:
    if os.environ.get("LAYOUTD_SCHEMA_VALIDATOR") == "jsonschema":
        raise ImportError("the Python validator was asked for")
    # The same checks in Rust (a dependency of schemathesis): 20 times faster over ten thousand
    # documents. The schema is checked against the meta-schema by `jsonschema` either way.
    import jsonschema_rs
except ImportError:
    jsonschema_rs = None


def first_error(validator, document):
    """The most relevant error as (message, path), or None when the document is valid."""
    if jsonschema_rs is not None:
        for error in validator.iter_errors(document):
            return error.message, "/" + "/".join(map(str, error.instance_path))
        return None
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    return None if error is None else (error.message, "/" + "/".join(map(str, error.absolute_path)))


def main():
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = (jsonschema_rs.Draft202012Validator(schema) if jsonschema_rs is not None
                 else jsonschema.Draft202012Validator(schema))
    counts = {"accept": 0, "shape": 0, "other": 0, "otherRejectedBySchema": 0}
    wrongly_rejected, wrongly_accepted = [], []
    with open(sys.argv[2], encoding="utf-8") as cases:
        for line in cases:
            case = json.loads(line)
            verdict = case["verdict"]
            counts[verdict] += 1
            error = first_error(validator, case["document"])
            if verdict == "accept" and error is not None:
                wrongly_rejected.append({"name": case["name"], "schemaSays": error[0][:300], "at": error[1]})
            elif verdict == "shape" and error is None:
                wrongly_accepted.append({"name": case["name"], "parserSays": case.get("problems", [])[:3]})
            elif verdict == "other" and error is not None:
                counts["otherRejectedBySchema"] += 1
    print(json.dumps({"validator": "jsonschema_rs" if jsonschema_rs is not None else "jsonschema", "counts": counts, "acceptedByParserRejectedBySchema": len(wrongly_rejected),
                      "shapeRejectedByParserAcceptedBySchema": len(wrongly_accepted),
                      "examples": {"rejectedBySchema": wrongly_rejected[:25], "acceptedBySchema": wrongly_accepted[:25]}},
                     indent=1))
    return 1 if wrongly_rejected or wrongly_accepted else 0


if __name__ == "__main__":
    sys.exit(main())
