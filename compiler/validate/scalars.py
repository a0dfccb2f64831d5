"""How each YAML scalar of a pipeline becomes its value: one pass over the document, led by the JSON Schema.

Kafka Connect settings are strings, and YAML 1.1 (PyYAML's dialect) reads many unquoted words as something else:
`0123` as 83, `0x1F` as 31, `1.50` as 1.5, `off` as false. So:

- A plain (unquoted) scalar in a slot whose schema takes a string is its source text, exactly: `static.value: 0123`
  is "0123" and `name: off` is the column `off`. Only the words YAML 1.1 and YAML 1.2 both read as the same
  boolean, null or decimal integer keep that value, and only where the slot names that type (`metadata: true`).
- A boolean slot refuses YAML 1.1's boolean-like words (yes, no, on, off, y, n): it takes true or false.
- Anywhere else a value keeps its YAML type (test records' keys and values, integer settings); a plain scalar
  that YAML 1.1 and YAML 1.2 (and JSON) read differently is refused there, naming both readings.
- Outside `tests:`, `${env:...}` is checked where SPEC section 3 allows it and refused elsewhere; in every other
  string `$${` is a literal `${`.

Mapping keys are always text (the loader keeps them so).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from ..connectors.schema_registry import OPTIONS as REGISTRY_OPTIONS
from ..diagnostics import Collector, one_of
from ..envrefs import check_env_refs, mentions_env
from ..load.document import Document
from .compiled_schema import SchemaCheck

# Kafka and Spark properties: strings to both, so a plain scalar there is always its text (`TRUE` stays `TRUE`).
PROPERTY_PATHS = (
    ("source", "properties", "*"),
    ("sink", "properties", "*"),
    ("errors", "deadletterqueue.properties", "*"),
)
# Where `${env:...}` may appear (SPEC section 3); '*' matches any one key or index.
ENV_PATHS = (
    *PROPERTY_PATHS,
    ("source", "topics"),
    ("source", "topics", "*"),
    ("source", "topic-pattern"),
    ("source", "topic"),
    ("sink", "topic"),
    ("source", "path"),
    ("sink", "path"),
    ("sink", "checkpoint"),
    ("sink", "catalog", "warehouse"),
    ("sink", "catalog", "uri"),
    ("source", "catalog", "warehouse"),
    ("source", "catalog", "uri"),
    ("source", "startup", "timestamp-millis"),
    ("source", "startup", "specific-offsets"),
    ("errors", "deadletterqueue.topic.name"),
    ("errors", "deadletterqueue.path"),
    *(
        (block, side, option)
        for block in ("source", "sink")
        for side in ("key", "value")
        for option in REGISTRY_OPTIONS
    ),
)
# Characters of one setting outside test data and descriptions: a setting lands in the generated job, where
# black measures each non-ASCII character of every statement holding it (100,000 took 0.8 s in two statements).
SETTING_AT_MOST = 10_000
BOOLEAN_LIKE = frozenset({"yes", "no", "on", "off", "y", "n"})  # YAML 1.1 words for true and false, any case

# Words YAML 1.1 and YAML 1.2 read alike as a non-string value (JSON's own spellings and their case variants).
_AGREED = (
    (re.compile(r"~|null|Null|NULL|"), lambda t: None),
    (re.compile(r"true|True|TRUE|false|False|FALSE"), lambda t: t[0] in "tT"),
    (re.compile(r"[-+]?(0|[1-9][0-9]*)"), int),
)
# YAML 1.2's core schema (JSON's values), to tell where YAML 1.1 (PyYAML) reads a plain scalar otherwise.
_YAML12 = _AGREED + (
    (re.compile(r"[-+]?[0-9]+"), lambda t: int(t, 10)),
    (re.compile(r"0o[0-7]+"), lambda t: int(t[2:], 8)),
    (re.compile(r"0x[0-9a-fA-F]+"), lambda t: int(t[2:], 16)),
    (re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"), float),
    (re.compile(r"[-+]?\.(inf|Inf|INF)"), lambda t: -math.inf if t[0] == "-" else math.inf),
    (re.compile(r"\.(nan|NaN|NAN)"), lambda t: math.nan),
)
_JSON_TYPE = {type(None): "null", bool: "boolean", int: "integer"}
_NOT_AGREED = object()


def _read(text: str, table) -> Any:
    for pattern, value in table:
        if pattern.fullmatch(text):
            return value(text)
    return _NOT_AGREED if table is _AGREED else text


def _same(a: Any, b: Any) -> bool:
    both_nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    return type(a) is type(b) and (a == b or both_nan)


def spelling(value: Any) -> str:
    """How to write `value` so that every YAML reads it alike."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "' (quoted, for the text)"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
    return repr(value)


def _reading(value: Any) -> str:
    return f"the text '{value}'" if isinstance(value, str) else spelling(value)


