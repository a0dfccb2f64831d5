"""The `kafka` sink: the record model encoded as Spark Kafka sink rows (SPEC section 7).

Rows carry `key`, `value` (binary), `topic` (always the column, never the sink option, which would override
a routed topic), `headers` and, when a column is named for it, `partition`.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Collector, Location, did_you_mean
from ..model import Sink
from ..shape import Shape, kind_words
from ..types.sql import HEADERS, HEADERS_MAP, INT, STRING, ArrayType, MapType, SqlType, StructField, StructType
from . import avro, cdc_json
from .base import SinkConnector, TestLayout
from .json_timestamps import written
from .kafka import KAFKA_PACKAGE
from .kafka_sink_config import KafkaSinkConfig
from .payload import HINTS, JSON_OPTIONS, encode_bound, payload_problem
from .schema_registry import through
from .spark_io import kafka_writer

SOURCE_TOPIC = "__source_topic"  # kept before the first router when the sink names a topic (keep_source_topic)
KEY_FORMATS = ("raw", "json", "csv", *avro.FORMATS)
FORMATS = (*KEY_FORMATS, "debezium-json")
CHANGELOG_VALUE_FORMATS = frozenset({"debezium-json"})  # value formats that carry the op in the payload


def metadata_columns(sink: Sink, shape: Shape) -> dict[str, str]:
    """metadata key -> value field written as that metadata (persisted source columns and sink.config.metadata)."""
    out = dict(shape.persisted)
    out.update(dict(sink.config.metadata))
    return out


def payload_fields(sink: Sink, shape: Shape, key_fields: tuple[str, ...]) -> list[StructField]:
    """The value fields written into the payload: no virtual columns, no metadata columns, no key with EXCEPT_KEY."""
    value = shape.value
    assert isinstance(value, StructType)
    skip = set(shape.virtual) | set(metadata_columns(sink, shape).values())
    if sink.config.fields_include == "EXCEPT_KEY":
        skip |= set(key_fields)
    return [f for f in value.fields if f.name not in skip]


def written_key(sink: Sink, shape: Shape) -> tuple[ir.Expr, SqlType] | None:
    """The key a Kafka sink writes and its type: a struct of `key.fields` of the value, else the record's key;
    None when no key is written (no key, key.format none, or a key field the value lacks). A tombstone has no value
    to take key fields from, so it keeps the record key's fields of the same names and types where the key has them."""
    if sink.config.key_format == "none":
        return None
    if not sink.config.key_fields:
        return (ir.Col("key"), shape.key) if shape.key is not None else None
    value = shape.value
    if not isinstance(value, StructType) or any(value.field(k) is None for k in sink.config.key_fields):
        return None
    t = StructType(tuple(value.field(k) for k in sink.config.key_fields))

    def project(side: str) -> ir.Expr:
        return ir.NullSafe(ir.Col(side), ir.Struct(tuple((k, ir.Get(ir.Col(side), k)) for k in sink.config.key_fields)))

    key = shape.key
    if isinstance(key, StructType) and all(key.field(f.name) == f for f in t.fields):
        return ir.If(ir.IsNull(ir.Col("value")), project("key"), project("value")), t
    return project("value"), t


def written_value_type(sink: Sink, shape: Shape) -> SqlType | None:
    """The type of the value payload: the struct of its payload fields, or the primitive."""
    if isinstance(shape.value, StructType):
        return StructType(tuple(payload_fields(sink, shape, sink.config.key_fields)))
    return shape.value


