"""Kafka Connect's `Values` schema work, at compile time: merging the schemas of a list's or map's parsed
elements (`Values.mergeSchemas`, numbers widen) and converting each element to the merged schema
(`Values.convertTo`). Values and schemas are tagged as in `connect_values`.
"""

from __future__ import annotations

import struct
from typing import Any

from .javatext import DAY, round_f32


class DataError(Exception):
    """Kafka's DataException inside the parser: the whole literal falls back to a string."""


_WIDER = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64")


def _merge(previous: tuple, new: tuple) -> tuple | None:
    """Values.mergeSchemas for non-optional schemas: the same type takes the new one; numbers widen."""
    if previous[0] == new[0]:
        return new
    if previous[0] in _WIDER and new[0] in _WIDER:
        return new if _WIDER.index(new[0]) > _WIDER.index(previous[0]) else previous
    return None


class SchemaMerger:
    """The common schema of a list's elements or a map's keys or values, while they stay compatible."""

    def __init__(self) -> None:
        self.common: tuple | None = None
        self.compatible = True

    def merge(self, parsed: tuple | None) -> None:
        if parsed is not None and self.compatible:
            self.common = parsed[0] if self.common is None else _merge(self.common, parsed[0])
            self.compatible = self.common is not None


def _as_double(value: tuple) -> float:
    cls, payload = value
    if cls in ("Byte", "Short", "Integer", "Long"):
        return float(payload)
    if cls in ("Float", "Double"):
        return payload
    raise DataError(cls)


def convert_to(schema: tuple, value: tuple | None) -> tuple:
    """Values.convertTo(schema, null, value) for a schema the merger chose (never optional)."""
    if value is None:
        raise DataError("null for a schema that requires a value")
    type_, name = schema
    cls, payload = value
    if name in ("Date", "Time", "Timestamp"):
        if cls == "Date":
            return value
        if cls not in ("Byte", "Short", "Integer", "Long"):
            raise DataError(cls)
        if name == "Date":
            return "Date", _java_int(payload, 32) * DAY
        if name == "Time":
            millis = _java_int(payload, 32)
            if not 0 <= millis <= DAY:
                raise DataError("Time values must be within a day")
            return "Date", millis
        return "Date", payload
    if type_ in ("INT16", "INT32", "INT64"):
        if cls not in ("Byte", "Short", "Integer", "Long"):
            raise DataError(cls)
        bits = {"INT16": 16, "INT32": 32, "INT64": 64}[type_]
        return {16: "Short", 32: "Integer", 64: "Long"}[bits], _java_int(payload, bits)
    if type_ == "FLOAT32":
        return value if cls == "Float" else ("Float", round_f32(_as_double(value)))
    if type_ == "FLOAT64":
        return value if cls == "Double" else ("Double", _as_double(value))
    return value  # same class: INT8, BOOLEAN, STRING, Decimal, ARRAY, MAP


def _java_int(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def map_key(value: tuple | None) -> Any:
    """A hashable stand-in with Java's equals, for map keys."""
    if value is None:
        return None
    cls, payload = value
    if cls in ("Float", "Double"):
        return cls, struct.pack(">d", payload)
    if cls == "List":
        return cls, tuple(map_key(v) for v in payload)
    if cls == "Map":
        return cls, frozenset((map_key(k), map_key(v)) for k, v in payload)
    return value