def _matches(path: tuple, patterns: tuple[tuple, ...]) -> bool:
    return any(len(p) == len(path) and all(a == "*" or a == b for a, b in zip(p, path)) for p in patterns)


def env_allowed(path: tuple) -> bool:
    return _matches(path, ENV_PATHS)


class _If:
    """An `if` met while expanding a schema: which of `then` and `otherwise` applies depends on the instance."""

    __slots__ = ("condition", "otherwise", "then")

    def __init__(self, condition: Any, then: Any, otherwise: Any):
        self.condition, self.then, self.otherwise = condition, then, otherwise


_NO_SCHEMA: dict = {}  # what a missing `properties` entry or `items` stands for: one object, so its id is stable
REMEMBERED = 8192  # answers kept per kind (a mapping's keys can be any text: property names, test records)


class Slots:
    """The schema's view of a position: the subschemas that apply there (`$ref`, `allOf`, `if` followed), with
    the schema's compiled check (compiled_schema.py) deciding each `if`. One per process: it remembers, for each
    subschema, what it always brings along and which types it names, and for each list of subschemas those
    of a key and the types a scalar may take (all keyed by ids: every subschema is part of the one schema,
    alive as long as it). The lists it returns are shared: read, never changed."""

    def __init__(self, check: SchemaCheck):
        self.check, self.root = check, check.root
        self._plans: dict[int, tuple] = {}
        self._types: dict[int, frozenset | None] = {}
        self._children: dict[tuple, list] = {}
        self._scalar_types: dict[tuple, set[str] | None] = {}

    def valid(self, schema: dict, instance: Any) -> bool:
        return self.check.valid(schema, instance)

    def expand(self, schemas: list, instance: Any = None, conditions: bool = True) -> list[dict]:
        """Every schema that applies, depth first; `if` is decided on `instance`, or skipped without `conditions`
        (a scalar's conditions depend on which reading of it is taken)."""
        out: list[dict] = []
        for schema in schemas:
            self._add(out, schema, instance, conditions)
        return out

    def _add(self, out: list[dict], schema: Any, instance: Any, conditions: bool) -> None:
        for entry in self._plan(schema):
            if type(entry) is not _If:
                out.append(entry)
            elif conditions:
                self._add(
                    out, entry.then if self.valid(entry.condition, instance) else entry.otherwise, instance, conditions
                )

    def _plan(self, schema: Any) -> tuple:
        """`schema` and what it always brings ($ref, allOf), depth first, with an _If where an `if` decides."""
        plan = self._plans.get(id(schema))
        if plan is None:
            found: list = []
            if isinstance(schema, dict):
                found.append(schema)
                if "$ref" in schema:
                    node = self.root
                    for part in schema["$ref"].removeprefix("#/").split("/"):
                        node = node[part]
                    found += self._plan(node)
                for sub in schema.get("allOf", ()):
                    found += self._plan(sub)
                if "if" in schema:
                    found.append(_If(schema["if"], schema.get("then"), schema.get("else")))
            plan = self._plans[id(schema)] = tuple(found)
        return plan

    def child(self, schemas: list[dict], key: str) -> list:
        """The schemas of a mapping's value at `key`; [] where a schema forbids the key (validation says so).
        Remembered by the schemas' ids and the key: the same lists come back for every step of a type."""
        memo = (tuple(map(id, schemas)), key)
        found = self._children.get(memo)
        if found is None:
            if len(self._children) >= REMEMBERED:
                self._children.clear()
            found = self._children[memo] = self._child(schemas, key)
        return found

    @staticmethod
    def _child(schemas: list[dict], key: str) -> list:
        out = []
        for schema in schemas:
            properties = schema.get("properties")
            sub = properties.get(key, _NO_SCHEMA) if properties else _NO_SCHEMA
            if sub is _NO_SCHEMA:
                sub = schema.get("additionalProperties", _NO_SCHEMA)
            if sub is False:
                return []
            out.append(sub)
        return out

    @staticmethod
    def items(schemas: list[dict]) -> list:
        return [schema.get("items", _NO_SCHEMA) for schema in schemas]

    def scalar_types(self, schemas: list[dict]) -> set[str] | None:
        """`types` of every schema that applies whatever the value (`expand` without conditions), remembered
        by the schemas' ids: asked for every plain scalar."""
        memo = tuple(map(id, schemas))
        if memo not in self._scalar_types:
            if len(self._scalar_types) >= REMEMBERED:
                self._scalar_types.clear()
            self._scalar_types[memo] = self.types(self.expand(schemas, conditions=False))
        return self._scalar_types[memo]

    def types(self, schemas: list[dict]) -> set[str] | None:
        """The JSON types every schema here allows (None: no schema constrains the type)."""
        allowed: set[str] | None = None
        for schema in schemas:
            key = id(schema)
            if key not in self._types:
                self._types[key] = _named_types(schema)
            named = self._types[key]
            if named is not None:
                allowed = set(named) if allowed is None else allowed & named
        return allowed


