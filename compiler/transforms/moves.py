"""Moves: how a step maps the slots of its input record to those of its output, which every transform declares
(`TransformSpec.lineage`) so that column lineage (tools/lineage.py) can follow a chain.

A slot is a place a value sits in the record: ("value", path), ("key", path), ("header", (key,)) or
("meta", (record column,)); path () is the whole key or value. A step's moves give, for each output slot it
changes, the input slot it reads (None: a literal, or nothing), whether it transforms the value and whether it masks
it; every other slot passes through unchanged, and the slots below a moved one follow it (a renamed struct's fields
come from the old struct's fields).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..shape import Shape

Slot = tuple[str, tuple[str, ...]]
IDENTITY, TRANSFORMATION = "IDENTITY", "TRANSFORMATION"  # OpenLineage's DIRECT subtypes
TOPIC: Slot = ("meta", ("topic",))


@dataclass(frozen=True, slots=True)
class Move:
    """An output slot's input: the slot read (None for a literal), how, and whether the value is masked."""

    source: Slot | None
    subtype: str = IDENTITY
    masking: bool = False


Moves = dict[Slot, Move]


def no_moves(config: Any, side: str | None, before: Shape) -> Moves:
    """The lineage of a step that moves no value: it drops records or only edits what lineage does not follow."""
    return {}


def header(key: str) -> Slot:
    """The slot of the header `key`."""
    return ("header", (key,))
