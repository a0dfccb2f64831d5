"""The `kafka` source: Spark's Kafka rows decoded into the record model (SPEC section 4.1)."""

from __future__ import annotations

from .. import ir, spark_versions
from ..changelog import OP
from ..model import Column, Source
from ..record_errors import CONVERTER_STAGES, PARSED_KEY, PARSED_VALUE
from ..transforms.base import Lowering
from ..types.sql import BIGINT, HEADERS_MAP, INT, STRING, TIMESTAMP_LTZ_3, StructField, StructType
from . import avro, cdc_json, json_timestamps
from .base import MetaKey, SourceConnector, Where, cast_metadata, header_columns, timestamp_type_name
from .kafka_config import KafkaSourceConfig
from .kafka_rules import check_kafka_source
from .schema_registry import through
from .spark_io import kafka_reader

KAFKA_PACKAGE = spark_versions.KAFKA
HEADERS = ir.Col("headers")
HEADERS_OR_EMPTY = ir.Func(
    "coalesce", (HEADERS, ir.Cast(ir.Func("array", ()), "ARRAY<STRUCT<key: STRING, value: BINARY>>"))
)

KAFKA_METADATA = {
    "topic": MetaKey(STRING, lambda s: ir.Col("topic")),
    "partition": MetaKey(INT, lambda s: ir.Col("partition"), writable=True),
    "headers": MetaKey(HEADERS_MAP, lambda s: ir.Func("map_from_entries", (HEADERS,)), writable=True),
    "leader-epoch": MetaKey(
        INT, lambda s: ir.Null("INT"), warning="leader-epoch is always null: Spark's Kafka source does not expose it"
    ),
    "offset": MetaKey(BIGINT, lambda s: ir.Col("offset")),
    "timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: ir.Col("timestamp")),
    "timestamp-type": MetaKey(STRING, lambda s: timestamp_type_name(ir.Col("timestampType"))),
}


def wire_name(source: Source, column: str) -> str:
    """The name a key column has inside the key payload (without Flink's key.fields-prefix)."""
    prefix = source.config.key_fields_prefix
    return column[len(prefix) :] if prefix and column.startswith(prefix) else column


def key_columns(source: Source) -> list[Column]:
    by_name = {c.name: c for c in source.config.columns}
    return [by_name[k] for k in source.config.key_fields]


def value_columns(source: Source) -> list[Column]:
    """Physical columns read from the value payload (all, or all but the key's with EXCEPT_KEY)."""
    keys = set(source.config.key_fields) if source.config.fields_include == "EXCEPT_KEY" else set()
    return [c for c in source.config.columns if c.physical and c.name not in keys]


def payload_type(columns: list[Column], rename=lambda n: n) -> StructType:
    """The struct of a payload: its columns under their wire names."""
    return StructType(tuple(StructField(rename(c.name), c.type) for c in columns))


def parse_payload(
    column: str, fmt: str, columns: list[Column], rename=lambda n: n, name: str = "record", registry: str | None = None
) -> ir.Expr:
    """The bytes of `column` decoded by `fmt` (json, csv, avro: a struct; raw: the single column's value).
    json reads timestamps as text, for `timestamps_converted` (SPEC 4.1: epoch milliseconds or ISO-8601).
    `registry`: the payload's Schema Registry entry (avro-confluent with `url`)."""
    raw = ir.Col(column)
    if fmt == "raw":
        (only,) = columns
        return raw if only.type.is_binary else ir.Cast(raw, "STRING")
    struct = payload_type(columns, rename)
    if fmt in avro.FORMATS:
        return avro.decode(raw, fmt, struct, name, registry)
    text = ir.Cast(raw, "STRING")
    schema = ir.Arg((json_timestamps.as_text(struct) if fmt == "json" else struct).ddl())
    options = ir.Arg({"mode": "FAILFAST"})  # an undecodable payload fails the job (tolerance: none)
    return ir.Func({"json": "from_json", "csv": "from_csv"}[fmt], (text, schema, options))


def timestamps_converted(
    column: str, side: str, fmt: str, columns: list[Column], rename=lambda n: n
) -> tuple[tuple[str, ir.Expr], ...]:
    """The parsed json payload in `column` with its timestamps (read as text) converted; () when it has none."""
    struct = payload_type(columns, rename)
    if fmt != "json" or not json_timestamps.has_timestamp(struct):
        return ()
    errors = Lowering(f"{CONVERTER_STAGES[side]}: source {side}", None)
    return ((column, json_timestamps.converted(ir.Col(column), struct, errors, "")),)


def metadata_keys(source_format: str | None) -> dict[str, MetaKey]:
    """The Kafka connector's metadata keys and the value format's (`value.`-prefixed, debezium-json, canal-json)."""
    return {**KAFKA_METADATA, **cdc_json.metadata_keys(source_format)}


