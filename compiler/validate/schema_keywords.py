"""jsonschema's keywords that the pipeline schema uses, as `validate.py` runs them to describe an invalid
document, with two changes:

- a message never renders the instance whole: jsonschema writes `f"{instance!r} is not of type ..."`, eagerly,
  for every error, and a 100 KB value repeated through aliases became gigabytes of messages. These keywords
  show the instance through `diagnostics.shown` (a cut repr that never builds the whole one);
- `pattern` has ECMA-262's `$` (`schema_check.ecma_regex`), as the compiled check does, so a trailing newline
  never passes `^[a-z][a-z0-9_]*$`.

Validity is exactly jsonschema's (tests/unit/test_schema_check.py holds the two checks to one answer).
"""

from __future__ import annotations

from jsonschema.exceptions import ValidationError

from ..diagnostics import shown
from .json_values import ecma_regex, equal, unique

_KIND = {"Length": "string", "Items": "array", "Properties": "object"}


def _type(validator, types, instance, schema):
    types = [types] if isinstance(types, str) else types
    if not any(validator.is_type(instance, t) for t in types):
        yield ValidationError(f"{shown(instance)} is not of type {', '.join(map(repr, types))}")


def _enum(validator, enums, instance, schema):
    if not any(equal(each, instance) for each in enums):
        yield ValidationError(f"{shown(instance)} is not one of {shown(enums)}")


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not ecma_regex(pattern).search(instance):
        yield ValidationError(f"{shown(instance)} does not match {pattern!r}")


def _unique_items(validator, wanted, instance, schema):
    if wanted and validator.is_type(instance, "array") and not unique(instance):
        yield ValidationError(f"{shown(instance)} has non-unique elements")


def _not(validator, not_schema, instance, schema):
    if validator.evolve(schema=not_schema).is_valid(instance):
        yield ValidationError(f"{shown(instance)} should not be valid under {shown(not_schema)}")


def _sized(keyword: str):
    """minLength, maxLength, minItems, maxItems, minProperties, maxProperties."""
    kind, at_least = _KIND[keyword[3:]], keyword.startswith("min")

    def check(validator, bound, instance, schema):
        if validator.is_type(instance, kind) and (len(instance) < bound if at_least else len(instance) > bound):
            yield ValidationError(f"{shown(instance)} is too {'short' if at_least else 'long'} (bound {bound})")

    return check


KEYWORDS = {
    "type": _type,
    "enum": _enum,
    "pattern": _pattern,
    "uniqueItems": _unique_items,
    "not": _not,
    **{k: _sized(k) for k in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")},
}
