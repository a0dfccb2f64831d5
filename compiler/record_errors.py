"""Record errors as data (SPEC section 8): how the lowered record path reports a bad record.

Transforms and connectors fail a record with a native `raise_error` (`Lowering.record_error`), and decoders parse
with `FAILFAST`. This module rewrites the lowered IR, one stage at a time:

- `tolerance: none`: decoders parse PERMISSIVE with a corrupt-record field and raise a record error that names the
  stage and the record's topic, partition and offset (FAILFAST's own error names neither). Nothing else changes.
- `tolerance: all`: no stage raises. The source's record is kept untouched in `__raw`; each stage sets `__error`
  (stage, Kafka class name, message) for the rows it would have failed, unless an earlier stage did; its own outputs
  read null there instead of raising; filters keep rows with an error. After `encode` the job splits the rows: those
  with `__error` are dead letters, the others go to the sink.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import ir
from .record_raises import NULL, coalesce, error_of, when, without_raises

ERROR = "__error"  # STRUCT<stage, class, message>: the first record error of the row, else null
RAW = (
    "__raw"  # the record as the source read it (Kafka columns; a line of a file adds `file`), for the dead-letter queue
)
CORRUPT = "__pipec_corrupt"  # the corrupt-record field a PERMISSIVE decoder fills
DECODED = "__pipec_decoded"  # the field an Avro reader schema adds: true where the payload decoded, else null
MESSAGE = "__error_message"  # a stage's error message, set once so the error struct does not repeat it
ERROR_DDL = "STRUCT<stage: STRING, class: STRING, message: STRING>"
RAW_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")
HIDDEN = (ERROR, RAW)

# Kafka Connect's stage of the errors context header, by the record column a converter reads or writes.
CONVERTER_STAGES = {"key": "KEY_CONVERTER", "value": "VALUE_CONVERTER", "headers": "HEADER_CONVERTER"}
# The decoded payloads, materialised once each (parsing inline in several places repeats it in the plan); an op
# that reads only one of them (json timestamps converted after parsing) is that payload's converter stage.
PARSED_KEY, PARSED_VALUE = "__key", "__value"
PARSED_SIDES = {PARSED_KEY: "key", PARSED_VALUE: "value"}
TRANSFORMATION = "TRANSFORMATION"
# The converter class Kafka Connect would name for a payload format (class.name of a converter error).
CONVERTER_CLASSES = {
    "json": "org.apache.kafka.connect.json.JsonConverter",
    "raw": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "csv": "pipec.converters.CsvConverter",
    "avro": "io.confluent.connect.avro.AvroConverter",
    "avro-confluent": "io.confluent.connect.avro.AvroConverter",
    "debezium-json": "io.debezium.converters.DebeziumJsonConverter",
    "canal-json": "pipec.converters.CanalJsonConverter",
    "header": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
}
# Decoders that fail on bad input in FAILFAST mode; PERMISSIVE json/csv fill CORRUPT, avro leaves DECODED null.
# from_registry: the job's from_avro per writer schema of a Schema Registry (avro.decode).
DECODERS = {
    "from_json": True,
    "from_csv": True,
    "from_avro": False,
    "from_registry": False,
}  # name -> has a corrupt-record field
# A json payload whose text is the JSON literal null, with JSON's whitespace around it: Kafka Connect's JsonConverter
# reads it as a null key or value, where Spark's from_json gives a corrupt record (and null for blank text, which
# JsonConverter also reads as null).
JSON_NULL = r"\A[\t\n\r ]*null[\t\n\r ]*\z"


@dataclass(frozen=True, slots=True)
class Stage:
    """Where a record error happens, as the errors context headers name it."""

    stage: str  # KEY_CONVERTER | VALUE_CONVERTER | TRANSFORMATION | HEADER_CONVERTER
    class_name: str


def positioned(text: str) -> ir.Expr:
    """`text` with the record's topic, partition and offset appended (`text` is a literal, escaped for %)."""
    message = f"{text.replace('%', '%%')} (topic %s, partition %s, offset %s)"
    return ir.Func("format_string", (ir.Arg(message), ir.Col("topic"), ir.Col("partition"), ir.Col("offset")))


