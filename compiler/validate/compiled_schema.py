"""Whether a value is valid under a subschema of the pipeline schema, answered as jsonschema's Draft 2020-12
`is_valid` answers it, without jsonschema: each subschema is compiled once per process into a function.

`schema.py` asks this first. A valid document (the usual case) then costs no jsonschema at all: neither its
import and schema registry (most of a one-pipeline compile's validating) nor its walk of every branch. Only an
invalid document is handed to jsonschema, whose errors the diagnostics describe. The check covers the keywords
the schema uses, with jsonschema's own semantics (its types, where `bool` is not a number; its equality, where
`1` is not `true`; `format` as an annotation, as without a format checker); a subschema holding any other
keyword jsonschema knows is checked by jsonschema itself, so the answer never differs. Keywords jsonschema does
not know are ignored, as jsonschema ignores them. tests/unit/test_schema_check.py holds the two to the same
answer over every pipeline and error fixture of the tests and mutations of them.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from .json_values import ecma_regex, equal, unique

Check = Callable[[Any], bool]

# Draft 2020-12's keywords that assert something (jsonschema's validators for the draft); others are ignored.
ASSERTING = frozenset(
    {
        "$dynamicRef",
        "$ref",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "contains",
        "dependentRequired",
        "dependentSchemas",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "format",
        "if",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "multipleOf",
        "not",
        "oneOf",
        "pattern",
        "patternProperties",
        "prefixItems",
        "properties",
        "propertyNames",
        "required",
        "type",
        "unevaluatedItems",
        "unevaluatedProperties",
        "uniqueItems",
    }
)

_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "number": lambda x: isinstance(x, numbers.Number) and not isinstance(x, bool),
}


KEY_TEST_ANSWERS = 1024  # answers remembered per dispatching condition (a few dozen types and connectors)


def _is_key_test(schema: dict, keywords: set[str]) -> bool:
    """`{type: object (optional), properties: {key: S}, required: [key]}`: a test of one key's value."""
    properties, required = schema.get("properties"), schema.get("required")
    return (
        keywords - {"type"} == {"properties", "required"}
        and schema.get("type", "object") == "object"
        and isinstance(properties, dict)
        and len(properties) == 1
        and required == list(properties)
    )


class SchemaCheck:
    """Compiled checks of one schema's subschemas (`$ref`s resolve in `root`), built as they are first asked."""

    def __init__(self, root: dict, fallback: Callable[[Any], Check]):
        self.root = root
        self._fallback = fallback  # subschema -> jsonschema's is_valid for it
        self._compiled: dict[int, Check] = {}
        self._keep: list = []  # the subschemas compiled, so their ids stay theirs

    def valid(self, schema: Any, instance: Any) -> bool:
        return self.check(schema)(instance)

    def check(self, schema: Any) -> Check:
        key = id(schema)
        found = self._compiled.get(key)
        if found is None:
            self._keep.append(schema)
            self._compiled[key] = self._deferred(schema)  # a $ref cycle finds this while compiling
            found = self._compiled[key] = self._compile(schema)
        return found

    def _deferred(self, schema: Any) -> Check:
        return lambda instance: self._compiled[id(schema)](instance)

    def _compile(self, schema: Any) -> Check:
        if schema is True or schema is False:
            return (lambda _: True) if schema else (lambda _: False)
        if not isinstance(schema, dict):
            return self._fallback(schema)
        keywords = ASSERTING.intersection(schema)
        if keywords - _KEYWORDS.keys():
            return self._fallback(schema)
        if _is_key_test(schema, keywords):
            return self._key_test(schema)
        try:
            checks = [
                c
                for k in sorted(keywords, key=_ORDER.index)
                if (c := _KEYWORDS[k](self, schema[k], schema)) is not None
            ]
        except LookupError:  # a $ref outside this schema
            return self._fallback(schema)
        return _every(checks)

    def _key_test(self, schema: dict) -> Check:
        """A dispatcher's condition, `{type: object, properties: {key: S}, required: [key]}`: asked of every
        step for every transform type, so the answer for a text value of `key` is remembered."""
        ((key, sub),) = schema["properties"].items()
        typed = "type" in schema
        inner = self.check(sub)
        answers: dict[str, bool] = {}

        def key_test(x: Any) -> bool:
            if not isinstance(x, dict):
                return not typed  # without `type`, properties and required pass anything else
            if key not in x:
                return False
            value = x[key]
            if type(value) is not str:
                return inner(value)
            answer = answers.get(value)
            if answer is None:
                if len(answers) >= KEY_TEST_ANSWERS:
                    answers.clear()
                answer = answers[value] = inner(value)
            return answer

        return key_test

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise LookupError(ref)
        node: Any = self.root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node


def _every(checks: list[Check]) -> Check:
    """A check passed when each of `checks` passes (in order: the first failure answers)."""
    if not checks:
        return lambda _: True
    if len(checks) == 1:
        return checks[0]
    checks = tuple(checks)

    def every(instance: Any) -> bool:
        return all(check(instance) for check in checks)

    return every


