"""Columns for an imported connector. Connect configs declare no schema, so columns come from a sample record
(`--value-sample`/`--key-sample`: a JsonConverter envelope with its Connect schema gives exact types, plain JSON
gives inferred ones) or, without one, from the field names the transforms' configs mention (typed with a TODO)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..transforms import REGISTRY
from ..transforms.base import READS, named
from ..transforms.field_paths import parse_syntax_version
from ..types.sql import quote_name

CONNECT_TYPES = {
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "int32": "INT",
    "int64": "BIGINT",
    "float32": "FLOAT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "float64": "DOUBLE",
    "boolean": "BOOLEAN",
    "string": "STRING",
    "bytes": "BYTES",
}
LOGICAL_TYPES = {
    "org.apache.kafka.connect.data.Timestamp": "TIMESTAMP_LTZ(3)",
    "org.apache.kafka.connect.data.Date": "DATE",
    "org.apache.kafka.connect.data.Time": "TIMESTAMP_LTZ(3)",
}


class SampleError(Exception):
    pass


def connect_schema_type(schema: dict) -> str:
    """A Connect schema (as JsonConverter writes it) as a pipec column type."""
    name = schema.get("name")
    if name in LOGICAL_TYPES:
        return LOGICAL_TYPES[name]
    if name == "org.apache.kafka.connect.data.Decimal":
        params = schema.get("parameters") or {}
        return f"DECIMAL({params.get('connect.decimal.precision', 38)}, {params.get('scale', 0)})"
    kind = schema.get("type")
    if kind == "struct":
        return (
            "STRUCT<"
            + ", ".join(f"{quote_name(f['field'])} {connect_schema_type(f)}" for f in schema.get("fields", []))
            + ">"
        )
    if kind == "array":
        return f"ARRAY<{connect_schema_type(schema['items'])}>"
    if kind == "map":
        return f"MAP<{connect_schema_type(schema['keys'])}, {connect_schema_type(schema['values'])}>"
    if kind in CONNECT_TYPES:
        return CONNECT_TYPES[kind]
    raise SampleError(f"unknown Connect schema type {kind!r}")


def json_type(value) -> str:
    """The type a plain JSON value suggests (numbers: BIGINT or DOUBLE; null: STRING)."""
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, dict):
        return (
            "STRUCT<" + ", ".join(f"{quote_name(k)} {json_type(v)}" for k, v in value.items()) + ">"
            if value
            else "STRING"
        )
    if isinstance(value, list):
        return f"ARRAY<{json_type(value[0]) if value else 'STRING'}>"
    return "STRING"


@dataclass(frozen=True, slots=True)
class Sample:
    """A sample record's columns; `primitive`: the record is one value (its single column is named `value`)."""

    columns: list[tuple[str, str]]
    primitive: bool = False


def read_sample(path: Path) -> Sample:
    """The columns of a sample record's top level (typed from its Connect schema when it is a JsonConverter
    envelope), or a primitive as one column."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SampleError(f"{path}: cannot read a JSON sample ({exc})") from exc
    if isinstance(data, dict) and set(data) == {"schema", "payload"} and isinstance(data["schema"], dict):
        schema = data["schema"]
        if schema.get("type") == "struct":
            return Sample([(f["field"], connect_schema_type(f)) for f in schema.get("fields", [])])
        return Sample([("value", connect_schema_type(schema))], True)
    if isinstance(data, dict):
        return Sample([(k, json_type(v)) for k, v in data.items()])
    return Sample([("value", json_type(data))], True)


def columns_from_steps(steps: list[tuple[str, str | None, dict[str, str]]], side: str) -> list[tuple[str, str]]:
    """The top-level fields of `side` the chain's transforms read (the config keys that name them say so:
    `ConfigKey.names`), in order, each typed as that transform most likely reads it."""
    out: dict[str, str] = {}
    for kind, step_side, config in steps:
        spec = REGISTRY.transforms.get(kind)
        version = parse_syntax_version(config.get("field.syntax.version") or "V1") or "V1"
        for key in spec.keys if spec else ():
            for names, path in named(key, config.get(key.name), version):
                if names.role == READS and {"side": step_side, "value": "value"}.get(names.of) == side:
                    out.setdefault(path[0], names.likely_type(config))
    return list(out.items())
