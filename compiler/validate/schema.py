"""Check a loaded document against `schemas/pipeline.schema.json`, turning each error into a Diagnostic."""

from __future__ import annotations

import json
from functools import lru_cache

from ..connectors import schema_hint
from ..diagnostics import Collector
from ..load.document import Document
from ..package_data import SCHEMA_PATH
from .compiled_schema import SchemaCheck
from .exclusive_keys import check_exclusive
from .scalars import Slots, settle
from .schema_messages import describe, leaves


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator, validators  # imported lazily: validation is the only user

    from .dispatch import all_of
    from .schema_keywords import KEYWORDS

    return validators.extend(Draft202012Validator, {**KEYWORDS, "allOf": all_of})(schema())


@lru_cache(maxsize=1)
def _check() -> SchemaCheck:
    """The schema's compiled validity check (compiled_schema.py): jsonschema only for what it cannot compile."""
    return SchemaCheck(schema(), lambda subschema: _validator().evolve(schema=subschema).is_valid)


@lru_cache(maxsize=1)
def _slots() -> Slots:
    return Slots(_check())


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
        for leaf in leaves(error):
            message, hint, path = describe(leaf, _slots(), doc.data)
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
