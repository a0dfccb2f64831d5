"""The `kafka` sink: the record model encoded as Spark Kafka sink rows (SPEC section 7).

Rows carry `key`, `value` (binary), `topic` (always the column, never the sink option, which would override
a routed topic), `headers` and, when a column is named for it, `partition`.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Collector
from ..model import Sink
from ..shape import Shape
from ..types import HEADERS, HEADERS_MAP, INT, StructField, StructType, SqlType
from . import avro, cdc_json
from .base import SinkConnector
from .kafka import KAFKA_PACKAGE

SOURCE_TOPIC = "__source_topic"  # kept by lower.py before the first router when the sink names a topic
JSON_OPTIONS = {"ignoreNullFields": "false"}  # json writes null fields, as Kafka Connect and Flink do
KEY_FORMATS = ("raw", "json", "csv", *avro.FORMATS)
FORMATS = (*KEY_FORMATS, "debezium-json")


def metadata_columns(sink: Sink, shape: Shape) -> dict[str, str]:
    """metadata key -> value field written as that metadata (persisted source columns and sink.metadata)."""
    out = dict(shape.persisted)
    out.update(dict(sink.metadata))
    return out


def payload_fields(sink: Sink, shape: Shape, key_fields: tuple[str, ...]) -> list[StructField]:
    """The value fields written into the payload: no virtual columns, no metadata columns, no key with EXCEPT_KEY."""
    value = shape.value
    assert isinstance(value, StructType)
    skip = set(shape.virtual) | set(metadata_columns(sink, shape).values())
    if sink.fields_include == "EXCEPT_KEY":
        skip |= set(key_fields)
    return [f for f in value.fields if f.name not in skip]


def encode_payload(expr: ir.Expr, t: SqlType | None, fmt: str, name: str = "record", schema_id: int | None = None) -> ir.Expr:
    """A key or value expression as bytes in `fmt`; null stays null (a tombstone or a null key)."""
    if fmt in avro.FORMATS and isinstance(t, StructType):
        return avro.encode(expr, fmt, t, name, schema_id)
    if fmt == "raw" and isinstance(t, StructType) and len(t.fields) == 1:  # a one-column key written bare
        expr, t = ir.Get(expr, t.fields[0].name), t.fields[0].type
    if fmt == "raw":
        return expr if t is not None and t.is_binary else ir.Cast(expr, "BINARY")
    if isinstance(t, StructType):
        text = ir.Func("to_json", (expr, ir.Arg(JSON_OPTIONS))) if fmt == "json" else ir.Func("to_csv", (expr,))
    elif fmt == "json":  # a primitive as a JSON scalar: formatted as inside an object
        wrapped = ir.Func("to_json", (ir.Func("array", (expr,)), ir.Arg(JSON_OPTIONS)))
        text = ir.Func("regexp_extract", (wrapped, ir.Arg(r"^\[(.*)\]$"), ir.Lit(1)))
        text = ir.If(ir.IsNull(expr), ir.Null("STRING"), text)
    else:
        text = ir.Cast(expr, "STRING")
    return ir.Cast(text, "BINARY")


def _key(sink: Sink, shape: Shape) -> tuple[ir.Expr, SqlType | None]:
    """The key written: the record key, or with `key.fields` those value fields; a tombstone has no value to take
    them from, so it keeps the record key's fields of the same names and types where the key has them."""
    if not sink.key_fields:
        return ir.Col("key"), shape.key
    value = shape.value
    assert isinstance(value, StructType)
    t = StructType(tuple(value.field(k) for k in sink.key_fields))

    def project(side: str) -> ir.Expr:
        return ir.NullSafe(ir.Col(side), ir.Struct(tuple((k, ir.Get(ir.Col(side), k)) for k in sink.key_fields)))

    key = shape.key
    if isinstance(key, StructType) and all(key.field(f.name) == f for f in t.fields):
        return ir.If(ir.IsNull(ir.Col("value")), project("key"), project("value")), t
    return project("value"), t


def _headers(sink: Sink, shape: Shape) -> ir.Expr:
    column = metadata_columns(sink, shape).get("headers")
    if column is None:
        return ir.Col("headers")
    field = ir.Get(ir.Col("value"), column)
    t = shape.value.field(column).type
    return ir.Func("map_entries", (field,)) if t == HEADERS_MAP else field


def _topic(sink: Sink, shape: Shape) -> ir.Expr:
    if sink.topic is None:
        return ir.Col("topic")
    fixed = ir.EnvText(sink.topic.raw) if sink.topic.has_env else ir.Lit(sink.topic.literal)
    if not shape.routed:
        return fixed
    return ir.If(ir.BinOp("!=", ir.Col("topic"), ir.Col(SOURCE_TOPIC)), ir.Col("topic"), fixed)


def record_name(sink: Sink, shape: Shape, side: str = "value") -> str:
    """SetSchemaMetadata's schema name where the chain set one (last dotted part: Avro's name), else the pipeline's."""
    named = {s: name for s, name, _ in shape.schema_names if name}
    if side in named:
        return named[side].rsplit(".", 1)[-1]
    return sink.record_name if side == "value" else f"{sink.record_name}_key"


