"""What a source or sink connector is to the compiler."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import Collector, Location
from ..load.document import SourceMap
from ..model import Column, Sink, SinkConfig, Source, SourceConfig
from ..record_errors import positioned
from ..shape import Shape
from ..types.sql import BIGINT, HEADERS, INT, STRING, TIMESTAMP_LTZ_3, Primitive, SqlType, StructType
from .config import keys

# The record model inside every job (SPEC section 5): Spark's Kafka source columns.
RECORD_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")
# Envelope columns a files/console sink adds with `envelope: true`.
ENVELOPE_COLUMNS = ("key", "topic", "partition", "offset", "timestamp", "headers")

TIMESTAMP_TYPE_NAMES = ((-1, "NoTimestampType"), (0, "CreateTime"), (1, "LogAppendTime"))


@dataclass(frozen=True, slots=True)
class MetaKey:
    """A readable metadata key: its own type, whether a sink can write it, and how decode reads it."""

    type: SqlType
    read: Callable[[Source], ir.Expr]
    writable: bool = False
    warning: str | None = None


def format_path(config: type) -> tuple[str, ...]:
    """Where a config record's value format is written: its `format` field's key, or () where it has none."""
    return next((spec.path for f, spec in keys(config) if f.name == "format"), ())


def _lookup(raw: dict, path: tuple[str, ...]) -> str | None:
    found: object = raw
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, str) else None


@dataclass(frozen=True, slots=True)
class Where:
    """Where a connector's checks report: the diagnostics, and locations inside one top-level block of the YAML."""

    diags: Collector
    smap: SourceMap
    block: str  # "source" or "sink"
    streaming: bool

    def at(self, *path) -> Location:
        return self.smap.at((self.block, *path))

    def key_at(self, *path) -> Location:
        return self.smap.key((self.block, *path))

    def text_at(self, path: tuple, offset: int) -> Location:
        return self.smap.text_at((self.block, *path), offset)


@dataclass(frozen=True, slots=True)
class SourceConnector:
    """decode(source) maps the raw rows `read_source` returns to the record model; check(source, where) reports
    the rules the connector imposes on its configuration."""

    name: str
    metadata: dict[str, MetaKey]
    decode: Callable[[Source, str], tuple[ir.Op, ...]]
    reader: Callable[[Source], dict]  # the context of its job section (templates/sources/NAME.py.j2): reader options
    config: type[SourceConfig]  # its config record: the keys its block takes (compiler/connectors/*_config.py)
    packages: Callable[[Source], tuple[str, ...]] = lambda source: ()
    formats: tuple[str, ...] = ()
    options: frozenset[str] = frozenset()  # the Spark reader options `options:` may set
    # yields_changelog(value_format, streaming): whether its records carry `op` (Shape.changelog)
    yields_changelog: Callable[[str | None, bool], bool] = lambda value_format, streaming: False
    check: Callable[[Source, Where], None] = lambda source, where: None
    # The value format's own metadata keys, and a hint for a key of another value format (a key, the value format)
    format_metadata: Callable[[str | None], dict[str, MetaKey]] = lambda fmt: {}
    metadata_hint: Callable[[str, str | None], str | None] = lambda key, fmt: None
    # The columns the source yields: the declared ones, or a default where the value format implies one
    yields: Callable[[str | None, tuple[Column, ...], Where], tuple[Column, ...]] = lambda fmt, columns, where: columns
    given_fields: frozenset[str] | None = None  # the fields a test's given record may set (None: any)
    given_hint: str = "files records get topic, partition, offset and timestamp from the files"  # why only those
    reads_files: bool = False  # reads files (a test's given records are written as files of its format)
    reads_table: bool = False  # reads a lakehouse table (delta, iceberg: compiler/runtime/table_source.py)
    rate_limit: str = "maxOffsetsPerTrigger"  # the reader option that caps a micro-batch
    # a boolean key of the source block that makes its records a changelog (a table's read-change-feed)
    changelog_key: str | None = None
    # Whether decode explodes each message into its changes, a skipped message (tombstone, DDL) a row with a null op
    # ops that drop the messages carrying no record (counted as filtered), run before the chain
    skip_messages: Callable[[Source], tuple[ir.Op, ...]] = lambda source: ()
    per_key_state: bool = False  # keeps per-key state across micro-batches (the job runs foreachBatch)
    # tolerance: all: the reader and decode where they differ from `reader` and `decode`; the decode whose record
    # errors keep a record out of the per-key state (the job's `decode_errors`); the record a dead letter carries
    # (None: the Kafka columns as read); what is wrong with dead letters from this source (message, path, hint)
    tolerant_reader: Callable[[Source], dict] | None = None
    tolerant_decode: Callable[[Source, str], tuple[ir.Op, ...]] | None = None
    state_check: Callable[[Source, str], tuple[ir.Op, ...]] | None = None
    raw_record: Callable[[Source, str], ir.Struct] | None = None
    position: Callable[[str], ir.Expr] = positioned
    dead_letter_refusals: Callable[[Source], list[tuple[str, tuple[str, ...], str]]] = lambda source: []
    real_time: bool = False  # Spark's real-time mode (trigger: real-time) reads it
    # A streaming query's numInputRows counts its records as read, each once, no filter pushed into the reader (a
    # file's row groups, a table's data skipping): a micro-batch that decodes one row per record may take `in` from it
    counted_as_read: bool = False
    # A json key or value whose text is the JSON literal null reads as null (Kafka Connect's JsonConverter), not as
    # an undecodable payload (record_errors.JSON_NULL)
    json_null: bool = False
    schema_hints: dict[tuple, str] = field(default_factory=dict)  # better hints for schema errors, by the path at fault

    def metadata_keys(self, value_format: str | None) -> dict[str, MetaKey]:
        """The readable metadata keys: the connector's and its value format's."""
        return {**self.metadata, **self.format_metadata(value_format)}

    @property
    def format_path(self) -> tuple[str, ...]:
        """Where the YAML sets the value format (its record's `format` key; none: ())."""
        return format_path(self.config)

    def value_format(self, raw: dict) -> str | None:
        """The value format a source block as written sets."""
        return _lookup(raw, self.format_path) if self.format_path else None