def kafka_layout(sink: Sink, shape: Shape) -> TestLayout:
    """A Kafka record as written: key, value (debezium-json: its before/after/op message), topic, headers and, when
    a column is named for it, partition."""
    key = written_key(sink, shape)
    value = written_value_type(sink, shape)
    if sink.config.format == "debezium-json" and isinstance(value, StructType):
        value = StructType((StructField("before", value), StructField("after", value), StructField("op", STRING)))
    fields: dict[str, SqlType | None] = {
        "key": key[1] if key else None,
        "value": value,
        "topic": STRING,
        "headers": HEADERS,
    }
    if "partition" in metadata_columns(sink, shape) and not sink.config.primary_key:
        fields["partition"] = INT
    return TestLayout(
        fields,
        f"a {sink.connector} sink writes key, value, topic and headers: the broker assigns the offset, "
        "the producer the timestamp" + ("" if "partition" in fields else ", and the partition (no metadata.partition)"),
    )


def _headers(sink: Sink, shape: Shape) -> ir.Expr:
    column = metadata_columns(sink, shape).get("headers")
    if column is None:
        return ir.Col("headers")
    field = ir.Get(ir.Col("value"), column)
    t = shape.value.field(column).type
    return ir.Func("map_entries", (field,)) if t == HEADERS_MAP else field


def _topic(sink: Sink, shape: Shape) -> ir.Expr:
    if sink.config.topic is None:
        return ir.Col("topic")
    fixed = ir.EnvText(sink.config.topic.raw) if sink.config.topic.has_env else ir.Lit(sink.config.topic.literal)
    if not shape.routed:
        return fixed
    return ir.If(ir.BinOp("!=", ir.Col("topic"), ir.Col(SOURCE_TOPIC)), ir.Col("topic"), fixed)


def keep_source_topic(sink: Sink) -> tuple[ir.Op, ...]:
    """Before the first router: each record's own topic, so the sink's topic applies to those no router renamed."""
    return (ir.SetColumns(((SOURCE_TOPIC, ir.Col("topic")),)),) if sink.config.topic is not None else ()


def record_name(sink: Sink, shape: Shape, side: str = "value") -> str:
    """SetSchemaMetadata's schema name where the chain set one (last dotted part: Avro's name), else the pipeline's."""
    named = {s: name for s, name, _ in shape.schema_names if name}
    if side in named:
        return named[side].rsplit(".", 1)[-1]
    return sink.record_name if side == "value" else f"{sink.record_name}_key"


def framing(sink: Sink, side: str) -> int | str | None:
    """What avro-confluent frames the key or value with: its Schema Registry entry, else its configured schema id."""
    return (
        through(sink.registries, f"sink.{side}")
        or {"key": sink.config.key_schema_id, "value": sink.config.value_schema_id}[side]
    )


# The written key and value, bound once where their encoding reads them more than once (csv, raw)
WRITTEN_KEY, WRITTEN_VALUE = "written_key", "written_value"


def encode_kafka(sink: Sink, shape: Shape) -> tuple[ir.Op, ...]:
    """The Kafka sink rows: key and value bytes, topic, headers and, when a column is named for it, partition;
    first the written key and value bound once where their encoding reads them more than once."""
    value_type = written_value_type(sink, shape)
    # a value whose fields are all written is written as it is (avro: rebuilt, its schema follows Spark's types)
    if isinstance(value_type, StructType) and (
        value_type != shape.value or sink.config.format not in ("json", "csv", "raw")
    ):
        fields = tuple((f.name, ir.Get(ir.Col("value"), f.name)) for f in value_type.fields)
        value: ir.Expr = ir.NullSafe(ir.Col("value"), ir.Struct(fields))
    else:
        value = ir.Col("value")
    if value_type is None:  # always null (Drop$Value): every record is a tombstone
        binds, value_bytes = (), ir.Null("BINARY")
    elif sink.config.format == "debezium-json" and isinstance(value_type, StructType):
        row, row_type = written(value, value_type, sink.config.timestamp_format)
        binds, value_bytes = (), cdc_json.encode_debezium(row, row_type, shape.changelog, JSON_OPTIONS)
    else:
        binds, value_bytes = encode_bound(
            value,
            value_type,
            sink.config.format,
            WRITTEN_VALUE,
            record_name(sink, shape),
            framing(sink, "value"),
            sink.config.timestamp_format,
        )
    key = written_key(sink, shape)
    key_bytes: ir.Expr = ir.Null("BINARY")
    if key is not None:
        key_binds, key_bytes = encode_bound(
            *key,
            sink.config.key_format or "json",
            WRITTEN_KEY,
            record_name(sink, shape, "key"),
            framing(sink, "key"),
            sink.config.key_timestamp_format,
        )
        binds = key_binds + binds
    columns = [
        ("key", key_bytes),
        ("value", value_bytes),
        ("topic", _topic(sink, shape)),
        ("headers", ir.Cast(_headers(sink, shape), HEADERS.ddl())),
    ]
    partition = metadata_columns(sink, shape).get("partition")
    if partition is not None:
        columns.append(("partition", ir.Cast(ir.Get(ir.Col("value"), partition), "INT")))
    return ((ir.SetColumns(binds),) if binds else ()) + (ir.Select(tuple(columns)),)