def in_file(text: str) -> ir.Expr:
    """`text` with the line's file and number appended (a files source read line by line: RAW's file and offset)."""
    message = f"{text.replace('%', '%%')} (file %s, line %s)"
    return ir.Func("format_string", (ir.Arg(message), ir.Get(ir.Col(RAW), "file"), ir.Get(ir.Col(RAW), "offset")))


def in_source_file(text: str) -> ir.Expr:
    """`text` with the file of a row Spark's file reader read appended (`_metadata.file_path`; a files source read by
    its format's reader has no line numbers: docs/errors.md)."""
    message = f"{text.replace('%', '%%')} (file %s)"
    return ir.Func("format_string", (ir.Arg(message), ir.Get(ir.Col("_metadata"), "file_path")))


# ---------------------------------------------------------------------------------------------------- decoders


@dataclass(frozen=True, slots=True)
class Decoder:
    """A FAILFAST decoder found at the top of a column's expression (or under a cast or an If)."""

    column: str  # the column the op sets
    reads: str  # the raw column it decodes: key or value
    corrupt: bool  # json/csv: a corrupt-record field tells bad rows; avro: DECODED null for non-null input

    def json_null(self, formats: dict[str, str], nulls: bool) -> ir.Expr | None:
        """Where its payload is the JSON literal null, when `nulls` (the source reads that as null) and it is json."""
        if not (nulls and self.corrupt and formats.get(self.reads) == "json"):
            return None
        return ir.Method(ir.Get(ir.Col(self.column), CORRUPT), "rlike", (ir.Arg(JSON_NULL),))


