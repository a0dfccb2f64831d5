"""Changelogs (SPEC sections 4.2 and 7): the `op` column every changelog record carries, and where one may go.

A changelog source (debezium-json, canal-json; upsert-kafka in streaming mode) gives every record an `op` column,
right after `headers` in the record model: Flink's RowKind as text, never null.
"""

from __future__ import annotations

from .diagnostics import Collector
from .model import Sink
from .shape import Shape

OP = "op"
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"
OPS = (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)
ADDS = (INSERT, UPDATE_AFTER)  # rows that carry the new image
RETRACTS = (UPDATE_BEFORE, DELETE)  # rows that carry the old image

# Sinks that keep each row's op: by their value format, by envelope: true, or by being upsert sinks.
OP_CARRYING_VALUE_FORMATS = {"kafka": ("debezium-json",)}
ENVELOPE_SINKS = ("files", "console")
UPSERT_SINKS = ("upsert-kafka",)


def carries_op(sink: Sink) -> bool:
    """Whether a sink writes a changelog faithfully (SPEC section 7)."""
    if sink.connector in UPSERT_SINKS:
        return True
    if sink.connector in ENVELOPE_SINKS:
        return sink.envelope
    return sink.format in OP_CARRYING_VALUE_FORMATS.get(sink.connector, ())


def check_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    """A changelog into an append-only sink is a compile error: its -U and -D rows would be written as inserts."""
    if shape.changelog and not carries_op(sink):
        diags.error(
            "E545",
            f"{sink.connector} sink: the source yields a changelog (op +I, -U, +U, -D), which an append-only sink would "
            "write as inserts",
            sink.loc,
            "write value.format: debezium-json to a kafka sink, set envelope: true on a files or console sink, "
            "or use an upsert-kafka sink",
        )
