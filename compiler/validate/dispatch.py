"""A faster `allOf` for the schema's dispatchers (an allOf of if/then on `type` or `connector`, one branch per
variant): a branch whose `if` certainly fails is skipped without running jsonschema over it, which yields
exactly the errors jsonschema's own `allOf` would (a failing `if` without `else` yields none). Any other
branch, and any `if` of another form, goes through jsonschema as before."""

from __future__ import annotations

from functools import lru_cache

from .json_values import ecma_regex

_pattern = lru_cache(maxsize=None)(ecma_regex)


def _if_fails(branch: dict, instance: object) -> bool:
    """True when `branch` is `{"if": {"type"?: "object", "properties": {key: {const} | {type: string, pattern}},
    "required": [key]}, "then": ...}` (no `else`) and its `if` fails on `instance`; False when unsure."""
    condition = branch.get("if")
    if not isinstance(condition, dict) or "else" in branch or set(condition) - {"type", "properties", "required"}:
        return False
    if condition.get("type", "object") != "object" or not isinstance(instance, dict):
        return False
    properties, required = condition.get("properties"), condition.get("required")
    if not isinstance(properties, dict) or len(properties) != 1 or required != list(properties):
        return False
    ((key, rule),) = properties.items()
    if key not in instance:
        return True
    value = instance[key]
    if set(rule) == {"const"}:
        const = rule["const"]
        return type(value) is type(const) and value != const  # jsonschema's equality differs across types
    if set(rule) == {"type", "pattern"} and rule["type"] == "string":
        return isinstance(value, str) and _pattern(rule["pattern"]).search(value) is None
    return False


def all_of(validator, all_of, instance, schema):
    """jsonschema's allOf, skipping the dispatch branches that cannot apply."""
    for index, subschema in enumerate(all_of):
        if isinstance(subschema, dict) and _if_fails(subschema, instance):
            continue
        yield from validator.descend(instance, subschema, schema_path=index)