def _permissive(node: object, found: list) -> object:
    """`node` with FAILFAST decoders made PERMISSIVE (json/csv gain the CORRUPT field); records what it changed."""
    if isinstance(node, ir.Func) and node.name in DECODERS and _failfast(node):
        text, schema, _ = node.args
        reads = sorted(_columns(text) & set(CONVERTER_STAGES)) or ["value"]
        found.append((reads[0], DECODERS[node.name]))
        if DECODERS[node.name]:
            ddl = str(schema.value)
            widened = ddl[:-1] + f", `{CORRUPT}`: STRING>"
            options = {**node.args[2].value, "mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
            return replace(node, args=(text, ir.Arg(widened), ir.Arg(options)))
        return replace(node, args=(text, schema, ir.Arg({**node.args[2].value, "mode": "PERMISSIVE"})))
    if isinstance(node, tuple):
        return tuple(_permissive(n, found) for n in node)
    if isinstance(node, ir.Expr) and (names := ir.field_names(node)):
        return replace(node, **{f: _permissive(getattr(node, f), found) for f in names})
    return node


def _failfast(node: ir.Func) -> bool:
    options = node.args[2].value if len(node.args) == 3 and isinstance(node.args[2], ir.Arg) else None
    return isinstance(options, dict) and options.get("mode") == "FAILFAST"


def _columns(node: object) -> set[str]:
    if isinstance(node, ir.Col):
        return {node.name}
    if isinstance(node, tuple):
        return set().union(*(_columns(n) for n in node))
    if names := ir.field_names(node):
        return set().union(*(_columns(getattr(node, f)) for f in names))
    return set()


def decoders(op: ir.SetColumns) -> tuple[ir.SetColumns, list[Decoder]]:
    """The op with its FAILFAST decoders made PERMISSIVE, and where they are."""
    columns, found = [], []
    for name, expr in op.columns:
        here: list = []
        new = _permissive(expr, here)
        if any(corrupt for _, corrupt in here) and not (len(here) == 1 and _top_decoder(new)):
            raise NotImplementedError(f"a json/csv decoder nested inside column {name}")
        found += [Decoder(name, reads, corrupt) for reads, corrupt in here]
        columns.append((name, new))
    return replace(op, columns=tuple(columns)), found


def _top_decoder(node: ir.Expr) -> bool:
    return isinstance(node, ir.Func) and node.name in DECODERS


def decode_failed(d: Decoder, json_null: ir.Expr | None = None) -> ir.Expr:
    """Rows whose payload did not decode, after the op set `d.column` (but for `json_null`'s, which read as null)."""
    if d.corrupt:
        failed: ir.Expr = ir.Not(ir.IsNull(ir.Get(ir.Col(d.column), CORRUPT)))
        return ir.BinOp("&", failed, ir.Not(json_null)) if json_null is not None else failed
    return ir.BinOp("&", ir.Not(ir.IsNull(ir.Col(d.reads))), ir.IsNull(ir.Get(ir.Col(d.column), DECODED)))


def decode_message(d: Decoder, fmt: str) -> str:
    return not_valid(d.reads, fmt)


def not_valid(side: str, fmt: str) -> str:
    """Why a key or value (`side`) did not decode."""
    return f"source {side}: not valid {fmt} for the declared columns"


# ---------------------------------------------------------------------------------------------------- rewrites


def error_struct(stage: Stage, message: ir.Expr) -> ir.Expr:
    return ir.Struct((("stage", ir.Lit(stage.stage)), ("class", ir.Lit(stage.class_name)), ("message", message)))


def first_error(errors: list[ir.Expr]) -> ir.SetColumns:
    """ERROR := the row's earlier error, else the first of `errors` (STRUCT expressions, null where none)."""
    return ir.SetColumns(((ERROR, ir.Func("coalesce", (ir.Col(ERROR), *errors))),))


def tolerate_decode(
    ops: tuple[ir.Op, ...],
    formats: dict[str, str],
    raw: ir.Struct | None = None,
    position=positioned,
    nulls: bool = False,
) -> tuple[ir.Op, ...]:
    """tolerance: all, source decoding: keep the raw record (`raw`, by default the Kafka columns as read), mark
    undecodable rows instead of failing. Leading job functions (the upsert table, a files source's line numbers)
    run on the rows as read first; a decode error's message ends with `position` (topic, partition, offset).
    `nulls`: a json payload that is the JSON literal null decodes to null (Decoder.json_null)."""
    applied = 0
    while applied < len(ops) and isinstance(ops[applied], ir.Apply):
        applied += 1
    raw = raw or ir.Struct(tuple((c, ir.Col(c)) for c in RAW_COLUMNS))
    out: list[ir.Op] = [*ops[:applied], ir.SetColumns(((RAW, raw), (ERROR, ir.Null(ERROR_DDL))))]
    for op in ops[applied:]:
        if isinstance(op, ir.SetColumns):
            op, found = decoders(op)
            out.extend(_stage_error(op.columns, lambda name, op=op: _converter_stage(name, op, formats)))
            out.append(without_raises(op))
            # Kafka Connect converts the key before the value: a record whose key and value both fail is a key error
            found = sorted(found, key=lambda d: list(CONVERTER_STAGES).index(d.reads))
            post = [
                when(
                    decode_failed(d, d.json_null(formats, nulls)),
                    error_struct(_decoder_stage(d, formats), position(decode_message(d, formats[d.reads]))),
                    ddl=ERROR_DDL,
                )
                for d in found
            ]
            if post:
                out.append(first_error([p for p in post if p is not None]))
            nulled = [
                (d.column, ir.If(null, NULL, ir.Col(d.column)))
                for d in found
                if (null := d.json_null(formats, nulls)) is not None
            ]
            if nulled:
                out.append(ir.SetColumns(tuple(nulled)))
        else:
            out.extend(tolerate_op(op, lambda name, op=op: _converter_stage(name, op, formats)))
    return tuple(out)


def _decoder_stage(d: Decoder, formats: dict[str, str]) -> Stage:
    fmt = formats[d.reads]
    return Stage(CONVERTER_STAGES[d.reads], CONVERTER_CLASSES.get(fmt, fmt))


def _converter_stage(name: str, op: ir.Op, formats: dict[str, str]) -> Stage:
    """The converter stage of a decode column: by the raw column it reads (key, value or headers)."""
    expr = dict(op.columns)[name]
    read = _columns(expr)
    reads = (
        [c for c in ("key", "headers", "value") if c in read]
        or [PARSED_SIDES[c] for c in sorted(read) if c in PARSED_SIDES]
        or ["value"]
    )
    fmt = formats.get(reads[0], "header")
    return Stage(CONVERTER_STAGES[reads[0]], CONVERTER_CLASSES.get(fmt, fmt))


def _stage_error(columns, stage_of) -> tuple[ir.Op, ...]:
    """Ops that set ERROR for rows these columns' expressions would fail (none when they never fail)."""
    messages = [(stage_of(name), err) for name, expr in columns if (err := error_of(expr)) is not None]
    if not messages:
        return ()
    stages = {stage for stage, _ in messages}
    if len(stages) == 1:  # one stage: one message column, read twice below
        message = ir.SetColumns(((MESSAGE, coalesce([m for _, m in messages])),))
        set_error = first_error(
            [when(ir.Not(ir.IsNull(ir.Col(MESSAGE))), error_struct(stages.pop(), ir.Col(MESSAGE)), ddl=ERROR_DDL)]
        )
        return (message, set_error)
    return (first_error([when(ir.Not(ir.IsNull(m)), error_struct(stage, m), ddl=ERROR_DDL) for stage, m in messages]),)


def tolerate_op(op: ir.Op, stage_of) -> tuple[ir.Op, ...]:
    """tolerance: all for one operation: record the error first, then run the op without raising."""
    if isinstance(op, ir.Where):  # a filter never drops a row with an error: it goes to the dead letters
        return (ir.Where(ir.BinOp("|", op.cond, ir.Not(ir.IsNull(ir.Col(ERROR))))),)
    if isinstance(op, ir.Apply):  # a job function (the upsert sink's fates) that passes rows with an error through
        return (op,)
    errors = _stage_error(op.columns, stage_of)
    if isinstance(op, (ir.Select, ir.SelectFields)):  # the rows keep the error and the record as read
        kept = without_raises(op.columns) + ((ERROR, ir.Col(ERROR)), (RAW, ir.Col(RAW)))
        return errors + (ir.Select(kept),)
    return errors + (without_raises(op),)


def tolerate_block(block: ir.Block, stage_of) -> ir.Block:
    return replace(block, ops=tuple(o for op in block.ops for o in tolerate_op(op, stage_of)))


def checked_decode(ops: tuple[ir.Op, ...], formats: dict[str, str], nulls: bool = False) -> tuple[ir.Op, ...]:
    """tolerance: none, source decoding: a payload that does not decode fails with a record error naming the
    stage, topic, partition and offset (FAILFAST's own error names none of them). `nulls`: a json payload that
    is the JSON literal null decodes to null instead (Decoder.json_null)."""
    out: list[ir.Op] = []
    for op in ops:
        if not isinstance(op, ir.SetColumns):
            out.append(op)
            continue
        op, found = decoders(op)
        out.append(op)
        if found:
            checks = []
            for d in found:
                stage = _decoder_stage(d, formats)
                fail: ir.Expr = ir.Func(
                    "raise_error", (positioned(f"{stage.stage}: {decode_message(d, formats[d.reads])}"),)
                )
                null = d.json_null(formats, nulls)
                if null is not None:
                    fail = ir.If(null, NULL, fail)
                checks.append((d.column, ir.If(decode_failed(d), fail, ir.Col(d.column))))
            out.append(ir.SetColumns(tuple(checks)))
    return tuple(out)


def sink_stage(column: str, fmt: str | None) -> Stage:
    """The converter stage of a sink encoding error, by the column the sink writes."""
    return Stage(
        CONVERTER_STAGES.get(column, CONVERTER_STAGES["value"]), CONVERTER_CLASSES.get(fmt or "", fmt or "pipec")
    )
