"""The changelog record model (SPEC 4.2, 7): the `op` column and its values.

A source whose connector yields a changelog (`SourceConnector.yields_changelog`) sets `Shape.changelog`; every
record then carries `op` (STRING, never null), placed right after `headers`. Transforms apply to each image
unchanged. Shared by the upsert-kafka source and sink and by the changelog value formats (debezium-json, canal-json);
which sinks take a changelog, each sink connector says (`SinkConnector.check_changelog`).
"""

from __future__ import annotations

from . import ir

OP = "op"  # the record model's changelog column, right after `headers`
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"  # Flink's RowKind short strings
OPS = (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)
ADDS = (INSERT, UPDATE_AFTER)  # rows that carry the new image
# An upsert-kafka changelog's hidden column (the runtime's changelog.TOMBSTONE): a `-D`'s own tombstone envelope
# (timestamp, partition, offset; null on other rows), while its visible columns are the image it deletes (Flink's
# rule), so a table sink's default sequence orders the delete at the tombstone (Shape.tombstones)
TOMBSTONE = "__tombstone"


def is_delete(op: ir.Expr = ir.Col(OP)) -> ir.Expr:
    """True for a `-D` row (null-safe: false when `op` is null)."""
    return ir.Func("coalesce", (ir.BinOp("==", op, ir.Lit(DELETE)), ir.Lit(False)))
