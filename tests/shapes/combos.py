"""The cross product: every recipe (shape_cases) x every sink connector and its formats (from the connectors'
registry), as pipeline YAML, with what each combination must do: be refused at compile time (which codes, at which
YAML node), or write what Kafka Connect / Flink / Spark document (connect_formats).

The refusal rules here are the formats' and Spark's own facts, written independently of pipec's checks:
- raw writes a STRING's UTF-8 or BYTES as they are (Flink's raw, Kafka's StringConverter/ByteArrayConverter), or a
  record of exactly one such field; anything else (a number, a date, a record of several fields) has no raw form;
- csv writes flat records: no arrays, maps or nested records (Flink's csv; Spark's CSV data source refuses ARRAY,
  MAP and STRUCT columns), and a record without fields has no line (Spark's to_csv gives null for it);
- debezium-json carries rows in before/after, so a primitive value cannot be written;
- upsert-kafka's primary-key names fields of a struct value;
- Spark's file formats refuse a schema with no columns or with a struct that has no fields (Spark 4.0:
  EMPTY_SCHEMA_NOT_SUPPORTED_FOR_DATASOURCE, for json, csv, parquet and avro alike);
- a files sink's csv cannot carry the envelope (its key and headers are nested), nor a single column: Spark's csv
  writer skips a line whose only column is null, so null values and tombstones would vanish.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import yaml
from connect_formats import PAYLOADS, SCHEMA_ID, json_bytes
from pipec.connectors import SINKS
from pipec.types.parser import parse_type
from pipec.types.sql import BYTES, ArrayType, MapType, SqlType, StructField, StructType
from shape_cases import COLUMNS, FULL, FULL_AT, PREDICATES, TYPES, Recipe, recipes_for

NESTED = (StructType, ArrayType, MapType)
Refusal = tuple[str, tuple]  # (code, YAML path of the node the error points at)


@dataclass(frozen=True)
class Combo:
    """One pipeline of the cross product."""

    index: int
    recipe: Recipe | None  # None: an upsert-kafka primary-key case (pk below)
    sink: str
    fmt: str | None = None  # the format under test: the key's for a key recipe at a kafka sink, else the value's
    envelope: bool = False
    pk: str | None = None  # upsert-kafka primary-key column

    @property
    def name(self) -> str:
        return f"combo_{self.index}"

    @property
    def label(self) -> str:
        what = self.recipe.id if self.recipe else f"primary-key-{self.pk}"
        return f"{what} -> {self.sink}" + (f" {self.fmt}" if self.fmt else "") + (" envelope" if self.envelope else "")

    @property
    def side(self) -> str:
        return self.recipe.side if self.recipe else "key"

    @property
    def offsets(self) -> tuple[int, ...]:
        """The given records this pipeline runs on (an upsert sink needs a primary key: the full record only)."""
        if self.sink == "upsert-kafka":
            return (FULL_AT,)
        return self.recipe.offsets


def all_combos() -> list[Combo]:
    combos: list[Combo] = []

    def add(**kw: Any) -> None:
        combos.append(Combo(len(combos), **kw))

    kafka, upsert = SINKS["kafka"], SINKS["upsert-kafka"]
    file_formats = SINKS["files"].formats
    for recipe in recipes_for("value"):
        for fmt in kafka.formats:
            add(recipe=recipe, sink="kafka", fmt=fmt)
        for fmt in upsert.formats:
            add(recipe=recipe, sink="upsert-kafka", fmt=fmt)
        for fmt in file_formats:
            for envelope in (False, True):
                add(recipe=recipe, sink="files", fmt=fmt, envelope=envelope)
        for envelope in (False, True):
            add(recipe=recipe, sink="console", envelope=envelope)
    for recipe in recipes_for("key"):
        for fmt in kafka.key_formats:
            add(recipe=recipe, sink="kafka", fmt=fmt)
        for fmt in file_formats:  # a files sink writes the key in its envelope only
            add(recipe=recipe, sink="files", fmt=fmt, envelope=True)
        add(recipe=recipe, sink="console", envelope=True)
    for column, type_ in COLUMNS:  # every type as upsert-kafka's primary key, in every key format
        if not isinstance(parse_type(type_), NESTED):
            for fmt in upsert.key_formats:
                add(recipe=None, sink="upsert-kafka", fmt=fmt, pk=column)
    return combos


# ---------------------------------------------------------------- YAML


def pipeline(combo: Combo) -> dict:
    source: dict[str, Any] = {
        "connector": "kafka",
        "topics": ["orders"],
        "properties": {"bootstrap.servers": "localhost:9092"},
    }
    columns = combo.recipe.columns if combo.recipe else (combo.pk,)
    if combo.recipe is not None and combo.recipe.side == "key":
        source["key"] = {"format": "json", "fields": list(columns)}
    source["value"] = {"format": "json"}
    source["columns"] = [{"name": n, "type": TYPES[n]} for n in columns]
    doc: dict[str, Any] = {"version": 1, "name": combo.name, "mode": "batch", "source": source}
    steps = list(combo.recipe.steps) if combo.recipe else []
    if any(s.get("predicate") for s in steps):
        doc["predicates"] = PREDICATES
    if steps:
        doc["transforms"] = steps
    doc["sink"] = _sink(combo)
    return doc


def _sink(combo: Combo) -> dict:
    if combo.sink == "files":
        return {
            "connector": "files",
            "path": "/tmp/pipec-cross-product-unused",
            "format": combo.fmt,
            "envelope": combo.envelope,
        }
    if combo.sink == "console":
        return {"connector": "console", "envelope": combo.envelope}
    key_fmt, value_fmt = (combo.fmt, "json") if combo.side == "key" else ("json", combo.fmt)
    sink: dict[str, Any] = {"connector": combo.sink, "topic": "out"}
    if combo.sink == "upsert-kafka":
        sink["primary-key"] = [combo.pk or _first_field(combo.recipe)]
    key: dict[str, Any] = {"format": key_fmt}
    if key_fmt == "avro-confluent":
        key["schema-id"] = SCHEMA_ID
    value: dict[str, Any] = {"format": value_fmt}
    if value_fmt == "avro-confluent":
        value["schema-id"] = SCHEMA_ID
    if combo.sink == "upsert-kafka" or combo.side == "key":
        sink["key"] = key
    sink["value"] = value
    return sink


def _first_field(recipe: Recipe) -> str:
    t = recipe.sql_type
    return t.fields[0].name if isinstance(t, StructType) and t.fields else "id"


# ---------------------------------------------------------------- refusals


def _text_or_bytes(t: SqlType) -> bool:
    return t.is_string or t.is_binary


def _raw_problem(t: SqlType | None) -> bool:
    if t is None:  # a null is written as null in every format
        return False
    if isinstance(t, StructType):
        return len(t.fields) != 1 or not _text_or_bytes(t.fields[0].type)
    return not _text_or_bytes(t)


def _csv_problem(t: SqlType) -> bool:
    if isinstance(t, (ArrayType, MapType)):
        return True
    if isinstance(t, StructType):
        return not t.fields or any(isinstance(f.type, NESTED) for f in t.fields)
    return False


PAYLOAD_RULES = {  # format -> (code, refuses(type))
    "raw": ("E527", _raw_problem),
    "csv": ("E528", _csv_problem),
    "debezium-json": ("E531", lambda t: not isinstance(t, StructType)),
}

KEY_FIELD_RULES = {  # key format -> (code, refuses(type of a field named in key.fields or primary-key))
    "raw": ("E533", lambda t: not _text_or_bytes(t)),
    "csv": ("E532", lambda t: isinstance(t, NESTED)),
}


def _has_empty_struct(t: SqlType | None) -> bool:
    if isinstance(t, StructType):
        return not t.fields or any(_has_empty_struct(f.type) for f in t.fields)
    if isinstance(t, ArrayType):
        return _has_empty_struct(t.element)
    if isinstance(t, MapType):
        return _has_empty_struct(t.value)
    return False


def refusals(combo: Combo) -> set[Refusal]:
    """The compile errors the combination must get: none when it must compile."""
    out: set[Refusal] = set()
    if combo.recipe is None:  # an upsert primary key of one column, in a key format: refused at the column's item
        code, refuses = KEY_FIELD_RULES.get(combo.fmt, (None, lambda t: False))
        return {(code, ("sink", "primary-key"))} if refuses(parse_type(TYPES[combo.pk])) else set()
    t = combo.recipe.sql_type
    if combo.sink in ("kafka", "upsert-kafka"):
        if combo.sink == "upsert-kafka" and not isinstance(t, StructType):
            return {("E541", ("sink", "primary-key"))}
        if combo.sink == "upsert-kafka" and not t.fields:
            out.add(("E522", ("sink", "primary-key")))  # the primary-key field is not in the value
        where = ("sink", "key" if combo.side == "key" else "value", "format")
        code, refuses = PAYLOAD_RULES.get(combo.fmt, (None, lambda t: False))
        if combo.fmt != "none" and refuses(t):
            out.add((code, where))
        return out
    if combo.sink == "files":
        key_type = t if combo.side == "key" else None
        value_type = combo.recipe.source_type if combo.side == "key" else t
        if isinstance(value_type, StructType):
            columns = list(value_type.fields)
        else:  # a primitive, or an always-null value (a BYTES column of nulls), is the one column `value`
            columns = [StructField("value", value_type if value_type is not None else BYTES)]
        at = ("sink", "format")
        if combo.fmt == "csv" and (combo.envelope or any(isinstance(f.type, NESTED) for f in columns)):
            out.add(("E502", at))
        if not columns or any(_has_empty_struct(f.type) for f in columns) or _has_empty_struct(key_type):
            out.add(("E503", at))
        if combo.fmt == "csv" and len(columns) == 1 and not combo.envelope:  # Spark skips a line of one null column
            out.add(("E503", at))
    return out


# ---------------------------------------------------------------- what is written


def kafka_expected(combo: Combo, offset: int) -> tuple[bytes | None, bytes | None]:
    """(key, value) bytes Kafka Connect / Flink write for the input at `offset`."""
    if combo.recipe is None:
        record_type = StructType((StructField(combo.pk, parse_type(TYPES[combo.pk])),))
        record = {combo.pk: FULL[combo.pk]}
        return PAYLOADS[combo.fmt](record, record_type), json_bytes(record, record_type)
    out, t = combo.recipe.outputs[offset], combo.recipe.sql_type
    if combo.side == "key":
        return (None if combo.fmt == "none" else PAYLOADS[combo.fmt](out, t)), None
    if combo.sink == "upsert-kafka":
        pk = t.fields[0]
        key = json_bytes({pk.name: out[pk.name]}, StructType((pk,)))
        return key, PAYLOADS[combo.fmt](out, t)
    if combo.fmt == "debezium-json":
        return None, (None if out is None else b'{"before":null,"after":' + json_bytes(out, t) + b',"op":"c"}')
    return None, PAYLOADS[combo.fmt](out, t)


def row_columns(combo: Combo, offset: int) -> dict[str, Any]:
    """The columns a files or console sink writes for the input at `offset` (envelope: key and value columns only)."""
    recipe = combo.recipe
    out, t = recipe.outputs[offset], recipe.sql_type
    if recipe.side == "key":
        return {**value_columns(recipe.source_record(offset), recipe.source_type), "key": out}
    columns = value_columns(out, t)
    return {**columns, "key": None} if combo.envelope else columns


def value_columns(value: Any, t: SqlType) -> dict[str, Any]:
    """A struct's fields as columns (all null for a tombstone), a primitive as the column `value`."""
    if isinstance(t, StructType):
        return {f.name: (None if value is None else value[f.name]) for f in t.fields}
    return {"value": value}


