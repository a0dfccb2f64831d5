"""Avro payloads: an Avro schema derived from the declared columns, plain or with Confluent's framing.

`avro` is plain Avro binary; `avro-confluent` adds Confluent's 5-byte header (magic byte 0 and a big-endian
schema id): with the configured `schema-id` and no registry calls, or through a Schema Registry (`url`): a source
decodes each record with the writer schema its id names and resolves it to the declared columns, a sink frames
records with the id its schema has under the subject (the job's `from_registry` and `to_registry`, which the
registry's answers shape when the job starts). Decoding and encoding use spark-avro's `from_avro`/`to_avro`
(native expressions), so jobs need the `spark-avro` package.
"""

from __future__ import annotations

import json
import re

from .. import ir, spark_versions
from ..record_errors import DECODED
from ..types.sql import BOOLEAN, ArrayType, MapType, Primitive, SqlType, StructField, StructType

AVRO_PACKAGE = spark_versions.AVRO
FORMATS = ("avro", "avro-confluent")
_NAME = re.compile(r"[^A-Za-z0-9_]")

PRIMITIVES = {
    "BOOLEAN": "boolean",
    "TINYINT": "int",
    "SMALLINT": "int",
    "INT": "int",
    "BIGINT": "long",
    "FLOAT": "float",
    "DOUBLE": "double",
    "STRING": "string",
    "BYTES": "bytes",
    "DATE": {"type": "int", "logicalType": "date"},
    "TIMESTAMP_LTZ": {"type": "long", "logicalType": "timestamp-micros"},
    "TIMESTAMP": {"type": "long", "logicalType": "local-timestamp-micros"},
}


def avro_name(name: str) -> str:
    """An Avro record name: letters, digits and underscores, not starting with a digit."""
    cleaned = _NAME.sub("_", name) or "record"
    return cleaned if not cleaned[0].isdigit() else f"_{cleaned}"


def avro_type(t: SqlType, name: str) -> object:
    """The Avro type of a nullable column of type `t` (records named after their path)."""
    if isinstance(t, StructType):
        fields = [{"name": f.name, "type": avro_type(f.type, f"{name}_{f.name}"), "default": None} for f in t.fields]
        body: object = {"type": "record", "name": avro_name(name), "fields": fields}
    elif isinstance(t, ArrayType):
        body = {"type": "array", "items": avro_type(t.element, f"{name}_item")}
    elif isinstance(t, MapType):
        body = {"type": "map", "values": avro_type(t.value, f"{name}_value")}
    elif isinstance(t, Primitive) and t.name == "DECIMAL":
        body = {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    else:
        body = PRIMITIVES[t.name]
    return ["null", body]


def record_schema(t: StructType, name: str) -> str:
    """The JSON Avro schema of a top-level record (not nullable: a null payload is a tombstone)."""
    _, record = avro_type(t, name)
    return json.dumps(record, separators=(",", ":"), sort_keys=False)


def reader_schema(t: StructType, name: str) -> str:
    """The writer's record schema plus DECODED, a boolean defaulting to true: Avro's schema resolution fills it
    for every payload that decodes, while a payload that does not decodes (PERMISSIVE) to a struct of nulls, which
    a record of null fields could not be told from."""
    _, record = avro_type(t, name)
    record["fields"].append({"name": DECODED, "type": "boolean", "default": True})
    return json.dumps(record, separators=(",", ":"), sort_keys=False)


def unsupported(t: SqlType) -> list[str]:
    """Column types Avro cannot carry here (map keys must be strings)."""
    if isinstance(t, StructType):
        return [x for f in t.fields for x in unsupported(f.type)]
    if isinstance(t, ArrayType):
        return unsupported(t.element)
    if isinstance(t, MapType):
        return ([f"MAP with {t.key.sql()} keys"] if not t.key.is_string else []) + unsupported(t.value)
    return []


def _substring(column: ir.Expr, start: int, length: int = 2147483647) -> ir.Expr:
    return ir.Func("substring", (column, ir.Lit(start), ir.Lit(length)))


def schema_id_text(column: ir.Expr) -> ir.Expr:
    """The schema id in a Confluent header, as decimal text."""
    return ir.Func("conv", (ir.Func("hex", (_substring(column, 2, 4),)), ir.Arg(16), ir.Arg(10)))


def _unknown_id(column: ir.Expr, registry: str) -> ir.Expr:
    """A record error for a schema id the registry does not know, naming the id and the record's position."""
    side = registry.split(".")[1]
    message = f"source {side}: schema id %s is not in the Schema Registry (topic %s, partition %s, offset %s)"
    return ir.Func(
        "raise_error",
        (
            ir.Func(
                "format_string",
                (ir.Arg(message), schema_id_text(column), ir.Col("topic"), ir.Col("partition"), ir.Col("offset")),
            ),
        ),
    )


def decode(column: ir.Expr, fmt: str, t: StructType, name: str, registry: str | None = None) -> ir.Expr:
    """Bytes -> the declared struct plus DECODED (see reader_schema; the layout reads fields by name); an
    undecodable payload fails the job (FAILFAST). With Confluent framing the 5-byte header is skipped, and a
    payload without the magic byte 0 is a record error. Through a Schema Registry (`registry`: the payload's entry
    in the job's SCHEMA_REGISTRY) the job's from_registry decodes with the writer schema the id names, and an id the
    registry does not know is a record error."""
    read = StructType(t.fields + (StructField(DECODED, BOOLEAN),)).ddl()
    options = {"mode": "FAILFAST", "avroSchema": reader_schema(t, name)}
    if registry is not None:
        parsed: ir.Expr = ir.Cast(ir.Func("from_registry", (column, ir.Arg(registry), ir.Arg(options))), read)
        parsed = ir.If(ir.Func("schema_rejected", (column, ir.Arg(registry))), _unknown_id(column, registry), parsed)
    else:
        payload = _substring(column, 6) if fmt == "avro-confluent" else column
        parsed = ir.Cast(ir.Func("from_avro", (payload, ir.Arg(record_schema(t, name)), ir.Arg(options))), read)
    if fmt != "avro-confluent":
        return parsed
    magic = _substring(column, 1, 1)
    bad = ir.Func("raise_error", (ir.Lit("avro-confluent payload without Confluent's magic byte 0"),))
    return ir.If(
        ir.BinOp("==", magic, ir.Func("unhex", (ir.Lit("00"),))), parsed, ir.If(ir.IsNull(column), ir.Null(read), bad)
    )


def encode(expr: ir.Expr, fmt: str, t: StructType, name: str, schema: int | str | None) -> ir.Expr:
    """The struct -> Avro bytes; avro-confluent adds Confluent's header: with the configured schema id (an int), or
    through a Schema Registry (a str: the payload's entry in the job's SCHEMA_REGISTRY), whose id for the schema
    the job's to_registry writes."""
    if isinstance(schema, str):
        framed = ir.Func("to_registry", (expr, ir.Arg(schema), ir.Arg(record_schema(t, name))))
        return ir.If(ir.IsNull(expr), ir.Null("BINARY"), framed)
    body = ir.Func("to_avro", (expr, ir.Arg(record_schema(t, name))))
    if fmt != "avro-confluent":
        return body
    header = ir.Func("unhex", (ir.Lit(f"00{(schema or 0) & 0xFFFFFFFF:08X}"),))
    return ir.If(ir.IsNull(expr), ir.Null("BINARY"), ir.Func("concat", (header, body)))