@dataclass(frozen=True, slots=True)
class TestLayout:
    """What a record test's `expect` can name of the records a sink writes (SPEC section 9): each record field the
    sink writes with its type (None: always null), and why any other field is never written."""

    fields: dict[str, SqlType | None]
    unwritten: str  # the reason, for an error at a field the sink does not write


def envelope_layout(sink: Sink, shape: Shape) -> TestLayout:
    """A files or console sink: the value's columns, and with `envelope: true` the envelope's (and `op`)."""
    value = shape.value
    if isinstance(value, StructType):
        value = StructType(tuple(f for f in value.fields if f.name not in shape.virtual))
    fields: dict[str, SqlType | None] = {"value": value}
    if sink.config.envelope:
        fields.update(
            {
                "key": shape.key,
                "topic": STRING,
                "partition": INT,
                "offset": BIGINT,
                "timestamp": TIMESTAMP_LTZ_3,
                "headers": HEADERS,
            }
        )
        if shape.changelog:
            fields["op"] = STRING
        return TestLayout(fields, f"a {sink.connector} sink writes a record's value and envelope columns only")
    return TestLayout(
        fields, f"a {sink.connector} sink without envelope: true writes only the value; add envelope: true"
    )


@dataclass(frozen=True, slots=True)
class SinkConnector:
    """encode(sink, shape) maps the record model to the rows the sink writes: ops whose last select is those rows."""

    name: str
    check: Callable[[Sink, Shape, Collector], None]
    encode: Callable[[Sink, Shape], tuple[ir.Op, ...]]
    writer: Callable[
        [Sink, Source], dict
    ]  # the context of its job section (templates/sinks/NAME.py.j2): writer options
    config: type[SinkConfig]  # its config record: the keys its block takes (compiler/connectors/*_config.py)
    packages: Callable[[Sink], tuple[str, ...]] = lambda sink: ()
    options: frozenset[str] = frozenset()  # the Spark writer options `options:` may set
    formats: tuple[str, ...] = ()  # value formats (`format`, or `value.format` at Kafka sinks)
    key_formats: tuple[str, ...] = ()  # `key.format`s
    takes_changelog: bool = False  # reduces a changelog itself (to upserts and tombstones)
    carries_op: Callable[[Sink], bool] = lambda sink: False  # an append-only sink that writes each row's `op`
    changelog_fix: str = "use an upsert-kafka sink"  # the hint when a changelog would lose its op here
    per_key_state: bool = False  # reduces each key's changes per micro-batch (the job runs foreachBatch)
    primary_key: bool = False  # its key fields are `primary-key`
    writes_kafka: bool = False  # writes Kafka rows to a cluster (bootstrap servers, producer properties)
    checkpoint_required: bool = True  # a streaming pipeline must name its checkpoint
    # ops run before the chain's first router step: what the sink must keep of each record's own topic
    before_routing: Callable[[Sink], tuple[ir.Op, ...]] = lambda sink: ()
    writes_files: bool = False  # writes files into a folder (with Spark's _spark_metadata log when streaming)
    spark_sink: str = "file"  # the Spark sink its stream writes through (outside foreachBatch)
    real_time: bool = False  # Spark's real-time mode (trigger: real-time) writes it
    test_layout: Callable[[Sink, Shape], TestLayout] = envelope_layout  # what a record test's `expect` can name
    applies_changes: Callable[[Sink], bool] = lambda sink: False  # applies each key's changes per micro-batch (MERGE)
    writes_table: bool = False  # writes a lakehouse table (delta, iceberg: compiler/runtime/tables.py)
    # the columns it writes where they are not its encoding's last select (a table's), and how explain shows it
    written: Callable[[Sink, Shape], tuple[str, ...]] | None = None
    describe: Callable[[Sink, Shape], list[str]] | None = None

    @property
    def durable(self) -> bool:
        """Whether what it writes is kept (a console sink only shows it)."""
        return self.writes_kafka or self.writes_files or self.writes_table

    def per_key(self, sink: Sink) -> bool:
        """Whether it works on each key's changes of a micro-batch (the job runs foreachBatch)."""
        return self.per_key_state or self.applies_changes(sink)

    @property
    def format_path(self) -> tuple[str, ...]:
        """Where the YAML sets the value format (its record's `format` key; none: ())."""
        return format_path(self.config)

    def value_format(self, raw: dict) -> str | None:
        """The value format a sink block as written sets."""
        return _lookup(raw, self.format_path) if self.format_path else None

    def columns(self, sink: Sink, shape: Shape) -> tuple[str, ...]:
        """The columns the sink writes: those of the last select of its encoding."""
        if self.written is not None:
            return self.written(sink, shape)
        written = next(op for op in reversed(self.encode(sink, shape)) if isinstance(op, (ir.Select, ir.SelectFields)))
        return tuple(name for name, _ in written.columns)

    def check_changelog(self, sink: Sink, shape: Shape, diags: Collector) -> None:
        """A changelog into an append-only sink that drops `op` would turn updates and deletes into inserts."""
        if not shape.changelog or self.takes_changelog or self.carries_op(sink):
            return
        diags.error(
            "E540",
            f"the source yields a changelog (+I, -U, +U, -D rows) and this {sink.connector} sink is append-only and drops the op",
            sink.loc,
            self.changelog_fix,
        )


