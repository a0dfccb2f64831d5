"""The changelog record model (SPEC 4.2, 7): the `op` column, its values, and which sinks may take a changelog.

A source whose connector yields a changelog (`SourceConnector.yields_changelog`) sets `Shape.changelog`; every
record then carries `op` (STRING, never null), placed right after `headers`. Transforms apply to each image
unchanged. Shared by the upsert-kafka source and sink and by the changelog value formats (debezium-json, canal-json).
"""

from __future__ import annotations

from . import ir
from .diagnostics import Collector
from .model import Sink
from .shape import Shape

OP = "op"  # the record model's changelog column, right after `headers`
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"  # Flink's RowKind short strings
OPS = (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)
ADDS = (INSERT, UPDATE_AFTER)  # rows that carry the new image

# Sinks that take a changelog as it is: upsert-kafka reduces it to upserts and tombstones.
UPSERT_SINKS = frozenset({"upsert-kafka"})
# Kafka sink value formats that carry the op in the payload.
CHANGELOG_VALUE_FORMATS = frozenset({"debezium-json"})
# Sinks that carry `op` as a column with `envelope: true`.
ENVELOPE_SINKS = frozenset({"files", "console"})


def is_delete(op: ir.Expr = ir.Col(OP)) -> ir.Expr:
    """True for a `-D` row (null-safe: false when `op` is null)."""
    return ir.Func("coalesce", (ir.BinOp("==", op, ir.Lit(DELETE)), ir.Lit(False)))


def carries_op(sink: Sink) -> bool:
    """Whether an append-only sink writes each row's `op`, so a changelog survives it."""
    if sink.connector in ENVELOPE_SINKS:
        return sink.envelope
    return sink.connector == "kafka" and sink.format in CHANGELOG_VALUE_FORMATS


def check_sink_takes_changelog(sink: Sink, shape: Shape, diags: Collector) -> None:
    """A changelog into an append-only sink that drops `op` would turn updates and deletes into inserts."""
    if not shape.changelog or sink.connector in UPSERT_SINKS or carries_op(sink):
        return
    fix = {
        "kafka": "write it with connector: upsert-kafka (and primary-key), or value.format: debezium-json",
        "files": "add envelope: true to write each row's op, or use an upsert-kafka sink",
        "console": "set envelope: true to show each row's op",
    }.get(sink.connector, "use an upsert-kafka sink")
    diags.error(
        "E540",
        f"the source yields a changelog (+I, -U, +U, -D rows) and this {sink.connector} sink is append-only and drops the op",
        sink.loc,
        fix,
    )
