"""A connector's config record: one frozen dataclass per source or sink connector whose fields are the keys its
block of a pipeline file takes, each with its YAML key, default, doc and JSON Schema kind (as a transform's
`ConfigKey`s are). From the records come the connector blocks of `schemas/pipeline.schema.json`
(`python -m pipec.validate.schema_gen --write`), the keys of `docs/reference/connectors.md`
(`python -m pipec.tools.reference --write`) and the values the model holds (`Source.config`, `Sink.config`).

    @dataclass(frozen=True, slots=True)
    class FilesSinkConfig(SinkConfig):
        DOC: ClassVar[str] = "Writes files (exactly once through the checkpoint)."
        path: Text | None = key("path", "Required: the output folder.", STRING, read=text, required=True)
        ...

A key under a nested block (`key.format`) is a field whose `path` has two parts; the block's own description is in
the record's `GROUPS`. Keys the Schema Registry owns (`url`, `subject`, ...) follow `schema-id` in the generated
schema and are not fields: the model holds them as `registries`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any

from ..envrefs import Text

ENV = " " + "May contain `${env:NAME}` or `${env:NAME:-default}` references, read when the job starts."


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One YAML key of a connector's block, as its record's field declares it."""

    path: tuple[str, ...]  # ("topic-pattern",) or ("key", "format")
    doc: str
    kind: dict  # the JSON Schema keywords of its value (type, enum, $ref, pattern, ...)
    read: Callable[[Any], Any] | None  # raw YAML -> the field's value (None: as written; resolved: given by resolve)
    required: bool = False
    examples: tuple = ()
    resolved: bool = False  # the value is built by resolve (columns), not read from the YAML as it is

    @property
    def name(self) -> str:
        return ".".join(self.path)


def key(
    path: str,
    doc: str,
    kind: dict,
    default: Any = None,
    *,
    read: Callable[[Any], Any] | None = None,
    required: bool = False,
    examples: tuple = (),
    resolved: bool = False,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A config record's field for the YAML key at `path` (dots separate nested blocks: `key.format`)."""
    spec = KeySpec(
        tuple(path.split("/")) if "/" in path else _split(path), doc, kind, read, required, examples, resolved
    )
    if default_factory is not None:
        return field(default_factory=default_factory, metadata={"key": spec})
    return field(default=default, metadata={"key": spec})


def _split(path: str) -> tuple[str, ...]:
    """`key.format` -> (key, format); a group is only the first dot (`value.debezium-json.schema-include`)."""
    head, _, rest = path.partition(".")
    return (head, rest) if rest and head in ("key", "value") else (path,)


class PrimaryKeyed:
    """A record whose key columns are its `primary-key` (upsert-kafka, tables): its `key_fields` reads them."""

    __slots__ = ()

    @property
    def key_fields(self) -> tuple[str, ...]:
        return self.primary_key  # type: ignore[attr-defined]


def keys(record: type) -> Iterator[tuple[Field, KeySpec]]:
    """The record's fields that are YAML keys, with their specs, in order."""
    for f in fields(record):
        spec = f.metadata.get("key")
        if spec is not None:
            yield f, spec


def default_of(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def shown_default(f: Field) -> Any:
    """The default the schema and docs show: a boolean, a number or a word (not None, nor an empty value)."""
    value = default_of(f)
    if f.metadata["key"].required:
        return MISSING
    if isinstance(value, bool | int) or (isinstance(value, str) and value):
        return value
    return MISSING


def read_config(record: type, raw: dict, **given: Any) -> Any:
    """The record of a connector block as written (`raw`, validated): each key's value read by its field, or its
    default where the block does not set it; `given` wins (values resolve builds, such as the columns)."""
    values = {}
    for f, spec in keys(record):
        if f.name in given:
            values[f.name] = given[f.name]
            continue
        found: Any = raw
        for part in spec.path:
            found = found.get(part, MISSING) if isinstance(found, dict) else MISSING
        if found is not MISSING and not spec.resolved:
            values[f.name] = spec.read(found) if spec.read else found
    return record(**values)


# Converters from the YAML as validated to the model's values.
def text(value: Any) -> Text | None:
    return None if value is None else Text(str(value))


def texts(value: Any) -> tuple[Text, ...]:
    """One string or a list of them (`topics`)."""
    return tuple(Text(str(t)) for t in ([value] if isinstance(value, str) else value or ()))


def text_pairs(value: Any) -> tuple[tuple[str, Text], ...]:
    """A mapping whose values may hold ${env:...} references (`properties`, `catalog`)."""
    return tuple((k, Text(str(v))) for k, v in (value or {}).items())


def option_pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """Spark options as text (true, not True)."""
    return tuple((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (value or {}).items())


def names(value: Any) -> tuple[str, ...]:
    return tuple(value or ())


def pairs(value: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((value or {}).items())


def integer(value: Any) -> int | None:
    return None if value is None else int(value)


# JSON Schema kinds the records share (the named ones are hand-written `$defs` of the schema).
def ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


STRING = {"type": "string", "minLength": 1}
TOPIC = {"type": "string", "minLength": 1, "maxLength": 249}
BOOLEAN = {"type": "boolean"}
TABLE_NAME = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*){0,2}$"}


def one_of(*choices: str) -> dict:
    return {"enum": list(choices)}
