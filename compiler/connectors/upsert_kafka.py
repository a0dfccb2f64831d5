"""The `upsert-kafka` source and sink (SPEC 4.2 and 7, Flink's FLIP-149).

Source. Decoding is the `kafka` source's; what differs is which raw rows it decodes. In `mode: batch` the job's
`upsert_table` first keeps each key's last record (by partition and offset) and drops deleted keys: the table at the
end of the topic, as plain rows (no changelog). In `mode: streaming` the job's `ChangelogState` (compiler/runtime/changelog.py)
turns each micro-batch into changelog rows (the raw Kafka columns plus `op`) against the last image per key kept
under the checkpoint; decode then passes `op` through.

Sink. Rows are encoded as for the `kafka` sink with the key from `primary-key`; `-D` writes a tombstone. The job's
`upsert_fates` then gives each row its fate in the micro-batch (Flink's reducing upsert writer): `written` (its key's
last change), `superseded` (a later change of the key follows) or `filtered` (a `-U`, never written); only written
rows go out. No partition column is ever set: the producer partitions by the serialized key.
"""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..changelog import DELETE, INSERT, OP, TOMBSTONE, UPDATE_BEFORE, is_delete
from ..diagnostics import Collector
from ..model import Sink, Source
from ..record_errors import positioned
from ..shape import Shape, kind_words
from ..types.sql import StructType
from .base import SinkConnector, SourceConnector
from .cdc_json import foreign_key_hint
from .kafka import KAFKA_METADATA, KAFKA_READER_OPTIONS, KAFKA_SOURCE, decode_kafka
from .kafka_config import UpsertKafkaSourceConfig
from .kafka_sink import KAFKA_SINK, KEY_FORMATS, WRITTEN_KEY, check_kafka_sink, encode_kafka, framing, record_name
from .kafka_sink_config import UpsertKafkaSinkConfig
from .payload import encode_bound

UPSERT_KAFKA = "upsert-kafka"
# Helper columns of the upsert sink's rows, dropped after `upsert_fates`.
CHANGE_OP, CHANGE_ORDER, ENCODED_KEY, FATE = "__op", "__order", "__key_bytes", "__fate"
WRITTEN = "written"


# Hints for schema errors that are upsert-kafka rules (FLIP-149), by the path of the node at fault.
SCHEMA_HINTS = {
    ("source", "key", "fields"): "upsert-kafka's key is its primary-key: list the key columns in primary-key",
    (
        "source",
        "startup",
    ): "upsert-kafka always reads from the earliest offset (a delete of a key never seen could not be applied)",
    (
        "source",
        "value",
        "format",
    ): "upsert-kafka takes an insert-only value format; read a debezium-json or canal-json topic "
    "with connector: kafka, which makes it a changelog",
}


