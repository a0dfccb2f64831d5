"""Check a loaded document against `schemas/pipeline.schema.json`, turning each error into a Diagnostic."""

from __future__ import annotations

import json
from functools import lru_cache

from ..connectors import schema_hint
from ..diagnostics import Collector, did_you_mean, one_of
from .exclusive_keys import check_exclusive
from ..load.document import Document
from ..package_data import SCHEMA_PATH
from .scalars import Slots, settle
from .compiled_schema import SchemaCheck

LISTED_CHOICES = 12  # an enum with more choices is named by a few of them and its count


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator, validators  # imported lazily: validation is the only user

    from .dispatch import all_of

    return validators.extend(Draft202012Validator, {"allOf": all_of})(schema())


@lru_cache(maxsize=1)
def _check() -> SchemaCheck:
    """The schema's compiled validity check (compiled_schema.py): jsonschema only for what it cannot compile."""
    return SchemaCheck(schema(), lambda subschema: _validator().evolve(schema=subschema).is_valid)


@lru_cache(maxsize=1)
def _slots() -> Slots:
    return Slots(_check())


def _leaves(error):
    """The most specific errors under an anyOf/oneOf, else the error itself."""
    if error.context and error.validator in ("anyOf", "oneOf"):
        deepest = max(len(e.absolute_path) for e in error.context)
        picked = [e for e in error.context if len(e.absolute_path) == deepest and e.validator != "type"]
        if picked and deepest > len(error.absolute_path):
            for e in picked:
                yield from _leaves(e)
            return
    yield error


def _describe(error) -> tuple[str, str | None, tuple]:
    """(message, hint, path of the node at fault) for one jsonschema error."""
    path = tuple(error.absolute_path)
    where = ".".join(str(p) for p in path) or "the top level"
    v, sch = error.validator, error.schema
    if v in ("additionalProperties", "unevaluatedProperties"):
        allowed = sorted(sch.get("properties", {}))
        extra = [k for k in error.instance if k not in sch.get("properties", {})] if isinstance(error.instance, dict) else []
        key = extra[0] if extra else "?"
        hint = did_you_mean(key, allowed) or (f"allowed here: {', '.join(allowed)}" if allowed else None)
        return f"unknown key '{key}' in {where}", hint, path + (key,)
    if v == "dependentRequired":
        key, missing = next((k, missing) for k, deps in error.validator_value.items()
                            if k in error.instance and (missing := [d for d in deps if d not in error.instance]))
        return f"{key} needs a {one_of(missing)}, and there is none", f"add {one_of(missing)}, or remove {key}", path + (key,)
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"'{missing}' is required in {where}", None, path
    if v == "enum":
        choices = [repr(c) if not isinstance(c, str) else c for c in error.validator_value]
        hint = did_you_mean(str(error.instance), [str(c) for c in error.validator_value])
        if len(choices) > LISTED_CHOICES:  # e.g. every transform type: a few, and the count
            return (f"{where} must be one of {len(choices)} values ({', '.join(choices[:LISTED_CHOICES])}, ...), "
                    f"not {error.instance!r}"), hint, path
        return f"{where} must be {one_of(choices)}, not {error.instance!r}", hint, path
    if v == "const":
        return f"{where} must be {error.validator_value!r}, not {error.instance!r}", None, path
    if v == "pattern" and "examples" in sch:  # choices accepted in any case (compiler/validate/schema_gen.py)
        choices = [str(c) for c in sch["examples"]]
        hint = did_you_mean(str(error.instance).upper(), [c.upper() for c in choices])
        return f"{where} must be {one_of(choices)} (any case), not {error.instance!r}", hint, path
    if v == "pattern":
        label = sch.get("description", "").split(".")[0]
        return f"{where} {error.instance!r} does not match {error.validator_value}", label or None, path
    if v == "minLength" and error.instance == "":
        return f"{where} must not be empty", None, path
    if v == "type":
        return f"{where} must be of type {one_of(error.validator_value) if isinstance(error.validator_value, list) else error.validator_value}, not {type(error.instance).__name__}", None, path
    return f"{where}: {error.message}", None, path


def validate_document(doc: Document, diags: Collector) -> Document | None:
    """Settle `doc`'s scalars (scalars.py), then schema-check it; every error goes to `diags`. The settled
    document when it is well formed, else None."""
    before = len(diags.errors)
    doc, reported = settle(doc, diags, _slots())
    reported |= check_exclusive(doc, diags)
    seen = set()
    check = _check()
    errors = () if check.valid(check.root, doc.data) else _validator().iter_errors(doc.data)
    for error in errors:
        for leaf in _leaves(error):
            message, hint, path = _describe(leaf)
            if path in reported:
                continue
            hint = schema_hint(doc.data, path) or hint
            is_key = leaf.validator in ("additionalProperties", "unevaluatedProperties")
            loc = doc.smap.key(path) if is_key else doc.smap.at(path)
            if (loc, message) in seen:
                continue
            seen.add((loc, message))
            diags.error("E100", message, loc, hint)
    return doc if len(diags.errors) == before else None