def _named_types(schema: dict) -> frozenset | None:
    """The JSON types `schema` names: its `type`, else those of its `enum` or `const` values."""
    named = schema.get("type")
    if named is None and ("enum" in schema or "const" in schema):
        named = sorted(
            {
                _JSON_TYPE.get(type(v), "string" if isinstance(v, str) else "number")
                for v in schema.get("enum", [schema.get("const")])
            }
        )
    if named is None:
        return None
    return frozenset([named] if isinstance(named, str) else named)


class _Settler:
    """One document's pass; `reported` holds the paths it refused, so schema validation says nothing more there."""

    def __init__(self, doc: Document, diags: Collector, slots: Slots):
        self.doc, self.diags, self.slots = doc, diags, slots
        self.reported: set[tuple] = set()

    def error(self, code: str, message: str, path: tuple, hint: str | None = None) -> None:
        self.diags.error(code, message, self.doc.smap.at(path), hint)
        self.reported.add(path)

    def value(self, value: Any, schemas: list, path: tuple) -> Any:
        if isinstance(value, dict):
            schemas = self.slots.expand(schemas, value)
            for key in value:
                self.length(key, path + (key,), "key")
            return {k: self.value(v, self.slots.child(schemas, k), path + (k,)) for k, v in value.items()}
        if isinstance(value, list):
            items = self.slots.items(self.slots.expand(schemas, value))
            return [self.value(v, items, path + (i,)) for i, v in enumerate(value)]
        text = self.doc.smap.plain.get(path)
        if text is not None and _matches(path, PROPERTY_PATHS):
            value = text
        elif text is not None and schemas:
            value = self.plain(value, text, schemas, path)
        if isinstance(value, str) and "${" in value and path[:1] != ("tests",) and schemas:
            value = self.env(value, path)  # not under an unknown key (no schemas): that key is the error
        if isinstance(value, str) and path[-1:] != ("description",):
            self.length(value, path, "value")
        return value

    def length(self, text: str, path: tuple, what: str) -> None:
        """A setting (outside test data and descriptions) longer than SETTING_AT_MOST: an error at it."""
        if len(text) > SETTING_AT_MOST and path[:1] != ("tests",) and path not in self.reported:
            self.error(
                "E100",
                f"the {what} at {'.'.join(map(str, path))} is {len(text):,} characters long; pipec takes "
                f"settings of at most {SETTING_AT_MOST:,}",
                path,
                "shorten it; a long property, path or topic can be read when the job starts, through ${env:NAME}",
            )

    def plain(self, value: Any, text: str, schemas: list[dict], path: tuple) -> Any:
        """The value of an unquoted scalar: YAML 1.1 read `text` as `value`."""
        types = self.slots.scalar_types(schemas)
        where = ".".join(map(str, path))
        if types is not None:
            agreed = _read(text, _AGREED)
            if agreed is not _NOT_AGREED and _JSON_TYPE[type(agreed)] in types:
                return agreed
            if (
                "boolean" in types
                and text.lower() in BOOLEAN_LIKE
                and not ("string" in types and self.accepts(schemas, text))
            ):
                self.error(
                    "E009",
                    f"{where} takes true or false; YAML reads '{text}' as a boolean-like word",
                    path,
                    "write true or false",
                )
                return value
            if "string" in types:
                return text
        yaml12 = _read(text, _YAML12)
        if not _same(value, yaml12):
            options = [spelling(v) for v in dict.fromkeys([value, yaml12], None) if not isinstance(v, str)]
            if types is None or "string" in types:
                options.append(spelling(text))
            self.error(
                "E009",
                f"YAML 1.1 reads {text} as {_reading(value)}, YAML 1.2 as {_reading(yaml12)}",
                path,
                f"write {one_of(options)}: every YAML reads that alike",
            )
        return value

    def accepts(self, schemas: list[dict], instance: Any) -> bool:
        return all(self.slots.valid(s, instance) for s in schemas)

    def env(self, value: str, path: tuple) -> str:
        """`${env:...}` checked where allowed; elsewhere refused, and `$${` read as a literal `${`."""
        if env_allowed(path):
            problem = check_env_refs(value)
            if problem:
                self.error("E105", problem, path, "write ${env:NAME} or ${env:NAME:-default}; $${ for a literal ${")
            return value
        if mentions_env(value):
            self.error(
                "E106",
                f"{'.'.join(map(str, path))} cannot use ${{env:...}}: the compiler must check this value",
                path,
                "environment references are allowed in properties, topics, paths, checkpoint, startup and dead-letter "
                "settings; write $${ for a literal ${",
            )
            return value
        return value.replace("$${", "${")


def settle(doc: Document, diags: Collector, slots: Slots) -> tuple[Document, frozenset]:
    """`doc` with each scalar settled as the module docstring says, and the paths already reported."""
    settler = _Settler(doc, diags, slots)
    data = settler.value(doc.data, [slots.root], ())
    return replace(doc, data=data), frozenset(settler.reported)
