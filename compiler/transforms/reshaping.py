"""Helpers the transforms that reshape a key or value share (structure.py; masking reads its paths the same way):
a side of a shape replaced, a path as a user writes it, a list of field paths read, and the first two new fields
whose names clash."""

from __future__ import annotations

from dataclasses import replace

from ..shape import Shape
from ..types.sql import SqlType
from .base import ConfigReader
from .field_keys import read_path
from .field_paths import FieldPath, format_path


def set_side(shape: Shape, side: str, new: SqlType, virtual: frozenset[str] | None = None) -> Shape:
    """`shape` with `side` replaced; for the value, `virtual` (when given) replaces the virtual names."""
    out = shape.with_side(side, new)
    return replace(out, virtual=virtual) if side == "value" and virtual is not None else out


def shown(steps: tuple[str, ...]) -> str:
    """A path as a user writes it under V2 (backticks where a name holds a dot)."""
    try:
        return format_path(steps)
    except ValueError:
        return ".".join(steps)


def read_paths(reader: ConfigReader, key: str, version: str, code: str) -> tuple[FieldPath, ...]:
    """A required, non-empty LIST key of field paths (an empty list is an error at the key, a missing one at the step)."""
    items = reader.items(key)
    if not items:
        reader.error(
            key if reader.has(key) else None,
            f"'{key}' must list at least one field",
            f"list the fields: {key}: [a, b], or Kafka's a,b",
            code=code,
        )
    return tuple(p for p in (read_path(reader, key, text, version) for text in items) if p is not None)


def first_clash(names: list[tuple[str, str]]) -> str | None:
    """How the first two (name, source) entries whose names are equal ignoring case (Spark's rule) clash, or None."""
    seen: dict[str, tuple[str, str]] = {}
    for name, source in names:
        if name.casefold() not in seen:
            seen[name.casefold()] = (name, source)
            continue
        first, first_source = seen[name.casefold()]
        if first != name:
            return f"fields '{first}' (from {first_source}) and '{name}' (from {source}), the same name to Spark (it ignores case)"
        if first_source == source:
            return f"two fields named '{name}' ({source} is listed twice)"
        return f"two fields named '{name}' (from {first_source} and {source})"
    return None
