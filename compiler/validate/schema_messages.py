"""A jsonschema error in pipec's words: the message, a hint that says what to write instead, and the node at fault.

An unknown key is first compared with the keys allowed where it stands ("did you mean"), then with the keys of
the mappings beside it and of the mapping around it: a `checkpoint:` indented out of `sink` is "unknown top-level
key 'checkpoint'", with the hint "did you mean sink.checkpoint?", not a complaint about its value.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics import did_you_mean, one_of, shown
from .scalars import Slots

LISTED_CHOICES = 12  # an enum with more choices is named by a few of them and its count

# What each JSON type is called in YAML, and how to write one.
_WRITE = {
    "object": "a mapping (key: value, indented under its key, or {key: value})",
    "array": "a list (- item lines, or [a, b])",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
_NAMES = {
    dict: "a mapping",
    list: "a list",
    str: "text",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def leaves(error):
    """The most specific errors under an anyOf/oneOf, else the error itself."""
    if error.context and error.validator in ("anyOf", "oneOf"):
        deepest = max(len(e.absolute_path) for e in error.context)
        picked = [e for e in error.context if len(e.absolute_path) == deepest and e.validator != "type"]
        if picked and deepest > len(error.absolute_path):
            for e in picked:
                yield from leaves(e)
            return
    yield error


def _label(schema: dict) -> str | None:
    """The first sentence of a subschema's description, without its 'Required: ' lead."""
    text = schema.get("description", "").split(". ")[0].split("; ")[0].removeprefix("Required: ").rstrip(".")
    return text or None


def _where(path: tuple) -> str:
    return ".".join(str(p) for p in path) or "the top level"


def keys_at(slots: Slots, data: Any, path: tuple) -> set[str]:
    """The keys the schema names for the mapping at `path` of `data` (as the document's values decide it)."""
    schemas, node = [slots.root], data
    for part in path:
        expanded = slots.expand(schemas, node)
        if isinstance(node, dict) and isinstance(part, str):
            schemas, node = slots.child(expanded, part), node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            schemas, node = slots.items(expanded), node[part]
        else:
            return set()
    return {key for schema in slots.expand(schemas, node) for key in schema.get("properties", ())}


def _elsewhere(slots: Slots, data: Any, path: tuple, key: str) -> str | None:
    """Where `key`, unknown at `path`, is known and not yet written: in a mapping beside it (the key was
    indented out of that one), or in the mapping around it (indented into this one)."""
    here = _node(data, path)
    for sibling, value in here.items() if isinstance(here, dict) else ():
        if isinstance(value, dict) and key not in value and key in keys_at(slots, data, path + (sibling,)):
            return f"did you mean {'.'.join(map(str, path + (sibling, key)))}? Indent it under {sibling}:, as its other keys"
    outer = _node(data, path[:-1]) if path else None
    if isinstance(outer, dict) and key not in outer and key in keys_at(slots, data, path[:-1]):
        spot = ".".join(map(str, path[:-1] + (key,))) if len(path) > 1 else f"the top-level key {key}"
        return f"did you mean {spot}? Indent it as far as {path[-1]}:, out of {_where(path)}"
    return None


def _node(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def _unknown_key(error, slots: Slots, data: Any, path: tuple) -> tuple[str, str, tuple]:
    named = error.schema.get("properties", {})
    allowed = sorted(named)
    extra = [k for k in error.instance if k not in named] if isinstance(error.instance, dict) else []
    key = extra[0] if extra else "?"
    hint = (
        did_you_mean(key, allowed)
        or _elsewhere(slots, data, path, key)
        or (f"allowed here: {', '.join(allowed)}" if allowed else "remove it: this mapping takes no keys")
    )
    message = f"unknown top-level key '{key}'" if not path else f"unknown key '{key}' in {_where(path)}"
    return message, hint, path + (key,)


def describe(error, slots: Slots, data: Any) -> tuple[str, str, tuple]:
    """(message, hint, path of the node at fault) for one jsonschema error about `data`."""
    path = tuple(error.absolute_path)
    where = _where(path)
    v, sch, instance = error.validator, error.schema, error.instance
    if v in ("additionalProperties", "unevaluatedProperties"):
        return _unknown_key(error, slots, data, path)
    if v == "dependentRequired":
        key, missing = next(
            (k, missing)
            for k, deps in error.validator_value.items()
            if k in instance and (missing := [d for d in deps if d not in instance])
        )
        return (
            f"{key} needs a {one_of(missing)}, and there is none",
            f"add {one_of(missing)}, or remove {key}",
            path + (key,),
        )
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        about = _label(sch.get("properties", {}).get(missing, {}))
        return f"'{missing}' is required in {where}", f"add {missing}: {about}" if about else f"add {missing}", path
    if v == "enum":
        choices = [repr(c) if not isinstance(c, str) else c for c in error.validator_value]
        hint = did_you_mean(str(instance), [str(c) for c in error.validator_value])
        if len(choices) > LISTED_CHOICES:  # e.g. every transform type: a few, and the count
            return (
                (
                    f"{where} must be one of {len(choices)} values ({', '.join(choices[:LISTED_CHOICES])}, ...), "
                    f"not {shown(instance)}"
                ),
                hint or f"write one of the {len(choices)} values: {_label(sch) or where}",
                path,
            )
        return f"{where} must be {one_of(choices)}, not {shown(instance)}", hint or f"write {one_of(choices)}", path
    if v == "const":
        return (
            f"{where} must be {error.validator_value!r}, not {shown(instance)}",
            f"write {error.validator_value!r}",
            path,
        )
    if v == "pattern" and "examples" in sch:  # choices accepted in any case (compiler/schema_gen.py)
        choices = [str(c) for c in sch["examples"]]
        hint = did_you_mean(str(instance).upper(), [c.upper() for c in choices])
        return (
            f"{where} must be {one_of(choices)} (any case), not {shown(instance)}",
            hint or f"write {one_of(choices)}",
            path,
        )
    if v == "pattern":
        return (
            f"{where} {shown(instance)} does not match {error.validator_value}",
            _label(sch) or f"write text matching {error.validator_value}",
            path,
        )
    if v == "minLength" and instance == "":
        return f"{where} must not be empty", f"write {_label(sch) or 'a value'}, or remove the key", path
    if v == "maxLength":
        why = re.search(r"at most [\d,]+ characters([^.;]*)", sch.get("description", ""), re.I)
        return (
            f"{where} is {len(instance):,} characters long; it takes at most {error.validator_value:,}",
            f"shorten it to {error.validator_value:,} characters or fewer{why.group(1) if why else ''}",
            path,
        )
    if v == "type":
        wanted = [error.validator_value] if isinstance(error.validator_value, str) else list(error.validator_value)
        return (
            f"{where} must be {one_of([_WRITE[t].split(' (')[0] for t in wanted])}, not "
            f"{_NAMES.get(type(instance), type(instance).__name__)}",
            f"write {one_of([_WRITE[t] for t in wanted])}",
            path,
        )
    return f"{where}: {error.message}", _label(sch) or "see the key's description in schemas/pipeline.schema.json", path