def check_kafka_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    def error(code: str, message: str, hint: str | None = None, at: Location | None = None) -> None:
        diags.error(code, f"{sink.connector} sink: {message}", at or sink.loc, hint)

    if sink.config.format not in FORMATS:
        error(
            "E520", f"value format {sink.config.format} is not implemented yet", f"available now: {', '.join(FORMATS)}"
        )
    if sink.config.key_format not in (None, "none", *KEY_FORMATS):
        error(
            "E520",
            f"key format {sink.config.key_format} is not implemented yet",
            f"available now: {', '.join(FORMATS)}",
        )
    value = shape.value
    names = value.names() if isinstance(value, StructType) else ()
    if not isinstance(value, StructType) and (
        sink.config.key_fields or sink.config.fields_include != "ALL" or sink.config.metadata
    ):
        error(
            "E521",
            f"key fields, fields-include and metadata need a struct value; the value here is {kind_words(value)}",
            "keep a struct value (drop the ExtractField step), or remove key.fields, fields-include and metadata",
        )
        return
    key_locs = dict(zip(sink.config.key_fields, sink.key_field_locs))
    for k in sink.config.key_fields:
        if k not in names:
            what, loc = ("primary-key", sink.primary_key_loc) if sink.config.primary_key else ("key field", None)
            loc = key_locs.get(k) or loc
            diags.error(
                "E522",
                f"{sink.connector} sink: {what} '{k}' is not a field of the value; fields: "
                f"{', '.join(names) or '(none)'}",
                loc or sink.loc,
                did_you_mean(k, names) or "name a field the value has",
            )
        elif sink.config.key_format == "csv" and isinstance(value.field(k).type, (StructType, ArrayType, MapType)):
            error(
                "E532",
                f"a csv key cannot hold '{k}', a {value.field(k).type.sql()}",
                "use a json key",
                at=key_locs.get(k),
            )
        elif sink.config.key_format == "raw" and len(sink.config.key_fields) > 1:
            if k != sink.config.key_fields[0]:
                error(
                    "E533",
                    "a raw key writes exactly one field",
                    "name one key field, or use a json key",
                    at=key_locs.get(k),
                )
        elif sink.config.key_format == "raw" and not (value.field(k).type.is_string or value.field(k).type.is_binary):
            error(
                "E533",
                f"a raw key writes one STRING or BYTES field, and '{k}' is {value.field(k).type.sql()}",
                "Cast it to string first, or use a json key",
                at=key_locs.get(k),
            )
    if sink.config.fields_include == "EXCEPT_KEY" and not sink.config.key_fields:
        error("E523", "fields-include EXCEPT_KEY needs key.fields", "add key.fields, or use fields-include: ALL")
    metadata_locs = dict(zip((k for k, _ in sink.config.metadata), sink.metadata_locs))
    for key, column in sink.config.metadata:
        at = metadata_locs.get(key)
        if key == "timestamp":
            error(
                "E524",
                "Spark's Kafka sink takes no record timestamp column, so a timestamp cannot be written",
                "remove metadata.timestamp: records carry the producer's time",
                at,
            )
        elif column not in names:
            error(
                "E525",
                f"metadata.{key} names '{column}', which is not a field of the value; fields: {', '.join(names)}",
                did_you_mean(column, names) or "name a field the value has",
                at,
            )
        else:
            t = value.field(column).type
            allowed = (INT,) if key == "partition" else (HEADERS, HEADERS_MAP)
            if t not in allowed:
                error(
                    "E526",
                    f"metadata.{key} column '{column}' is {t.sql()}; it must be {' or '.join(a.sql() for a in allowed)}",
                    f"Cast it with spec {column}:int32 in a step before the sink"
                    if key == "partition"
                    else "name a headers: true column, or one of MAP<STRING, BYTES>",
                    at=at,
                )
    if sink.config.format == "debezium-json" and not isinstance(value, StructType):
        diags.error(
            "E531",
            "kafka sink: a debezium-json value must be a struct (the row in before/after); the value "
            f"here is {kind_words(value)}",
            sink.format_loc or sink.loc,
            "keep a struct value, or use json",
        )
    if "avro-confluent" in (sink.config.format, sink.config.key_format):
        wanted = [("value", sink.config.value_schema_id)] if sink.config.format == "avro-confluent" else []
        wanted += [("key", sink.config.key_schema_id)] if sink.config.key_format == "avro-confluent" else []
        through_registry = {r.payload.split(".")[1] for r in sink.registries}
        for side, sid in wanted:
            if sid is None and side not in through_registry:
                error(
                    "E530",
                    f"avro-confluent needs {side}.url (a Schema Registry) or {side}.schema-id (the id written in "
                    "Confluent's header)",
                    f"add {side}.url: http://HOST:8081, or {side}.schema-id: N",
                )
    check_payloads(sink, shape, diags)


