"""Kafka Connect schema type names (as ``Cast`` spells them) and the pipeline language's primitives."""

from __future__ import annotations

from .sql import BIGINT, BOOLEAN, BYTES, DOUBLE, FLOAT, INT, SMALLINT, STRING, TINYINT, Primitive, SqlType

CONNECT_TYPES: dict[str, Primitive] = {
    "int8": TINYINT,
    "int16": SMALLINT,
    "int32": INT,
    "int64": BIGINT,
    "float32": FLOAT,
    "float64": DOUBLE,
    "boolean": BOOLEAN,
    "string": STRING,
    "bytes": BYTES,
}
"""Kafka Connect schema type names (as used by ``Cast``) to our primitives."""

_CONNECT_NAMES: dict[SqlType, str] = {t: n for n, t in CONNECT_TYPES.items()}


def connect_type_name(t: SqlType) -> str | None:
    """The Kafka Connect schema type name of ``t`` (TINYINT -> int8, ...), or None."""
    return _CONNECT_NAMES.get(t)