def column_types(combo: Combo) -> dict[str, SqlType | None]:
    recipe = combo.recipe
    if recipe.side == "key":
        return {**{f.name: f.type for f in recipe.source_type.fields}, "key": recipe.sql_type}
    t = recipe.sql_type
    columns = {f.name: f.type for f in t.fields} if isinstance(t, StructType) else {"value": t}
    return {**columns, "key": None} if combo.envelope else columns


def yaml_text(combo: Combo) -> str:
    return yaml.safe_dump(pipeline(combo), sort_keys=False, allow_unicode=True, width=1000)


# ---------------------------------------------------------------- which combinations run on Spark

# The compile-time test takes every combination; Spark runs those that show something the others do not, as each
# job costs Spark's planning and code generation: every value recipe (each family's shapes) through a kafka json
# sink and the first key recipe of each family; every column type, and records flat, whole, nested, of one field
# and empty, through every other value format; a few key shapes through every key format; upsert-kafka keys of
# every type as json and of a string, bytes and int in every key format; and files and console sinks for records
# holding every type, a primitive, an always-null value, and a key in the envelope.
ENCODING = {
    *(f"ExtractField-{n}" for n, _ in COLUMNS),
    "SetSchemaMetadata-whole",
    "ReplaceField-all_primitives",
    "ReplaceField-one_string",
    "ReplaceField-one_bytes",
    "ReplaceField-exclude_every_field",
    "HoistField-wrapped",
    "Drop-nullify",
}
CONFLUENT = {"ExtractField-i64", "ReplaceField-include", "ReplaceField-exclude_every_field"}  # avro plus a header
KEY_ENCODING = {
    "ExtractField-s",
    "ExtractField-i64",
    "ReplaceField-one_string",
    "ReplaceField-exclude_every_field",
    "Drop-nullify",
}
UPSERT_VALUES = {"ReplaceField-include", "ReplaceField-one_string"}
UPSERT_KEYS = {"s", "by", "i32"}  # primary keys written in every key format (every type is written as json)
FILES = {
    "value-ReplaceField-all_primitives",
    "value-SetSchemaMetadata-whole",
    "value-ExtractField-by",
    "key-ValueToKey-v1_struct",
    "value-Drop-nullify",
}


def runs_on_spark(combo: Combo) -> bool:
    recipe = combo.recipe
    if recipe is None:
        return combo.fmt == "json" or combo.pk in UPSERT_KEYS
    name = f"{recipe.family}-{recipe.label}"
    if combo.sink in ("files", "console"):
        return recipe.id in FILES
    if combo.sink == "upsert-kafka":
        return name in UPSERT_VALUES
    if combo.fmt == "json":
        return recipe.side == "value" or recipe.id == _first_of_family(recipe).id
    if recipe.side == "key":
        return name in KEY_ENCODING
    return name in (CONFLUENT if combo.fmt == "avro-confluent" else ENCODING)


@functools.cache
def _firsts() -> dict[str, Recipe]:
    out: dict[str, Recipe] = {}
    for recipe in recipes_for("key"):
        out.setdefault(recipe.family, recipe)
    return out


def _first_of_family(recipe: Recipe) -> Recipe:
    return _firsts()[recipe.family]
