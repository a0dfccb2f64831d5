"""SQL types of the pipeline language (Flink / ksqlDB names) and their Spark DDL.

An immutable :class:`SqlType` tree (``type_parser.parse_type`` reads one from a type string such as
``"STRUCT<name STRING, n DECIMAL(10, 2)>"``); ``SqlType.sql()`` spells it back in our language and
``SqlType.ddl()`` gives Spark DDL text (``DataType.fromDDL``, ``from_json``).

``TIMESTAMP(p)`` is Spark's ``TIMESTAMP_NTZ``, ``TIMESTAMP_LTZ(p)`` Spark's
``TIMESTAMP``; Spark keeps microseconds, so a precision above 6 is an error.
Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from .field_names import duplicate_message, duplicate_pair

__all__ = [
    "BIGINT",
    "BOOLEAN",
    "BYTES",
    "DATE",
    "DOUBLE",
    "FLOAT",
    "HEADERS",
    "HEADERS_MAP",
    "INT",
    "SMALLINT",
    "STRING",
    "TIMESTAMP_LTZ_3",
    "TINYINT",
    "ArrayType",
    "MapType",
    "Primitive",
    "SqlType",
    "StructField",
    "StructType",
    "quote_name",
]


# --- Primitive table ---


class _Prim(NamedTuple):
    ddl: str  # Spark DDL name
    category: str  # boolean integral fractional decimal string binary date timestamp
    params: str | None  # None, "decimal" or "timestamp"


_PRIMITIVES: dict[str, _Prim] = {
    "BOOLEAN": _Prim("BOOLEAN", "boolean", None),
    "TINYINT": _Prim("TINYINT", "integral", None),
    "SMALLINT": _Prim("SMALLINT", "integral", None),
    "INT": _Prim("INT", "integral", None),
    "BIGINT": _Prim("BIGINT", "integral", None),
    "FLOAT": _Prim("FLOAT", "fractional", None),
    "DOUBLE": _Prim("DOUBLE", "fractional", None),
    "DECIMAL": _Prim("DECIMAL", "decimal", "decimal"),
    "STRING": _Prim("STRING", "string", None),
    "BYTES": _Prim("BINARY", "binary", None),
    "DATE": _Prim("DATE", "date", None),
    "TIMESTAMP": _Prim("TIMESTAMP_NTZ", "timestamp", "timestamp"),
    "TIMESTAMP_LTZ": _Prim("TIMESTAMP", "timestamp", "timestamp"),
}

DECIMAL_MAX_PRECISION = 38
DECIMAL_DEFAULT = (10, 0)  # Flink's DECIMAL without parameters
TIMESTAMP_MAX_PRECISION = 6  # Spark keeps microseconds
TIMESTAMP_DEFAULT_PRECISION = 6  # Flink's default for TIMESTAMP(p)


def _param_error(name: str, precision: int | None, scale: int | None) -> tuple[str, str] | None:
    """Why (precision, scale) are invalid for ``name`` and which one is, or None."""
    kind = _PRIMITIVES[name].params
    if kind is None:
        if precision is not None or scale is not None:
            return f"{name} takes no parameters", "precision"
        return None
    if kind == "timestamp":
        if scale is not None:
            return f"{name} takes one parameter (precision)", "scale"
        if precision is not None and precision < 0:
            return f"{name} precision {precision} is below 0", "precision"
        if precision is not None and precision > TIMESTAMP_MAX_PRECISION:
            return (
                f"precision {precision} is above {TIMESTAMP_MAX_PRECISION}: "
                f"Spark keeps microseconds; "
                f"use {name}({TIMESTAMP_MAX_PRECISION}) or less",
                "precision",
            )
        return None
    if precision is not None and not 1 <= precision <= DECIMAL_MAX_PRECISION:
        return (
            f"DECIMAL precision {precision} is out of range 1..{DECIMAL_MAX_PRECISION}",
            "precision",
        )
    if scale is not None:
        top = precision if precision is not None else DECIMAL_DEFAULT[0]
        if not 0 <= scale <= top:
            return (
                f"DECIMAL scale {scale} is out of range 0..{top} (the precision)",
                "scale",
            )
    return None


# --- Type tree ---

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote_name(name: str) -> str:
    """Backtick-quote ``name`` (doubling inner backticks) unless it is an identifier."""
    if _PLAIN_NAME.match(name):
        return name
    return _backtick(name)


def _backtick(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True, slots=True)
class SqlType:
    """Base of every type; immutable and hashable, compared by value."""

    def ddl(self) -> str:
        """Spark DDL text (for ``DataType.fromDDL``, ``from_json``, reader schemas)."""
        raise NotImplementedError

    def sql(self) -> str:
        """The spelling in the pipeline language; ``parse_type(t.sql()) == t``."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.sql()

    # Category predicates; only primitives answer True.
    @property
    def is_numeric(self) -> bool:
        return False

    @property
    def is_integral(self) -> bool:
        return False

    @property
    def is_timestamp(self) -> bool:
        return False

    @property
    def is_string(self) -> bool:
        return False

    @property
    def is_binary(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Primitive(SqlType):
    """A scalar type; parameters omitted at construction take their defaults.

    ``DECIMAL`` gets (10, 0) or (p, 0); ``TIMESTAMP``/``TIMESTAMP_LTZ`` get precision 6.
    Invalid names or parameters raise ``ValueError``.
    """

    name: str
    precision: int | None = None
    scale: int | None = None

    def __post_init__(self) -> None:
        if self.name not in _PRIMITIVES:
            raise ValueError(f"unknown primitive {self.name!r}; expected one of {', '.join(_PRIMITIVES)}")
        problem = _param_error(self.name, self.precision, self.scale)
        if problem:
            raise ValueError(problem[0])
        kind = _PRIMITIVES[self.name].params
        if kind == "decimal":
            if self.precision is None:
                object.__setattr__(self, "precision", DECIMAL_DEFAULT[0])
            if self.scale is None:
                object.__setattr__(self, "scale", DECIMAL_DEFAULT[1])
        elif kind == "timestamp" and self.precision is None:
            object.__setattr__(self, "precision", TIMESTAMP_DEFAULT_PRECISION)

    def _params(self, sep: str) -> str:
        kind = _PRIMITIVES[self.name].params
        if kind == "decimal":
            return f"({self.precision},{sep}{self.scale})"
        if kind == "timestamp":
            return f"({self.precision})"
        return ""

    def ddl(self) -> str:
        info = _PRIMITIVES[self.name]
        return info.ddl + (self._params("") if info.params == "decimal" else "")

    def sql(self) -> str:
        return self.name + self._params(" ")

    @property
    def is_numeric(self) -> bool:
        return _PRIMITIVES[self.name].category in ("integral", "fractional", "decimal")

    @property
    def is_integral(self) -> bool:
        return _PRIMITIVES[self.name].category == "integral"

    @property
    def is_timestamp(self) -> bool:
        return _PRIMITIVES[self.name].category == "timestamp"

    @property
    def is_string(self) -> bool:
        return _PRIMITIVES[self.name].category == "string"

    @property
    def is_binary(self) -> bool:
        return _PRIMITIVES[self.name].category == "binary"


@dataclass(frozen=True, slots=True)
class ArrayType(SqlType):
    """``ARRAY<element>``."""

    element: SqlType

    def ddl(self) -> str:
        return f"ARRAY<{self.element.ddl()}>"

    def sql(self) -> str:
        return f"ARRAY<{self.element.sql()}>"


@dataclass(frozen=True, slots=True)
class MapType(SqlType):
    """``MAP<key, value>``."""

    key: SqlType
    value: SqlType

    def ddl(self) -> str:
        return f"MAP<{self.key.ddl()},{self.value.ddl()}>"

    def sql(self) -> str:
        return f"MAP<{self.key.sql()}, {self.value.sql()}>"


@dataclass(frozen=True, slots=True)
class StructField:
    """One named field of a STRUCT; the name is any non-empty string."""

    name: str
    type: SqlType

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a struct field name must be a non-empty string, not {self.name!r}")
        if not isinstance(self.type, SqlType):
            raise ValueError(f"field {self.name!r}: type must be a SqlType, not {self.type!r}")


@dataclass(frozen=True, slots=True)
class StructType(SqlType):
    """``STRUCT<name TYPE, ...>``: ordered fields whose names are unique ignoring case.

    An empty StructType may be built (e.g. as a schema under construction) but does not
    parse: ``STRUCT<>`` is an error.
    """

    fields: tuple[StructField, ...]

    def __post_init__(self) -> None:
        fields = tuple(self.fields)
        object.__setattr__(self, "fields", fields)
        for f in fields:
            if not isinstance(f, StructField):
                raise ValueError(f"STRUCT fields must be StructField, not {f!r}")
        dup = duplicate_pair([f.name for f in fields])
        if dup:
            raise ValueError(duplicate_message(*dup))

    def ddl(self) -> str:
        return "STRUCT<" + ", ".join(f"{_backtick(f.name)}: {f.type.ddl()}" for f in self.fields) + ">"

    def sql(self) -> str:
        return "STRUCT<" + ", ".join(f"{quote_name(f.name)} {f.type.sql()}" for f in self.fields) + ">"

    def field(self, name: str) -> StructField | None:
        """The field called exactly ``name``, or None."""
        return next((f for f in self.fields if f.name == name), None)

    def names(self) -> tuple[str, ...]:
        """Field names in order."""
        return tuple(f.name for f in self.fields)

    def replace(self, name: str, new_type: SqlType) -> StructType:
        """A copy with field ``name`` retyped in place; KeyError if there is none."""
        self._require(name)
        return StructType(tuple(StructField(f.name, new_type) if f.name == name else f for f in self.fields))

    def append(self, field: StructField) -> StructType:
        """A copy with ``field`` added last; ValueError if the name is taken."""
        return StructType(self.fields + (field,))

    def without(self, name: str) -> StructType:
        """A copy without field ``name``; KeyError if there is none."""
        self._require(name)
        return StructType(tuple(f for f in self.fields if f.name != name))

    def _require(self, name: str) -> None:
        if self.field(name) is None:
            raise KeyError(f"no field {name!r} in {self.sql()}")


# --- Well-known constants ---

BOOLEAN = Primitive("BOOLEAN")
TINYINT = Primitive("TINYINT")
SMALLINT = Primitive("SMALLINT")
INT = Primitive("INT")
BIGINT = Primitive("BIGINT")
FLOAT = Primitive("FLOAT")
DOUBLE = Primitive("DOUBLE")
STRING = Primitive("STRING")
BYTES = Primitive("BYTES")
DATE = Primitive("DATE")
TIMESTAMP_LTZ_3 = Primitive("TIMESTAMP_LTZ", 3)
HEADERS = ArrayType(StructType((StructField("key", STRING), StructField("value", BYTES))))
"""ksqlDB's ``headers: true`` column type: every header in wire order."""
HEADERS_MAP = MapType(STRING, BYTES)
"""Flink's ``headers`` metadata column type."""