def decode_upsert_kafka(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """The kafka decode over the table (batch) or over the changelog rows, keeping their `op` (streaming)."""
    parsed, layout = decode_kafka(source, pipeline, json_null=False)
    if source.changelog:
        return (parsed, ir.Select(layout.columns + ((OP, ir.Col(OP)), (TOMBSTONE, ir.Col(TOMBSTONE)))))
    return (ir.Apply("upsert_table"), parsed, layout)


def key_required() -> ir.SetColumns:
    """A record without a key cannot update the table: a record error (a dead letter under tolerance: all)."""
    message = positioned("upsert-kafka source: a record without a key cannot update the table")
    return ir.SetColumns((("key", ir.If(ir.IsNull(ir.Col("key")), ir.Func("raise_error", (message,)), ir.Col("key"))),))


def decode_tolerant(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """tolerance: all: the decode, a record without a key failing in it (the table or changelog state, which the
    job's `decodable` keeps such records from, would fail the job on it)."""
    ops = decode_upsert_kafka(source, pipeline)
    applied = 1 if isinstance(ops[0], ir.Apply) else 0
    return (*ops[:applied], key_required(), *ops[applied:])


def state_check(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """tolerance: all: the decode of each record as read, whose record errors keep it out of the table or the
    changelog state (it goes to the dead letters, and its key keeps its image)."""
    return (key_required(), *decode_kafka(source, pipeline, json_null=False))


UPSERT_KAFKA_SOURCE = SourceConnector(
    name=UPSERT_KAFKA,
    config=UpsertKafkaSourceConfig,
    metadata=KAFKA_METADATA,
    decode=decode_upsert_kafka,
    reader=KAFKA_SOURCE.reader,
    packages=KAFKA_SOURCE.packages,
    formats=KAFKA_SOURCE.formats,
    options=KAFKA_READER_OPTIONS - {"startingOffsetsByTimestampStrategy"},
    yields_changelog=lambda value_format, streaming: streaming,  # batch mode reads the table
    check=KAFKA_SOURCE.check,
    metadata_hint=lambda key, fmt: foreign_key_hint(key, None),
    per_key_state=True,
    tolerant_decode=decode_tolerant,
    state_check=state_check,
    schema_hints=SCHEMA_HINTS,
)


def change_op(shape: Shape) -> ir.Expr:
    """Each record's change: its `op` in a changelog; otherwise an upsert, or a delete for a null value."""
    if shape.changelog:
        return ir.Col(OP)
    return ir.If(ir.IsNull(ir.Col("value")), ir.Lit(DELETE), ir.Lit(INSERT))


def change_order() -> ir.Expr:
    """Offset order within a micro-batch, `-U` before the `+U` of the same offset; read order where offsets are null."""
    rank = ir.If(ir.BinOp("==", ir.Col(OP), ir.Lit(UPDATE_BEFORE)), ir.Lit(0), ir.Lit(1))
    return ir.Struct(
        (
            ("partition", ir.Col("partition")),
            ("offset", ir.Col("offset")),
            ("rank", rank),
            ("read", ir.Func("monotonically_increasing_id", ())),
        )
    )


def primary_key_type(sink: Sink, shape: Shape) -> StructType:
    assert isinstance(shape.value, StructType)
    return StructType(tuple(shape.value.field(k) for k in sink.config.primary_key))


def primary_key(sink: Sink, shape: Shape) -> ir.Expr:
    """The primary-key struct from the value; for a tombstone (no value) from the record key, where it has those fields."""
    t = primary_key_type(sink, shape)
    from_value = ir.NullSafe(
        ir.Col("value"), ir.Struct(tuple((f.name, ir.Get(ir.Col("value"), f.name)) for f in t.fields))
    )
    key = shape.key
    if shape.changelog or not isinstance(key, StructType) or not all(n in key.names() for n in sink.config.primary_key):
        return from_value
    from_key = ir.NullSafe(
        ir.Col("key"),
        ir.Struct(tuple((f.name, ir.Cast(ir.Get(ir.Col("key"), f.name), f.type.ddl())) for f in t.fields)),
    )
    return ir.Func("coalesce", (from_value, from_key))


def encode_upsert_kafka(sink: Sink, shape: Shape) -> tuple[ir.Op, ...]:
    """Kafka rows keyed by the primary key, a tombstone for a delete; then each key's last change of the batch."""
    *kafka_binds, kafka_rows = encode_kafka(sink, shape)
    (_, value, topic, headers, *_) = kafka_rows.columns  # never a partition column; the key is the primary key
    key_binds, encoded_key = encode_bound(
        primary_key(sink, shape),
        primary_key_type(sink, shape),
        sink.config.key_format or "json",
        WRITTEN_KEY,
        record_name(sink, shape, "key"),
        framing(sink, "key"),
        sink.config.key_timestamp_format,
    )
    value_binds = tuple(c for op in kafka_binds for c in op.columns if c[0] != WRITTEN_KEY)
    binds = (ir.SetColumns(key_binds + value_binds),) if key_binds + value_binds else ()
    key = ("key", encoded_key)
    delete = is_delete(ir.Col(CHANGE_OP))
    if not shape.changelog:
        order = ir.Struct(
            (
                ("partition", ir.Col("partition")),
                ("offset", ir.Col("offset")),
                ("read", ir.Func("monotonically_increasing_id", ())),
            )
        )
    else:
        order = change_order()
    keyed = ir.SetColumns(((CHANGE_OP, change_op(shape)), (CHANGE_ORDER, order), (ENCODED_KEY, key[1])))
    null_key = ir.Func(
        "raise_error",
        (
            ir.Func(
                "format_string",
                (
                    ir.Arg(
                        "upsert-kafka sink: the primary key is null, so the record cannot be written (topic %s, partition %s, offset %s)"
                    ),
                    ir.Col("topic"),
                    ir.Col("partition"),
                    ir.Col("offset"),
                ),
            ),
        ),
    )
    rows = ir.Select(
        (
            ("key", ir.If(ir.IsNull(ir.Col(ENCODED_KEY)), null_key, ir.Col(ENCODED_KEY))),
            ("value", ir.If(delete, ir.Null("BINARY"), value[1])),
            topic,
            headers,
            (CHANGE_OP, ir.Col(CHANGE_OP)),
            (CHANGE_ORDER, ir.Col(CHANGE_ORDER)),
        )
    )
    written = ir.Where(ir.BinOp("==", ir.Col(FATE), ir.Lit(WRITTEN)))
    final = ir.Select(tuple((n, ir.Col(n)) for n in ("key", "value", "topic", "headers")))
    return (*binds, keyed, rows, ir.Apply("upsert_fates"), written, final)


def check_upsert_kafka_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    """The kafka sink's rules, a struct value holding the primary key, and no partition column."""
    if not isinstance(shape.value, StructType):
        diags.error(
            "E541",
            f"upsert-kafka sink: primary-key names fields of the value, and the value here is {kind_words(shape.value)}",
            sink.primary_key_loc or sink.loc,
            "keep a struct value (drop the ExtractField/HoistField step), or use a kafka sink",
        )
        return
    kept = tuple((k, c) for k, c in sink.config.metadata if k != "partition")
    check_kafka_sink(replace(sink, config=replace(sink.config, metadata=kept)), shape, diags)
    if any(k == "partition" for k, _ in sink.config.metadata):
        diags.error(
            "E542",
            "upsert-kafka sink: every record of a key goes to the key's partition (the producer hashes the key), "
            "so metadata.partition cannot be set",
            sink.loc,
            "remove metadata.partition",
        )


UPSERT_KAFKA_SINK = SinkConnector(
    name=UPSERT_KAFKA,
    config=UpsertKafkaSinkConfig,
    check=check_upsert_kafka_sink,
    encode=encode_upsert_kafka,
    writer=KAFKA_SINK.writer,
    packages=KAFKA_SINK.packages,
    options=KAFKA_SINK.options,
    formats=KEY_FORMATS,  # insert-only formats: the changelog is the upsert itself
    key_formats=KEY_FORMATS,
    takes_changelog=True,
    per_key_state=True,
    primary_key=True,
    writes_kafka=True,
    before_routing=KAFKA_SINK.before_routing,
    spark_sink="kafka",
    test_layout=KAFKA_SINK.test_layout,
)
