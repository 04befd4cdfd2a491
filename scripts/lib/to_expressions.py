#!/usr/bin/env python3
"""Rewrites the object-form constraints of a workload bundle (shared/bench/workloads.py bundle)
as expression strings, keeping the views, the constraint ids and everything else, so that the two
spellings of the same layout can be timed against each other (layout-bench prints equal checksums).

    python3 scripts/lib/to_expressions.py < form-1000.json > form-1000-expr.json

An object-form entry {"first": A, "relation"?: R, "second"?: B, "multiplier"?: m, "constant"?: c,
"priority"?: p} becomes "A R m*B + c ~ p" (docs/document.md 4.1 and 4.2): without `second` it is
"A R c" (the multiplier has no effect there); a composite's array multiplier or constant becomes a
tuple. Stdlib only.
"""
import json
import sys

RELATIONS = {"==": "==", ">=": ">=", "<=": "<=", "equal": "==",
             "greaterThanOrEqual": ">=", "lessThanOrEqual": "<="}
OWN = {"first", "relation", "second", "multiplier", "constant", "priority"}


def number(x):
    """A JSON number as the expression grammar reads it (digits [. digits] [e [+-] digits])."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"not a number: {x!r}")
    return repr(x) if isinstance(x, float) else str(x)


def operand(x):
    """A number or an array of numbers (a tuple); no sign (the caller writes it)."""
    if isinstance(x, list):
        return "(" + ", ".join(number(v) for v in x) + ")"
    return number(x)


def expression(entry):
    if not isinstance(entry, dict) or "first" not in entry or set(entry) - OWN:
        raise ValueError(f"not a plain object-form entry: {entry!r}")
    relation = RELATIONS[entry.get("relation") or "=="]
    first, second = entry["first"], entry.get("second")
    multiplier, constant = entry.get("multiplier"), entry.get("constant")
    if isinstance(constant, dict):
        raise ValueError(f"keyed constants have no expression spelling: {entry!r}")
    if second is None:
        rhs = operand(constant) if constant is not None else "0"
    else:
        rhs = second if multiplier is None else f"{operand(multiplier)}*{second}"
        if constant is not None:
            if isinstance(constant, list) or constant >= 0:
                rhs += f" + {operand(constant)}"
            else:
                rhs += f" - {number(-constant)}"
    text = f"{first} {relation} {rhs}"
    if entry.get("priority") is not None:
        p = entry["priority"]
        text += f" ~ {p if isinstance(p, str) else number(p)}"
    return text


def main():
    bundle = json.load(sys.stdin)
    constraints = bundle["document"]["constraints"]
    if isinstance(constraints, dict):
        bundle["document"]["constraints"] = {k: expression(v) for k, v in constraints.items()}
    else:
        # Array entries keep their ids through {"expr": ..., "id": ...}.
        out = []
        for v in constraints:
            rest = {k: v[k] for k in v if k not in OWN}
            text = expression({k: v[k] for k in v if k in OWN})
            out.append({"expr": text, **rest} if rest else text)
        bundle["document"]["constraints"] = out
    json.dump(bundle, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