# The code of each payload format's refusal
PROBLEM_CODES = {"raw": "E527", "csv": "E528", "avro": "E529", "avro-confluent": "E529"}


def check_payloads(sink: Sink, shape: Shape, diags: Collector) -> None:
    """Each payload's format can write its type; an error at the format that cannot, saying why."""
    key = written_key(sink, shape)
    sides = [("value", sink.config.format, written_value_type(sink, shape), sink.format_loc)]
    # csv and raw keys made of key fields were checked at each field (E532, E533)
    if key is not None and not (sink.config.key_fields and sink.config.key_format in ("csv", "raw")):
        sides.append(("key", sink.config.key_format or "json", key[1], sink.key_format_loc))
    for side, fmt, t, loc in sides:
        problem = payload_problem(fmt, t) if t is not None else None
        if problem:
            diags.error(
                PROBLEM_CODES[fmt],
                f"{sink.connector} sink: the {side} is {t.sql()}: {problem}",
                loc or sink.loc,
                HINTS[fmt],
            )


KAFKA_SINK = SinkConnector(
    name="kafka",
    config=KafkaSinkConfig,
    check=check_kafka_sink,
    encode=encode_kafka,
    writer=kafka_writer,
    packages=lambda sink: (
        (KAFKA_PACKAGE,)
        + ((avro.AVRO_PACKAGE,) if {sink.config.format, sink.config.key_format} & set(avro.FORMATS) else ())
    ),
    formats=FORMATS,
    key_formats=("none", *KEY_FORMATS),
    carries_op=lambda sink: sink.config.format in CHANGELOG_VALUE_FORMATS,
    changelog_fix="write it with connector: upsert-kafka (and primary-key), or value.format: debezium-json",
    writes_kafka=True,
    before_routing=keep_source_topic,
    spark_sink="kafka",
    real_time=True,
    test_layout=kafka_layout,
)