def _type(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    names = [value] if isinstance(value, str) else list(value)
    tests = [_TYPES[name] for name in names]
    return tests[0] if len(tests) == 1 else (lambda x: any(t(x) for t in tests))


def _properties(sc: SchemaCheck, value: dict, schema: dict) -> Check:
    checks = {name: sc.check(sub) for name, sub in value.items()}
    named = tuple(checks.items())

    def properties(x: Any) -> bool:
        if isinstance(x, dict):
            if len(named) < len(x):
                for key, check in named:
                    if key in x and not check(x[key]):
                        return False
            else:
                for key, item in x.items():
                    check = checks.get(key)
                    if check is not None and not check(item):
                        return False
        return True

    return properties


def _additional(sc: SchemaCheck, value: Any, schema: dict) -> Check | None:
    named = schema.get("properties", {})
    patterns = "|".join(schema.get("patternProperties", {}))
    search = ecma_regex(patterns).search if patterns else None

    def extras(x: dict):
        return (k for k in x if k not in named and not (search and search(k)))

    if isinstance(value, dict):
        check = sc.check(value)
        return lambda x: not isinstance(x, dict) or all(check(x[k]) for k in extras(x))
    if not value:
        return lambda x: not isinstance(x, dict) or next(extras(x), None) is None
    return None


def _pattern_properties(sc: SchemaCheck, value: dict, schema: dict) -> Check:
    checks = [(ecma_regex(p).search, sc.check(sub)) for p, sub in value.items()]
    return lambda x: not isinstance(x, dict) or all(c(v) for search, c in checks for k, v in x.items() if search(k))


def _required(sc: SchemaCheck, value: list, schema: dict) -> Check:
    if len(value) == 1:
        (name,) = value
        return lambda x: not isinstance(x, dict) or name in x
    return lambda x: not isinstance(x, dict) or all(name in x for name in value)


def _dependent_required(sc: SchemaCheck, value: dict, schema: dict) -> Check:
    return lambda x: not isinstance(x, dict) or all(d in x for k, deps in value.items() if k in x for d in deps)


def _property_names(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    check = sc.check(value)
    return lambda x: not isinstance(x, dict) or all(check(key) for key in x)


def _items(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    check = sc.check(value)

    def items(x: Any) -> bool:
        if isinstance(x, list):
            for item in x:
                if not check(item):
                    return False
        return True

    return items


def _all_of(sc: SchemaCheck, value: list, schema: dict) -> Check:
    return _every([sc.check(sub) for sub in value])


def _any_of(sc: SchemaCheck, value: list, schema: dict) -> Check:
    checks = [sc.check(sub) for sub in value]
    return lambda x: any(c(x) for c in checks)


def _one_of(sc: SchemaCheck, value: list, schema: dict) -> Check:
    checks = [sc.check(sub) for sub in value]
    return lambda x: sum(1 for c in checks if c(x)) == 1


def _not(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    check = sc.check(value)
    return lambda x: not check(x)


def _if(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    condition = sc.check(value)
    then = sc.check(schema["then"]) if "then" in schema else None
    otherwise = sc.check(schema["else"]) if "else" in schema else None
    return lambda x: (then is None or then(x)) if condition(x) else (otherwise is None or otherwise(x))


def _ref(sc: SchemaCheck, value: str, schema: dict) -> Check:
    target = sc.resolve(value)
    return lambda x: sc.check(target)(x)


def _enum(sc: SchemaCheck, value: list, schema: dict) -> Check:
    if all(isinstance(v, str) for v in value):  # the usual enum: text compares as text, and only with text
        choices = frozenset(value)
        return lambda x: isinstance(x, str) and x in choices
    return lambda x: any(equal(v, x) for v in value)


def _const(sc: SchemaCheck, value: Any, schema: dict) -> Check:
    return lambda x: equal(x, value)


def _pattern(sc: SchemaCheck, value: str, schema: dict) -> Check:
    search = ecma_regex(value).search
    return lambda x: not isinstance(x, str) or search(x) is not None


def _number(test: Callable[[Any, Any], bool]) -> Callable[[SchemaCheck, Any, dict], Check]:
    return lambda sc, value, schema: lambda x: not _TYPES["number"](x) or test(x, value)


def _sized(kind: type, test: Callable[[int, int], bool]) -> Callable[[SchemaCheck, Any, dict], Check]:
    return lambda sc, value, schema: lambda x: not isinstance(x, kind) or test(len(x), value)


def _unique_items(sc: SchemaCheck, value: bool, schema: dict) -> Check | None:
    return (lambda x: not isinstance(x, list) or unique(x)) if value else None


_KEYWORDS: dict[str, Callable[[SchemaCheck, Any, dict], Check | None]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "required": _required,
    "minLength": _sized(str, lambda n, v: n >= v),
    "maxLength": _sized(str, lambda n, v: n <= v),
    "pattern": _pattern,
    "minimum": _number(lambda x, v: x >= v),
    "maximum": _number(lambda x, v: x <= v),
    "exclusiveMinimum": _number(lambda x, v: x > v),
    "exclusiveMaximum": _number(lambda x, v: x < v),
    "minItems": _sized(list, lambda n, v: n >= v),
    "maxItems": _sized(list, lambda n, v: n <= v),
    "minProperties": _sized(dict, lambda n, v: n >= v),
    "maxProperties": _sized(dict, lambda n, v: n <= v),
    "uniqueItems": _unique_items,
    "dependentRequired": _dependent_required,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional,
    "propertyNames": _property_names,
    "items": _items,
    "format": lambda sc, value, schema: None,  # an annotation: jsonschema asserts it only given a format checker
    "$ref": _ref,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
}
# Cheap tests first: a wrong type or a missing key answers before any subschema is walked.
_ORDER = [*_KEYWORDS]