def castable(src: SqlType, dst: SqlType) -> bool:
    """Whether a metadata value of type `src` may be declared as `dst` (an explicit cast)."""
    if src == dst or dst == Primitive("STRING"):
        return True
    if (src.is_timestamp and dst == BIGINT) or (src == BIGINT and dst.is_timestamp):
        return True
    if src.is_timestamp and dst.is_timestamp:
        return True
    if src.is_numeric and dst.is_numeric:
        return True
    if src == Primitive("STRING") and (
        dst.is_numeric or dst.is_timestamp or dst in (Primitive("BOOLEAN"), Primitive("DATE"))
    ):
        return True
    return False


def cast_metadata(expr: ir.Expr, src: SqlType, dst: SqlType) -> ir.Expr:
    """The declared column type's cast: epoch milliseconds between timestamps and BIGINT, else Spark's cast."""
    if src == dst:
        return expr
    if src.is_timestamp and dst == BIGINT:
        return ir.Func("unix_millis", (expr,))
    if src == BIGINT and dst.is_timestamp:
        return ir.Cast(ir.Func("timestamp_millis", (expr,)), dst.ddl())
    return ir.Cast(expr, dst.ddl())


def timestamp_type_name(code: ir.Expr) -> ir.Expr:
    """Kafka's TimestampType name for Spark's `timestampType` code."""
    result: ir.Expr = ir.Null("STRING")
    for number, name in reversed(TIMESTAMP_TYPE_NAMES):
        result = ir.If(ir.BinOp("==", code, ir.Lit(number)), ir.Lit(name), result)
    return result


def empty_headers() -> ir.Expr:
    return ir.Cast(ir.Func("array", ()), HEADERS.ddl())


def header_columns(column: Column, headers: ir.Expr) -> ir.Expr:
    """ksqlDB header columns over the record's headers array (never null in the record model)."""
    if column.headers:
        return headers
    # the last header of that name, as Kafka's Headers.lastHeader (compiler/runtime/headers.py: no lambda)
    return ir.Func("last_header", (headers, ir.Arg(column.header)))