def encode_kafka(sink: Sink, shape: Shape) -> ir.Select:
    key_expr, key_type = _key(sink, shape)
    key_format = sink.key_format or "json"
    if isinstance(shape.value, StructType):
        payload = payload_fields(sink, shape, sink.key_fields)
        value = ir.NullSafe(ir.Col("value"), ir.Struct(tuple((f.name, ir.Get(ir.Col("value"), f.name)) for f in payload)))
        value_type: SqlType | None = StructType(tuple(payload))
    else:
        value, value_type = ir.Col("value"), shape.value
    if sink.format == "debezium-json" and isinstance(value_type, StructType):
        value_bytes = cdc_json.encode_debezium(value, value_type, shape.changelog, JSON_OPTIONS)
    else:
        value_bytes = encode_payload(value, value_type, sink.format, record_name(sink, shape), sink.value_schema_id)
    columns = [
        ("key", encode_payload(key_expr, key_type, key_format, record_name(sink, shape, "key"), sink.key_schema_id)
         if key_type is not None else ir.Null("BINARY")),
        ("value", value_bytes),
        ("topic", _topic(sink, shape)),
        ("headers", ir.Cast(_headers(sink, shape), HEADERS.ddl())),
    ]
    partition = metadata_columns(sink, shape).get("partition")
    if partition is not None:
        columns.append(("partition", ir.Cast(ir.Get(ir.Col("value"), partition), "INT")))
    return ir.Select(tuple(columns))


def check_kafka_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    def error(code: str, message: str, hint: str | None = None) -> None:
        diags.error(code, f"kafka sink: {message}", sink.loc, hint)

    if sink.format not in FORMATS:
        error("E520", f"value format {sink.format} is not implemented yet", f"available now: {', '.join(FORMATS)}")
    if sink.key_format not in (None, "none", *KEY_FORMATS):
        error("E520", f"key format {sink.key_format} is not implemented yet", f"available now: {', '.join(FORMATS)}")
    value = shape.value
    names = value.names() if isinstance(value, StructType) else ()
    if not isinstance(value, StructType) and (sink.key_fields or sink.fields_include != "ALL" or sink.metadata):
        error("E521", "key fields, fields-include and metadata need a struct value; the value here is a primitive")
        return
    for k in sink.key_fields:
        if k not in names:
            error("E522", f"key field '{k}' is not a field of the value; fields: {', '.join(names)}")
    if sink.fields_include == "EXCEPT_KEY" and not sink.key_fields:
        error("E523", "fields-include EXCEPT_KEY needs key.fields")
    for key, column in sink.metadata:
        if key == "timestamp":
            error("E524", "Spark's Kafka sink takes no record timestamp column, so a timestamp cannot be written",
                  "remove metadata.timestamp: records carry the producer's time")
        elif column not in names:
            error("E525", f"metadata.{key} names '{column}', which is not a field of the value; fields: {', '.join(names)}")
        else:
            t = value.field(column).type
            allowed = (INT,) if key == "partition" else (HEADERS, HEADERS_MAP)
            if t not in allowed:
                error("E526", f"metadata.{key} column '{column}' is {t.sql()}; it must be {' or '.join(a.sql() for a in allowed)}")
    if sink.format == "raw" and isinstance(value, StructType):
        payload = payload_fields(sink, shape, sink.key_fields)
        if len(payload) != 1 or not (payload[0].type.is_string or payload[0].type.is_binary):
            error("E527", "a raw value format writes exactly one STRING or BYTES field", "drop the others with ReplaceField")
    if sink.format == "debezium-json" and not isinstance(value, StructType):
        error("E531", "a debezium-json value must be a struct (the row in before/after); the value here is a primitive",
              "keep a struct value, or use json or raw")
    if sink.format in avro.FORMATS and not isinstance(value, StructType):
        error("E529", "an avro value must be a struct; the value here is a primitive", "use json or raw for a primitive value")
    if "avro-confluent" in (sink.format, sink.key_format):
        wanted = [("value", sink.value_schema_id)] if sink.format == "avro-confluent" else []
        wanted += [("key", sink.key_schema_id)] if sink.key_format == "avro-confluent" else []
        for side, sid in wanted:
            if sid is None:
                error("E530", f"avro-confluent needs {side}.schema-id (the id written in Confluent's header)")
    if sink.format == "csv" and isinstance(value, StructType):
        nested = [f.name for f in payload_fields(sink, shape, sink.key_fields) if isinstance(f.type, StructType)]
        if nested:
            error("E528", f"csv cannot write nested fields: {', '.join(nested)}", "use Flatten first, or json")


KAFKA_SINK = SinkConnector(
    name="kafka",
    check=check_kafka_sink,
    encode=encode_kafka,
    packages=lambda sink: (KAFKA_PACKAGE,) + ((avro.AVRO_PACKAGE,) if {sink.format, sink.key_format} & set(avro.FORMATS) else ()),
)