def decode_kafka(source: Source, pipeline: str, json_null: bool = True) -> tuple[ir.Op, ...]:
    """Kafka rows -> record model: parse key and value once, then lay out key, value and envelope.
    A changelog format explodes each message into its changes first, and every row gets an `op`.
    `json_null`: a json key or value is null where its parsed payload is (a null or blank payload, or the JSON
    literal null, as Kafka Connect's JsonConverter reads them: record_errors.JSON_NULL), else where its bytes are."""
    parsed = [("headers", HEADERS_OR_EMPTY)]
    values = value_columns(source)
    changelog = source.config.format in cdc_json.FORMATS
    explode: tuple[ir.Op, ...] = ()
    if changelog:
        message, explode = cdc_json.decode_ops(source, values, PARSED_VALUE)
        parsed.append(message)
    converted: tuple[tuple[str, ir.Expr], ...] = ()
    if values and not changelog:
        registry = through(source.registries, "source.value")
        parsed.append(
            (PARSED_VALUE, parse_payload("value", source.config.format, values, name=pipeline, registry=registry))
        )
        converted += timestamps_converted(PARSED_VALUE, "value", source.config.format, values)
    keys = key_columns(source)
    if keys and source.config.key_format != "none":
        key_name = lambda n: wire_name(source, n)  # noqa: E731
        registry = through(source.registries, "source.key")
        parsed.append(
            (PARSED_KEY, parse_payload("key", source.config.key_format, keys, key_name, f"{pipeline}_key", registry))
        )
        converted += timestamps_converted(PARSED_KEY, "key", source.config.key_format, keys, key_name)

    def from_key(c: Column) -> ir.Expr:
        return (
            ir.Col(PARSED_KEY)
            if source.config.key_format == "raw"
            else ir.Get(ir.Col(PARSED_KEY), wire_name(source, c.name))
        )

    def physical(c: Column) -> ir.Expr:
        """With ALL the payload's copy of a key column wins (Flink); with EXCEPT_KEY it comes from the key."""
        if c not in values:
            return from_key(c)
        return ir.Col(PARSED_VALUE) if source.config.format == "raw" else ir.Get(ir.Col(PARSED_VALUE), c.name)

    fields = []
    for c in source.config.columns:
        if c.physical:
            fields.append((c.name, physical(c)))
        elif c.metadata:
            key = metadata_keys(source.config.format)[c.metadata]
            fields.append((c.name, cast_metadata(key.read(source), key.type, c.type)))
        else:
            fields.append((c.name, header_columns(c, HEADERS)))
    # A field that looks through the headers (a `header:` column, the headers map) is read where the payloads are
    # parsed, into a column of its own: once per record however often the chain reads the field, and in the
    # projection Spark cannot compile to one Java method anyway (from_json, like the lambda of a header lookup, is
    # interpreted), so the rest of the chain can be (Spark inlines a column read once).
    # The headers as read are null where there are none: a lookup finds nothing in null either, the map needs [].
    hidden = {name: f"__header_{name}" for name, e in fields if e != HEADERS and "headers" in ir.columns_read(e)}
    lookups = {c.name for c in source.config.columns if c.header}
    parsed += [
        (hidden[name], e if name in lookups else ir.reading(e, {"headers": HEADERS_OR_EMPTY}))
        for name, e in fields
        if name in hidden
    ]
    fields = [(name, ir.Col(hidden[name]) if name in hidden else e) for name, e in fields]

    def null_where(side: str, payload: str, fmt: str | None) -> ir.Col:
        """Where the key or value is null: its parsed json payload (see json_null), else its bytes."""
        return ir.Col(payload if json_null and fmt == "json" and payload in dict(parsed) else side)

    if source.config.key_format == "none":
        key: ir.Expr = ir.Null("BINARY")
    elif source.config.key_format == "raw" and not keys:
        key = ir.Col("key")
    else:
        key = ir.NullSafe(
            null_where("key", PARSED_KEY, source.config.key_format),
            ir.Struct(tuple((c.name, from_key(c)) for c in keys)),
        )
    value = ir.NullSafe(null_where("value", PARSED_VALUE, source.config.format), ir.Struct(tuple(fields)))
    layout = ir.Select(
        (
            ("key", key),
            ("value", value),
            *((n, ir.Col(n)) for n in ("topic", "partition", "offset", "timestamp", "timestampType", "headers")),
            *(((OP, cdc_json.op_column()),) if changelog else ()),
        )
    )
    timestamps = (ir.SetColumns(converted),) if converted else ()
    return (ir.SetColumns(tuple(parsed)), *timestamps, *explode, layout)


AVRO_PACKAGE = avro.AVRO_PACKAGE


def _packages(source: Source) -> tuple[str, ...]:
    uses_avro = source.config.format in avro.FORMATS or source.config.key_format in avro.FORMATS
    return (KAFKA_PACKAGE, AVRO_PACKAGE) if uses_avro else (KAFKA_PACKAGE,)


KAFKA_READER_OPTIONS = frozenset(
    {
        "maxOffsetsPerTrigger",
        "minOffsetsPerTrigger",
        "maxTriggerDelay",
        "failOnDataLoss",
        "minPartitions",
        "maxRecordsPerPartition",
        "kafkaConsumer.pollTimeoutMs",
        "fetchOffset.numRetries",
        "fetchOffset.retryIntervalMs",
        "groupIdPrefix",
        "startingOffsetsByTimestampStrategy",
    }
)

FORMATS = ("raw", "json", "csv", *avro.FORMATS)  # insert-only value formats, and the key formats


def check_source(source: Source, where: Where) -> None:
    check_kafka_source(source, where, FORMATS)


KAFKA_SOURCE = SourceConnector(
    name="kafka",
    config=KafkaSourceConfig,
    metadata=KAFKA_METADATA,
    decode=decode_kafka,
    reader=kafka_reader,
    packages=_packages,
    formats=FORMATS,
    options=KAFKA_READER_OPTIONS,
    yields_changelog=lambda value_format, streaming: value_format in cdc_json.FORMATS,  # debezium-json, canal-json
    check=check_source,
    format_metadata=cdc_json.metadata_keys,
    metadata_hint=cdc_json.foreign_key_hint,
    skip_messages=lambda source: (cdc_json.skip_unchanged(),) if source.config.format in cdc_json.FORMATS else (),
    real_time=True,
    counted_as_read=True,  # Spark's Kafka scan takes no filters: numInputRows is the records fetched
    json_null=True,
)
